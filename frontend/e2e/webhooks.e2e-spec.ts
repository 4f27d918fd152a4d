import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { WebhookReceiver } from '../../backend/test/webhook-receiver';
import { dismissToasts, FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

const PHONE = { width: 390, height: 844 };

/**
 * Issue 41: on a phone, a webhook registered on the account page gets a signed delivery, shows it
 * in the list of recent deliveries, and sends it again from there; the page stays 390 px wide.
 */
describe('webhooks on the account page (phone)', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let receiver: WebhookReceiver;
  const username = uniqueName('hooked');

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, WEBHOOK_ALLOW_LOOPBACK: 'true' });
    receiver = await new WebhookReceiver().start();
    await register(t, username);
    browser = await launchBrowser();
    context = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    await logInAs(page, t.url, username, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await receiver?.close();
    await t?.close();
  });

  it('registers an endpoint, shows its secret once, lists the signed delivery and replays it', async () => {
    await page.goto(`${t.url}/account`);
    await page.getByRole('button', { name: 'New webhook' }).click();
    const dialog = page.getByRole('dialog', { name: 'New webhook' });
    await dialog.getByLabel('Address of your receiver').fill(receiver.url('/phone'));
    // From the keyboard: a click can land while the dialog still zooms in, and change nothing.
    const balanceChanged = dialog.getByLabel('Your balance changed');
    await balanceChanged.focus();
    await balanceChanged.press('Space');
    await dialog.locator('input[value="balance.changed"]:checked').waitFor();
    await dialog.getByRole('button', { name: 'Add webhook' }).click();
    const shown = page.getByTestId('webhook-secret');
    await shown.waitFor();
    const secret = (await shown.locator('code').innerText()).trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    await dismissToasts(page);

    await grantCredits(t, username, 7);
    const [delivery] = await receiver.waitFor((all) => (all.length ? all : undefined));
    expect(new Webhook(secret).verify(delivery.body, delivery.headers)).toMatchObject({
      type: 'balance.changed',
      data: { balance: 7, delta: 7 },
    });
    await page.reload();
    const list = page.getByTestId('webhook-deliveries');
    await list.getByText('delivered').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await screenshot(page, 'webhooks-phone');

    await list.getByRole('button', { name: `Send ${delivery.id} again` }).click();
    const again = await receiver.waitFor((all) => (all.length >= 2 ? all[1] : undefined));
    expect(again.id).toBe(delivery.id);
    expect(new Webhook(secret).verify(again.body, again.headers)).toBeTruthy();
  });
});
