import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AccountMessages } from '@studio/contracts';
import { uniqueName } from '../../backend/test/clients';
import { linkIn, waitForMail } from '../../backend/test/mailbox';
import { stripeTestConfig } from '../../backend/test/stripe';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import {
  dismissToasts,
  fakeStripeCheckout,
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  registerInBrowser,
  screenshot,
  toast,
} from './browser';

/** The hourly export budget of the test app (EXPORT_RATE_LIMIT_PER_HOUR's default). */
const EXPORTS_PER_HOUR = 5;

/** Account basics in the browser, through the mails the local mail catcher received. */
describe('account basics in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ...stripeTestConfig() });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await fakeStripeCheckout(page);
  });
  afterEach(() => context.close());

  it('register → buying refused → verify link from the mail → buying goes to Stripe', async () => {
    const username = uniqueName('vic');
    const password = 'amber-kettle-71';
    await registerInBrowser(page, t.url, username, password);
    await logInAs(page, t.url, username, password);

    await page.goto(`${t.url}/profile/refill`);
    await page.getByRole('button', { name: 'Refill' }).click();
    await toast(page, AccountMessages.verifyEmailFirst).waitFor();
    expect(page.url()).toBe(`${t.url}/profile/refill`);
    await dismissToasts(page);

    await page.goto(`${t.url}/profile`);
    await page.getByRole('button', { name: 'Account' }).click();
    await page.waitForURL(`${t.url}/account`);
    await page.getByText('Not verified').waitFor();
    await page.getByText('This device').waitFor();
    await screenshot(page, 'account-unverified');

    const mail = await waitForMail(`${username}@example.com`, /Verify your email/);
    await page.goto(linkIn(mail, '/verify-email').url);
    await page.getByText(AccountMessages.emailVerified).waitFor();
    await screenshot(page, 'verify-email');
    await page.getByRole('button', { name: 'Buy coins' }).click();
    await page.waitForURL(`${t.url}/profile/refill`);
    await page.getByRole('button', { name: 'Refill' }).click();
    await page.waitForURL(/checkout\.stripe\.com/);
  });

  it('exports with the Export button, after <img>s on a sibling port asked for more exports than the hourly budget', async () => {
    const username = uniqueName('exp');
    const password = 'quiet-orchard-52';
    await registerInBrowser(page, t.url, username, password);
    await logInAs(page, t.url, username, password);

    // Another site on the same host, another port (same-site: the SameSite=Lax cookie rides along),
    // with more export images than the hourly budget holds (distinct addresses, so none is shared).
    const sibling = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      const imgs = Array.from(
        { length: EXPORTS_PER_HOUR + 1 },
        (_, n) => `<img src="${t.url}/api/account/export?n=${n}">`,
      );
      res.end(`<!doctype html><body>${imgs.join('')}</body>`);
    });
    await new Promise<void>((resolve) => sibling.listen(0, '127.0.0.1', resolve));
    try {
      const sent: string[] = [];
      page.on('request', (req) => {
        if (req.url().includes('/api/account/export')) sent.push(req.url());
      });
      await page.goto(`http://127.0.0.1:${(sibling.address() as AddressInfo).port}/`);
      await page.waitForFunction(() => Array.from(document.images).every((img) => img.complete), undefined, {
        timeout: 20_000,
      });
      // The browser did send them all, with the owner's cookie.
      expect(sent).toHaveLength(EXPORTS_PER_HOUR + 1);
    } finally {
      sibling.close();
    }

    // Refused before the budget counted them: the owner's own button still gets the zip.
    await page.goto(`${t.url}/account`);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: 'Export my data' }).click();
    const file = await (await download).path();
    expect(readFileSync(file!).subarray(0, 4).toString('latin1')).toBe('PK\x03\x04');
  });

  it('forgot password → reset link from the mail → log in with the new password', async () => {
    const username = uniqueName('rob');
    await registerInBrowser(page, t.url, username, 'first-pass-word-3');

    await page.getByRole('link', { name: 'Forgot password?' }).click();
    await page.waitForURL(`${t.url}/forgot-password`);
    await page.getByLabel('Email').fill(`${username}@example.com`);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText(AccountMessages.resetMailSent).waitFor();

    const mail = await waitForMail(`${username}@example.com`, /Reset your password/);
    await page.goto(linkIn(mail, '/reset-password').url);
    await page.getByLabel('New password').fill('password1');
    await page.getByRole('button', { name: 'Set password' }).click();
    await toast(page, AccountMessages.weakPassword).waitFor();
    await page.getByLabel('New password').fill('silver-harbor-58');
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await toast(page, AccountMessages.passwordReset).waitFor();
    await page.waitForURL(`${t.url}/login`);
    await dismissToasts(page);
    await logInAs(page, t.url, username, 'silver-harbor-58');
  });
});
