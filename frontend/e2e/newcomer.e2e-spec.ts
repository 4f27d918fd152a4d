import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AccountMessages, PaymentMessages } from '@studio/contracts';
import { markEmailVerified, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { linkIn, waitForMail } from '../../backend/test/mailbox';
import { stripeTestConfig } from '../../backend/test/stripe';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { WelcomeAllowance } from '../../backend/src/modules/billing/welcome-allowance';
import {
  cloneOnceInBrowser,
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  registerInBrowser,
  screenshot,
} from './browser';

const FACE = join(__dirname, '../../libs/inference/fixtures/ai-face.jpg');
const ALLOWANCE = 25;

/**
 * A newcomer's first minutes, as `npm start` sets the server up: the free allowance after the
 * email is verified, and Buy Coins against the local Stripe stand-in in test mode.
 */
describe('a newcomer in the browser (allowance, test payments)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({
      FRONTEND_DIST,
      ...stripeTestConfig(),
      STRIPE_TEST_CHECKOUT: 'true',
      WELCOME_ALLOWANCE_COINS: String(ALLOWANCE),
    });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  const balanceShows = (coins: number) =>
    page
      .getByTestId('balance')
      .filter({ hasText: new RegExp(`^\\D*${coins}\\D*$`) })
      .waitFor({ timeout: 20_000 });

  it('registers, verifies through the local inbox, receives the allowance and gets a first result, without an admin', async () => {
    const username = uniqueName('newbie');
    const password = 'copper-meadow-83';
    await registerInBrowser(page, t.url, username, password);
    await logInAs(page, t.url, username, password);
    await balanceShows(0);

    const mail = await waitForMail(`${username}@example.com`, /Verify your email/);
    await page.goto(linkIn(mail, '/verify-email').url);
    await page.getByText(AccountMessages.emailVerified).waitFor();
    await page.getByText(`New accounts get ${ALLOWANCE} free coins`).waitFor();
    await balanceShows(ALLOWANCE);
    await screenshot(page, 'newcomer-verified');

    await page.getByRole('button', { name: 'Try a tool' }).click();
    const modal = await cloneOnceInBrowser(page, FACE);
    await expect(modal.getByRole('img', { name: /^Clone \d$/ }).count()).resolves.toBe(1);
    await balanceShows(ALLOWANCE - 1);
    await screenshot(page, 'newcomer-first-result');

    // Before and after: the input and the clone on one slider, in one box, moved by the keyboard.
    await modal.getByTestId('compare-button').click();
    const slider = page.getByRole('slider');
    await slider.waitFor();
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('[data-testid="before-after"] img')).every(
        (img) => img.complete && img.naturalWidth > 0,
      ),
    );
    const boxes = await page
      .locator('[data-testid="before-after"] img')
      .evaluateAll((imgs) => imgs.map((img) => JSON.stringify(img.getBoundingClientRect())));
    expect(boxes).toHaveLength(2);
    expect(boxes[0]).toBe(boxes[1]);
    await slider.focus();
    await page.keyboard.press('ArrowRight');
    expect(Number(await slider.getAttribute('aria-valuenow'))).toBeGreaterThan(50);
    await screenshot(page, 'newcomer-compare');
    await page.keyboard.press('Escape');

    // The credit history tells the allowance from a purchase.
    await page.goto(`${t.url}/credits`);
    await page.getByText('Free allowance for verifying your email').waitFor();
  }, 300_000);

  it('gives a second account from the same address on the same day, and a replayed link, nothing', async () => {
    const username = uniqueName('again');
    await registerInBrowser(page, t.url, username, 'velvet-harbor-27');
    const mail = await waitForMail(`${username}@example.com`, /Verify your email/);
    const link = linkIn(mail, '/verify-email').url;
    await page.goto(link);
    await page.getByText(AccountMessages.emailVerified).waitFor();
    // The browser's address (127.0.0.1) had its allowance today in the test above.
    const id = (await t.app.get(AccountsRepository).findByUsername(username))!.id;
    await expect(t.app.get(WelcomeAllowance).grant(id, '127.0.0.1', new Date())).resolves.toEqual({
      granted: false,
      reason: 'address_today',
    });
    await page.goto(link);
    await page.getByText(AccountMessages.badLink).waitFor();
    await logInAs(page, t.url, username, 'velvet-harbor-27');
    await balanceShows(0);
  });

  it('buys coins in test mode: the test checkout page, Pay, and the return page with the coins', async () => {
    const username = uniqueName('buyer');
    await register(t, username);
    await markEmailVerified(t, username);
    await logInAs(page, t.url, username, PASSWORD);

    await page.goto(`${t.url}/profile/refill`);
    await page.getByTestId('payments-test-mode').waitFor();
    await page.getByRole('button', { name: 'Refill' }).click();
    await page.waitForURL(/\/stripe\/test-checkout\/cs_test_\w+$/);
    await page.getByText('TEST MODE: no real payment').waitFor();
    await screenshot(page, 'test-checkout');
    await page.getByRole('button', { name: 'Pay (test)' }).click();
    await page.waitForURL(/\/stripe\/success\/cs_test_\w+$/);
    await page.getByText(PaymentMessages.success).waitFor();
    await page.getByText(PaymentMessages.credited(200)).waitFor();
    await balanceShows(200);
    await screenshot(page, 'test-checkout-paid');
  });

  it('does not call a made-up checkout session successful', async () => {
    const username = uniqueName('curious');
    await register(t, username);
    await logInAs(page, t.url, username, PASSWORD);
    await page.goto(`${t.url}/stripe/success/cs_test_madeup123`);
    await page.getByText(PaymentMessages.checkoutUnknown).waitFor();
    await expect(page.getByText(PaymentMessages.success).count()).resolves.toBe(0);
    await screenshot(page, 'stripe-success-made-up');
  });
});
