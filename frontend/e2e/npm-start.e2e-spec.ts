import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { createConnection } from 'mongoose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AccountMessages, PaymentMessages } from '@studio/contracts';
import { uniqueName } from '../../backend/test/clients';
import { linkIn, waitForMail } from '../../backend/test/mailbox';
import { npmStartSettings } from '../../backend/test/npm-start-settings';
import { createApp } from '../../backend/api/src/create-app';
import { loadConfig, type AppConfig } from '../../backend/src/config/app-config';
import { FRONTEND_DIST, launchBrowser, logInAs, registerInBrowser, screenshot } from './browser';

/**
 * Buy Coins with the settings `npm start` gives the app (backend/test/npm-start-settings.ts runs
 * deploy/local/settings.sh for a fresh data folder and the test's stripe-mock), not the test
 * suite's own: those used another Stripe key, so Buy Coins answering 500 under npm start went unseen.
 */
describe('Buy Coins as npm start sets the app up (its own settings, stripe-mock, Chromium)', () => {
  let dataDir: string;
  let settings: Record<string, string>;
  let config: AppConfig;
  let app: INestApplication;
  let url: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  /** Every answer of 500 or above the browser saw: there must be none. */
  const serverErrors: string[] = [];

  beforeAll(async () => {
    const stripeApi = process.env.TEST_STRIPE_API_URL;
    const mongo = process.env.TEST_MONGODB_URL;
    if (!stripeApi || !mongo || !process.env.TEST_REDIS_URL || !process.env.TEST_SMTP_URL) {
      throw new Error('run with npm test: it starts stripe-mock, FerretDB, Redis and the mail catcher');
    }
    dataDir = mkdtempSync(join(tmpdir(), 'studio-npm-start-'));
    settings = npmStartSettings(dataDir, stripeApi);
    config = loadConfig({
      ...settings,
      // The services npm start would start are the test's own; the rest is npm start's.
      MONGODB_URI: `${mongo}/npm_start_${uniqueName('db')}`,
      REDIS_URL: process.env.TEST_REDIS_URL,
      REDIS_PREFIX: uniqueName('npmstart'),
      SMTP_URL: process.env.TEST_SMTP_URL,
      HOST: '127.0.0.1',
      PORT: '0',
      // start.sh runs the built app from backend/dist, which finds frontend/dist on its own.
      FRONTEND_DIST,
      // Warnings and errors still show; npm start's info lines would bury the test's output.
      LOG_LEVEL: 'warn',
    });
    app = await createApp(config);
    await app.listen(0, '127.0.0.1');
    url = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    if (config) {
      const conn = await createConnection(config.MONGODB_URI).asPromise();
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    page.on('response', (response) => {
      if (response.status() >= 500) {
        serverErrors.push(`${response.status()} ${response.request().method()} ${response.url()}`);
      }
    });
  });
  afterEach(() => context.close());

  it("uses npm start's test payments: a stripe-mock key, and a webhook secret of the data folder", () => {
    expect(settings).toMatchObject({
      STRIPE_TEST_CHECKOUT: 'true',
      STRIPE_API_URL: process.env.TEST_STRIPE_API_URL,
      WELCOME_ALLOWANCE_COINS: '25',
    });
    expect(settings.STRIPE_SECRET_KEY).toMatch(/^sk_test_/);
    expect(settings.STRIPE_WEBHOOK_SECRET).toMatch(/^whsec_[0-9a-f]{48}$/);
  });

  it('registers, verifies, buys 3 packs on the test page, and sees the coins, with no 5xx on the way', async () => {
    const username = uniqueName('newcomer');
    const password = 'amber-lantern-41';
    await registerInBrowser(page, url, username, password);
    await logInAs(page, url, username, password);
    const mail = await waitForMail(`${username}@example.com`, /Verify your email/);
    await page.goto(linkIn(mail, '/verify-email').url);
    await page.getByText(AccountMessages.emailVerified).waitFor();
    const balanceShows = (coins: number) =>
      page
        .getByTestId('balance')
        .filter({ hasText: new RegExp(`^\\D*${coins.toLocaleString('en-US')}\\D*$`) })
        .waitFor({ timeout: 20_000 });
    await balanceShows(25);

    await page.goto(`${url}/profile/refill`);
    await page.getByTestId('payments-test-mode').waitFor();
    await page.getByLabel('Number of packs').fill('3');
    await page.getByLabel('Number of packs').blur();
    const checkout = page.waitForResponse((res) => res.url().endsWith('/api/createCheckoutSession'));
    await page.getByRole('button', { name: 'Refill' }).click();
    expect((await checkout).status()).toBe(200);
    await page.waitForURL(/\/stripe\/test-checkout\/cs_test_\w+$/);
    const sessionId = page.url().split('/').pop()!;
    await page.getByText('TEST MODE: no real payment').waitFor();
    const paid = page.waitForResponse((res) => res.url().endsWith('/pay'));
    await page.getByRole('button', { name: 'Pay (test)' }).click();
    expect(await (await paid).json()).toEqual({
      message: 'success',
      content: { credited: 600, alreadyCredited: false },
    });
    await page.waitForURL(`${url}/stripe/success/${sessionId}`);
    await page.getByText(PaymentMessages.success).waitFor();
    await page.getByText(PaymentMessages.credited(600)).waitFor();
    await balanceShows(625);
    await screenshot(page, 'npm-start-bought');

    // Paying the same checkout again (a replayed event) credits nothing, and says so.
    const again = await page.request.post(`${url}/api/stripe/test-checkout/${sessionId}/pay`);
    expect(await again.json()).toEqual({
      message: 'success',
      content: { credited: 0, alreadyCredited: true },
    });
    await page.reload();
    await balanceShows(625);
    expect(serverErrors).toEqual([]);
  });
});
