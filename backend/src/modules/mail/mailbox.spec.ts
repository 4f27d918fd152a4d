import { FASTMAIL_DOMAINS, mailboxOf } from './mailbox';

describe('mailboxOf: the mailbox an address reaches', () => {
  // [address, mailbox, the provider's rule]
  const sameMailbox: [string, string, string][] = [
    ['Alice@Example.com', 'alice@example.com', 'case'],
    ['a.lice+x@example.com', 'a.lice@example.com', '+tag on any domain (dots kept)'],
    ['A.Lice+promo@GoogleMail.com', 'alice@gmail.com', 'Gmail: dots, +tag, googlemail.com'],
    ['a.l.i.c.e@gmail.com', 'alice@gmail.com', 'Gmail: dots'],
    ['alice+x@outlook.com', 'alice@outlook.com', 'Outlook: +tag'],
    ['alice+x@hotmail.com', 'alice@hotmail.com', 'Hotmail: +tag'],
    ['alice+x@live.com', 'alice@live.com', 'Live: +tag'],
    ['alice-shop@yahoo.com', 'alice@yahoo.com', 'Yahoo: -keyword'],
    ['Alice-Shop-2@Yahoo.co.jp', 'alice@yahoo.co.jp', 'Yahoo: -keyword on a regional domain'],
    ['alice-x@ymail.com', 'alice@ymail.com', 'Yahoo: ymail.com'],
    ['alice-x@rocketmail.com', 'alice@rocketmail.com', 'Yahoo: rocketmail.com'],
    ['alice@ya.ru', 'alice@yandex.ru', "Yandex's domains"],
    // issue 52: subdomain addressing and one account's domains
    ['anything@alice.fastmail.com', 'alice@fastmail.com', 'Fastmail: subdomain addressing'],
    ['other@alice.fastmail.com', 'alice@fastmail.com', 'Fastmail: subdomain addressing'],
    ['Shop@ALICE.FastMail.com', 'alice@fastmail.com', 'Fastmail: case'],
    ['alice+news@fastmail.com', 'alice@fastmail.com', 'Fastmail: +tag'],
    ['x@alice.fastmail.fm', 'alice@fastmail.fm', 'Fastmail: fastmail.fm'],
    ['x@alice.sent.com', 'alice@sent.com', "Fastmail: another of Fastmail's domains"],
    ['x@alice.fastmail.com.au', 'alice@fastmail.com.au', 'Fastmail: a two-part domain'],
    ['x@joe-citizen.fastmail.com', 'joe_citizen@fastmail.com', 'Fastmail: _ written as - in a subdomain'],
    ['x@joe_citizen.fastmail.fm', 'joe_citizen@fastmail.fm', 'Fastmail: _ kept in a subdomain'],
    ['joe_citizen+x@fastmail.com', 'joe_citizen@fastmail.com', 'Fastmail: _ as written in the name'],
    ['joe-citizen@fastmail.com', 'joe-citizen@fastmail.com', 'Fastmail: - as written in the name'],
    ['x@alice.anonaddy.com', 'alice@anonaddy.com', 'addy.io: username subdomain'],
    ['y@alice.anonaddy.me', 'alice@anonaddy.com', 'addy.io: the same username on anonaddy.me'],
    ['+alice@example.com', '+alice@example.com', 'nothing before the +tag: kept whole'],
    ['+Alice@Gmail.com', '+alice@gmail.com', 'nothing before the +tag on Gmail: kept whole'],
    ['-shop@yahoo.com', '-shop@yahoo.com', 'nothing before the Yahoo -keyword: kept whole'],
    ['._-@proton.me', '._-@proton.me', 'nothing but transparent characters on Proton: kept whole'],
    ['alice+x@icloud.com', 'alice@icloud.com', 'iCloud: +tag'],
    ['alice@me.com', 'alice@icloud.com', 'iCloud: me.com'],
    ['alice+x@mac.com', 'alice@icloud.com', 'iCloud: mac.com'],
    ['alice@protonmail.com', 'alice@proton.me', 'Proton: protonmail.com'],
    ['alice@protonmail.ch', 'alice@proton.me', 'Proton: protonmail.ch'],
    ['alice+x@pm.me', 'alice@proton.me', 'Proton: pm.me and +tag'],
    ['a.l_i-ce@proton.me', 'alice@proton.me', 'Proton: . _ - are transparent'],
  ];
  // [address, another address that is another mailbox]
  const otherMailbox: [string, string, string][] = [
    ['alice@example.com', 'a.lice@example.com', 'dots count outside Gmail and Proton'],
    ['alice-x@example.com', 'alice@example.com', "- counts outside Yahoo's domains"],
    ['alice@hotmail.com', 'alice@outlook.com', 'Microsoft domains are separate names'],
    ['alice@yahoo.com', 'alice@yahoo.co.uk', "Yahoo's regional domains are separate names"],
    ['alice@fastmail.com', 'alice@sent.com', "Fastmail's domains are separate names"],
    ['x@alice.fastmail.com', 'x@bob.fastmail.com', 'two Fastmail users'],
    ['x@alice.example.com', 'x@example.com', 'subdomains of other domains are other hosts'],
    ['x@alice.fastmail.example', 'alice@fastmail.example', 'a look-alike of a Fastmail domain'],
    ['x@a.b.fastmail.com', 'b@fastmail.com', 'only one subdomain level is a user'],
    ['alice@icloud.com', 'alice@gmail.com', 'two providers'],
    ['alice@proton.me', 'alice@protonmail.org', 'not a Proton domain'],
    ['alice.b@icloud.com', 'aliceb@icloud.com', 'dots count on iCloud'],
    [
      'joe_citizen@fastmail.fm',
      'joe-citizen@fastmail.fm',
      'Fastmail: _ and - are two names outside the subdomain form',
    ],
    ['joe_citizen@sent.com', 'joe-citizen@sent.com', "Fastmail: the same on Fastmail's other domains"],
    ['+alice@example.com', '+bob@example.com', 'nothing before the +tag: each address its own'],
    ['+alice@example.com', 'alice@example.com', 'nothing before the +tag is not the tag'],
    ['-shop@yahoo.com', '-news@yahoo.com', 'nothing before the Yahoo -keyword: each address its own'],
    ['x@alice.anonaddy.me', 'x@bob.anonaddy.me', 'two addy.io users'],
  ];

  it.each(sameMailbox)('reads %s as %s (%s)', (address, mailbox) => {
    expect(mailboxOf(address)).toBe(mailbox);
  });

  it.each(otherMailbox)('keeps %s and %s apart (%s)', (one, other) => {
    expect(mailboxOf(one)).not.toBe(mailboxOf(other));
  });

  it("folds a subdomain on every one of Fastmail's domains", () => {
    for (const domain of FASTMAIL_DOMAINS) {
      expect(mailboxOf(`shop@alice.${domain}`)).toBe(`alice@${domain}`);
    }
  });
});
