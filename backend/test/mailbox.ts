import { eventually } from './clients';

/** A mail as the local mail catcher (deploy/local/mailcatcher) keeps it. */
export interface CaughtMail {
  id: string;
  from: string;
  to: string[];
  subject: string;
  date: string;
  text: string;
  html: string;
}

/** The catcher's inbox API, started by deploy/local/test.sh (and /tmp/devtest.sh). */
export function mailApiUrl(): string {
  const url = process.env.TEST_MAIL_API_URL;
  if (!url) throw new Error('TEST_MAIL_API_URL is not set: run the tests with `npm test`');
  return url;
}

/** Every mail to the address, newest first. */
export async function mailsTo(address: string): Promise<CaughtMail[]> {
  const res = await fetch(`${mailApiUrl()}/api/messages?to=${encodeURIComponent(address.toLowerCase())}`);
  if (!res.ok) throw new Error(`mail catcher answered ${res.status}`);
  return (await res.json()) as CaughtMail[];
}

/** Waits for the newest mail to the address whose subject matches (mails leave in the background). */
export async function waitForMail(address: string, subject: RegExp, timeoutMs = 10_000): Promise<CaughtMail> {
  return eventually(async () => {
    const found = (await mailsTo(address)).find((mail) => subject.test(mail.subject));
    if (!found) throw new Error(`no mail "${subject.source}" to ${address}`);
    return found;
  }, timeoutMs);
}

/** The link to `path` in a mail (from its plain-text part), and the token it carries. */
export function linkIn(mail: CaughtMail, path: string): { url: string; token: string } {
  const match = mail.text.match(
    new RegExp(`https?://\\S+${path.replace(/[/-]/g, '\\$&')}\\?token=([A-Za-z0-9_-]+)`),
  );
  if (!match) throw new Error(`no ${path} link in "${mail.subject}": ${mail.text}`);
  return { url: match[0], token: match[1]! };
}
