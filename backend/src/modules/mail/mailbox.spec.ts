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
    ['x@joe-citizen.fastmail.com', 'joe-citizen@fastmail.com', 'Fastmail: _ written as - in a subdomain'],
    ['joe_citizen@fastmail.com', 'joe-citizen@fastmail.com', 'Fastmail: _ and - are one'],
    ['x@alice.anonaddy.com', 'alice@anonaddy.com', 'addy.io: username subdomain'],
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
