import normalizeEmail from 'validator/lib/normalizeEmail';

/**
 * Which mailbox an address delivers to, for the limits that count people by their mailbox (one
 * welcome allowance per mailbox, a few takedown receipts a day per recipient). Providers let one
 * mailbox receive under many addresses; each rule below follows the provider's documentation.
 * An address of any other domain (a company's, a catch-all domain) is taken as written, lower case
 * and without a `+tag`.
 */

/** Yahoo's domains, regional ones included (yahoo.co.jp, yahoo.com.au...), and its older brands. */
const YAHOO_DOMAIN = /^(?:yahoo(?:\.[a-z]{2,3}){1,2}|ymail\.com|rocketmail\.com)$/;

/**
 * Fastmail's own domains (the list its sign-up offers). On each, `anything@user.<domain>` is
 * delivered to `user+anything@<domain>` (subdomain addressing, as documented in Fastmail's help:
 * "Plus addressing and subdomain addressing"), and a user whose name has `_` writes it `-` there
 * (Fastmail's blog, "Two address resolving additions": only in the subdomain; in the plain address
 * `joe_citizen@` and `joe-citizen@` are two names).
 */
export const FASTMAIL_DOMAINS: readonly string[] = [
  'fastmail.com',
  'fastmail.cn',
  'fastmail.co.uk',
  'fastmail.com.au',
  'fastmail.es',
  'fastmail.fm',
  'fastmail.im',
  'fastmail.in',
  'fastmail.jp',
  'fastmail.mx',
  'fastmail.net',
  'fastmail.nl',
  'fastmail.org',
  'fastmail.se',
  'fastmail.to',
  'fastmail.tw',
  'fastmail.uk',
  'fastmail.us',
  '123mail.org',
  'airpost.net',
  'eml.cc',
  'fmail.co.uk',
  'fmgirl.com',
  'fmguy.com',
  'mailbolt.com',
  'mailcan.com',
  'mailhaven.com',
  'mailmight.com',
  'ml1.net',
  'mm.st',
  'myfastmail.com',
  'proinbox.com',
  'promessage.com',
  'rushpost.com',
  'sent.as',
  'sent.at',
  'sent.com',
  'speedymail.org',
  'warpmail.net',
  'xsmail.com',
  '150mail.com',
  '150ml.com',
  '16mail.com',
  '2-mail.com',
  '4email.net',
  '50mail.com',
  'allmail.net',
  'bestmail.us',
  'cluemail.com',
  'elitemail.org',
  'emailcorner.net',
  'emailengine.net',
  'emailengine.org',
  'emailgroups.net',
  'emailplus.org',
  'emailuser.net',
  'f-m.fm',
  'fast-email.com',
  'fast-mail.org',
  'fastem.com',
  'fastemail.us',
  'fastemailer.com',
  'fastest.cc',
  'fastimap.com',
  'fastmailbox.net',
  'fastmessaging.com',
  'fea.st',
  'fmailbox.com',
  'ftml.net',
  'h-mail.us',
  'hailmail.net',
  'imap-mail.com',
  'imap.cc',
  'imapmail.org',
  'inoutbox.com',
  'internet-e-mail.com',
  'internet-mail.org',
  'internetemails.net',
  'internetmailing.net',
  'jetemail.net',
  'justemail.net',
  'letterboxes.org',
  'mail-central.com',
  'mail-page.com',
  'mailandftp.com',
  'mailas.com',
  'mailc.net',
  'mailforce.net',
  'mailftp.com',
  'mailingaddress.org',
  'mailite.com',
  'mailnew.com',
  'mailsent.net',
  'mailservice.ms',
  'mailup.net',
  'mailworks.org',
  'mymacmail.com',
  'nospammail.net',
  'ownmail.net',
  'petml.com',
  'postinbox.com',
  'postpro.net',
  'realemail.net',
  'reallyfast.biz',
  'reallyfast.info',
  'speedpost.net',
  'ssl-mail.com',
  'swift-mail.com',
  'the-fastest.net',
  'the-quickest.com',
  'theinternetemail.com',
  'veryfast.biz',
  'veryspeedy.net',
  'yepmail.net',
  'your-mail.com',
];
const FASTMAIL = new Set(FASTMAIL_DOMAINS);

