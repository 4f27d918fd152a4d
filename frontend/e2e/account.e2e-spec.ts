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
