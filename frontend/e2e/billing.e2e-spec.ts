import type { Browser, BrowserContext, Page } from 'playwright-core';
import { markEmailVerified, register, uniqueName, PASSWORD } from '../../backend/test/clients';
import { postWebhook, signedEvent, stripeTestConfig } from '../../backend/test/stripe';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { PaymentMessages } from '@studio/contracts';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { PaymentsPort } from '../../backend/src/modules/billing/payments.port';
import { fakeStripeCheckout, FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

describe('buying coins in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let username: string;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ...stripeTestConfig() });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    username = uniqueName('buyer');
    await register(t, username);
    await markEmailVerified(t, username);
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
    await fakeStripeCheckout(page);
    await logInAs(page, t.url, username, PASSWORD);
  });
  afterEach(() => context.close());

  /** Stripe tells the server (a signed webhook) that the checkout of 2 packs was paid. */
  async function payFor(sessionId: string) {
    const account = (await t.app.get(AccountsRepository).findByUsername(username))!;
    const event = signedEvent('checkout.session.completed', {
      id: sessionId,
      payment_status: 'paid',
      metadata: { userId: account.id, username, packs: '2' },
    });
    return postWebhook(t.url, event);
  }

  const packs = () => page.getByLabel('Number of packs');
  const total = () => page.locator('.ant-statistic');

  it('totals and clamps the pack count, then goes to Stripe Checkout with the cart stored', async () => {
    await page.getByTestId('balance').click();
    await page.waitForURL(`${t.url}/profile/refill`);
    await page.getByRole('heading', { name: 'Top up your balance.' }).waitFor();
    await page.getByText('200 coins for $10').waitFor();
    await expect(total().innerText()).resolves.toMatch(/\$10\s*for 200 coins/);

    await packs().fill('3');
    await packs().blur();
    await expect(total().innerText()).resolves.toMatch(/\$30\s*for 600 coins/);
    await packs().fill('99');
    await packs().blur();
    await expect(packs().inputValue()).resolves.toBe('50');
    await expect(total().innerText()).resolves.toMatch(/\$500\s*for 10,000 coins/);
    await packs().fill('0');
    await packs().blur();
    await expect(packs().inputValue()).resolves.toBe('1');
    await packs().fill('2');
    await packs().blur();
    await screenshot(page, 'refill');

    const checkout = page.waitForRequest((req) => req.url().endsWith('/api/createCheckoutSession'));
    await page.getByRole('button', { name: 'Refill' }).click();
    expect((await checkout).postDataJSON()).toEqual({ coin_id: 'coins-200', coin_amount: 2 });
    await page.waitForURL(/checkout\.stripe\.com/);
    await page.goto(`${t.url}/`);
    expect(await page.evaluate(() => localStorage.getItem('cart'))).toBe('2');
  });

  /**
   * A checkout of 2 packs started by the logged-in page, as the Refill button does (without
   * leaving for Stripe); the session id stripe-mock gave it, which the server recorded.
   */
  async function startedHere(): Promise<string> {
    const created = jest.spyOn(t.app.get(PaymentsPort), 'createCheckout');
    try {
      const res = await page.request.post(`${t.url}/api/createCheckoutSession`, {
        data: { coin_id: 'coins-200', coin_amount: 2 },
      });
      expect(res.status()).toBe(200);
      return (await created.mock.results[0]!.value).id;
    } finally {
      created.mockRestore();
    }
  }

  it('shows the credited balance on the success page as soon as the webhook lands', async () => {
    await page.evaluate(() => localStorage.setItem('cart', '2'));
    const sessionId = await startedHere();
    await page.goto(`${t.url}/stripe/success/${sessionId}`);
    // Until the server has credited it, the page does not call it successful.
    await page.getByText(PaymentMessages.confirming).waitFor();
    await page.getByText('Please wait while we handle your payment.').waitFor();
    await expect(page.getByText(PaymentMessages.success).count()).resolves.toBe(0);
    await page.waitForFunction(() =>
      document.querySelector('[data-testid="balance"]')?.textContent?.includes('0'),
    );

    expect((await payFor(sessionId)).status).toBe(200);

    await page.getByTestId('credited').filter({ hasText: '400 coins added to your balance.' }).waitFor();
    await page.getByText(PaymentMessages.success).waitFor();
    await page.getByTestId('balance').filter({ hasText: '400' }).waitFor();
    await screenshot(page, 'stripe-success');
    await page.getByRole('button', { name: 'Homepage' }).click();
    await page.waitForURL(`${t.url}/`);
  });

  it('shows the coins when the webhook landed before the browser came back from Stripe', async () => {
    // The usual order in production: Stripe calls the webhook, then redirects the browser.
    const sessionId = await startedHere();
    expect((await payFor(sessionId)).status).toBe(200);
    await page.goto(`${t.url}/stripe/success/${sessionId}`);
    await page.getByTestId('credited').filter({ hasText: '400 coins added to your balance.' }).waitFor();
    await page.getByTestId('balance').filter({ hasText: '400' }).waitFor();
    await expect(page.getByText('Please wait while we handle your payment.').count()).resolves.toBe(0);
  });

  it('shows the cancel page, and sends a logged-out visitor to log in', async () => {
    await page.goto(`${t.url}/stripe/canceled`);
    await page.getByText('Payment cancelled!').waitFor();
    await page.getByRole('button', { name: 'Homepage' }).waitFor();
    await screenshot(page, 'stripe-canceled');

    const anonymous = await browser.newContext();
    const other = await anonymous.newPage();
    await other.goto(`${t.url}/stripe/success/cs_whatever`);
    await other.waitForURL(`${t.url}/login`);
    await anonymous.close();
  });
});