/**
 * Other providers whose subdomains are one user's, by the domain the user is counted at (addy.io,
 * formerly AnonAddy: `anything@user.anonaddy.com` and `anything@user.anonaddy.me` both reach the
 * account `user`, so both are `user@anonaddy.com`).
 */
const SUBDOMAIN_USER_DOMAINS: Record<string, string> = {
  'anonaddy.com': 'anonaddy.com',
  'anonaddy.me': 'anonaddy.com',
};

/**
 * Domains that are one namespace with another: an iCloud name is the same account at icloud.com,
 * me.com and mac.com (Apple: "About your @icloud.com, @me.com, and @mac.com email addresses");
 * a Proton name at proton.me, protonmail.com, protonmail.ch and pm.me (Proton: "Types of email
 * addresses and aliases": pm.me is the short form, and a name is reserved to its owner on every
 * Proton domain); googlemail.com is gmail.com.
 */
const SAME_NAMESPACE: Record<string, string> = {
  'me.com': 'icloud.com',
  'mac.com': 'icloud.com',
  'protonmail.com': 'proton.me',
  'protonmail.ch': 'proton.me',
  'pm.me': 'proton.me',
  'googlemail.com': 'gmail.com',
};

/**
 * `user` and the provider's domain when the host is `user.<domain>` of a subdomain-addressing
 * provider. On Fastmail the subdomain's `-` stands for the name's `_` (a host name takes no `_`;
 * one written with `_` anyway reaches the same user).
 */
function subdomainUser(host: string): { user: string; domain: string } | undefined {
  const dot = host.indexOf('.');
  if (dot <= 0) return undefined;
  const domain = host.slice(dot + 1);
  const user = host.slice(0, dot);
  if (FASTMAIL.has(domain)) return { user: user.replace(/-/g, '_'), domain };
  const counted = SUBDOMAIN_USER_DOMAINS[domain];
  return counted ? { user, domain: counted } : undefined;
}

/**
 * The address as one mailbox, so each real mailbox counts once: lower case, without a `+tag`
 * (any provider), and with each provider's own forms of one mailbox folded:
 * - Gmail: dots do not count, googlemail.com is gmail.com (validator's normalizeEmail);
 * - Outlook/Hotmail/Live, Yandex's domains: validator's rules;
 * - Yahoo: `-keyword` disposable addresses (`alice-shop@yahoo.com` is alice@yahoo.com's; Yahoo's
 *   own names take no dash, so everything from the first one is the keyword, on every Yahoo domain);
 * - Fastmail (every domain of FASTMAIL_DOMAINS) and addy.io: `anything@user.<domain>` is
 *   `user@<domain>`; on Fastmail the subdomain's `-` is the name's `_` (`x@joe-citizen.fastmail.fm`
 *   is `joe_citizen@fastmail.fm`), while `joe-citizen@` and `joe_citizen@` as written are two names;
 *   addy.io's anonaddy.me subdomains are the same user's as its anonaddy.com ones;
 * - iCloud: me.com and mac.com are icloud.com;
 * - Proton: protonmail.com, protonmail.ch and pm.me are proton.me, and `.`, `-`, `_` in the name do
 *   not count (Proton: "these characters are treated as transparent by our service").
 * An address whose name would fold to nothing (`+alice@x.com`, `-shop@yahoo.com`) is kept whole
 * (lower case): `@x.com` would make every such address of the domain one mailbox.
 */
export function mailboxOf(email: string): string {
  const trimmed = email.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0) return trimmed;
  let name = trimmed.slice(0, at);
  let domain = trimmed.slice(at + 1).replace(/\.$/, '');
  const sub = subdomainUser(domain);
  if (sub) {
    name = sub.user;
    domain = sub.domain;
  }
  domain = SAME_NAMESPACE[domain] ?? domain;
  const normalized =
    normalizeEmail(`${name}@${domain}`, { gmail_convert_googlemaildotcom: true }) || `${name}@${domain}`;
  const split = normalized.lastIndexOf('@');
  domain = normalized.slice(split + 1);
  name = normalized.slice(0, split).split('+')[0];
  if (YAHOO_DOMAIN.test(domain)) name = name.split('-')[0];
  if (domain === 'proton.me') name = name.replace(/[._-]/g, '');
  return name ? `${name}@${domain}` : trimmed;
}
