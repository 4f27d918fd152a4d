import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  ALLOWANCE_NOT_EXPECTED,
  ALLOWANCE_REFUSAL_TEXTS,
  AccountMessages,
  allowanceOffer,
} from '@studio/contracts';
import { uniqueName } from '../../backend/test/clients';
import { linkIn, waitForMail } from '../../backend/test/mailbox';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, registerInBrowser, screenshot } from './browser';

const ALLOWANCE = 25;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1366, height: 800 };

/**
 * The free coins as two newcomers on one network meet them (issue 39): the first login says how to
 * get them; the second newcomer, whose allowance the server refuses (one per network a day), is
 * told why and what to do, on the verification page and on the home screen.
 */
describe('newcomers and the free coins', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({
      FRONTEND_DIST,
      WELCOME_ALLOWANCE_COINS: String(ALLOWANCE),
      WELCOME_ALLOWANCE_PER_ADDRESS_PER_DAY: '1',
    });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Registers and logs in a newcomer in a fresh browser of this size. */
  const newcomer = async (viewport: { width: number; height: number }) => {
    const context: BrowserContext = await browser.newContext({ viewport });
    const page: Page = await context.newPage();
    const username = uniqueName('newbie');
    await registerInBrowser(page, t.url, username, 'copper-meadow-83');
    await logInAs(page, t.url, username, 'copper-meadow-83');
    return { context, page, username };
  };
  const verify = async (page: Page, username: string) => {
    const mail = await waitForMail(`${username}@example.com`, /Verify your email/);
    await page.goto(linkIn(mail, '/verify-email').url);
    await page.getByText(AccountMessages.emailVerified).waitFor();
  };
  const notice = (page: Page) => page.getByTestId('allowance-notice');

  it('the first login says how to get the free coins, and they come once the email is verified', async () => {
    const { context, page, username } = await newcomer(DESKTOP);
    try {
      await notice(page).getByText(allowanceOffer(ALLOWANCE)).waitFor({ timeout: 15_000 });
      await screenshot(page, 'allowance-offer-desktop');
      await verify(page, username);
      await page.locator('[data-testid="allowance-notice"][data-state="granted"]').waitFor();
      await page
        .getByTestId('balance')
        .filter({ hasText: new RegExp(`^\\D*${ALLOWANCE}\\D*$`) })
        .waitFor();
    } finally {
      await context.close();
    }
  });

  it('a second newcomer on the same network is told, before and after verifying, why no coins come and what to do', async () => {
    const { context, page, username } = await newcomer(PHONE);
    try {
      const { why, next } = ALLOWANCE_REFUSAL_TEXTS.address_today;
      // Told before verifying (issue 55): no promise of coins the server knows will not come.
      const foreseen = page.locator(
        '[data-testid="allowance-notice"][data-state="unverified"][data-reason="address_today"]',
      );
      await foreseen.getByText(ALLOWANCE_NOT_EXPECTED).waitFor({ timeout: 15_000 });
      await foreseen.getByText(why, { exact: false }).waitFor();
      expect(await notice(page).getByText(allowanceOffer(ALLOWANCE)).count()).toBe(0);
      await screenshot(page, 'allowance-foreseen-phone');
      await verify(page, username);
      const refused = page.locator('[data-testid="allowance-notice"][data-reason="address_today"]');
      await refused.getByText(why).waitFor({ timeout: 20_000 });
      await refused.getByText(next).waitFor();
      await screenshot(page, 'allowance-refused-verify-phone');
      // The same on the home screen, with the way on: buying coins.
      await page.goto(t.url);
      await refused.getByText(why).waitFor();
      await screenshot(page, 'allowance-refused-home-phone');
      await refused.getByRole('button', { name: 'Buy coins' }).click();
      await page.waitForURL(`${t.url}/profile/refill`);
    } finally {
      await context.close();
    }
  });
});
