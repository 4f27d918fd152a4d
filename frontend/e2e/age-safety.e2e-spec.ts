import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { SAFETY_REASONS, TEST_CARDS } from '@studio/contracts';
import { AccountsRepository } from '../../backend/src/modules/accounts';
import { EngineRegistry } from '../../backend/src/modules/engines';
import { balanceOf, grantCredits, PASSWORD, register, signIn, uniqueName } from '../../backend/test/clients';
import { marked } from '../../backend/test/marked-classifier';
import { ScriptedEngine } from '../../backend/test/scripted-engine';
import { stripeTestConfig } from '../../backend/test/stripe';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot, toast } from './browser';

const FACE = join(__dirname, '../../libs/inference/fixtures/ai-face.jpg');
const card = (funding: string) => TEST_CARDS.find((c) => c.funding === funding)!.number;

describe('age check and moderation in the browser (local test card check, marked-image classifier)', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({
      FRONTEND_DIST,
      ...stripeTestConfig(),
      STRIPE_TEST_CHECKOUT: 'true',
      AGE_ASSURANCE: 'required',
    });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function newcomer(page: Page, coins: number): Promise<string> {
    const username = uniqueName('adult');
    await register(t, username);
    await grantCredits(t, username, coins);
    await logInAs(page, t.url, username, PASSWORD);
    return username;
  }

  it('refuses face swap and Magic Brush to a new account with the message and link; a debit card fails, a credit card passes', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      const username = await newcomer(page, 5);
      const client = await signIn(t, username);

      await page.goto(`${t.url}/swap`);
      const notice = page.getByTestId('age-check-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toContain(SAFETY_REASONS.age_not_assured);
      const refused = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap/check'));
      await page.getByLabel('Face Image').setInputFiles(FACE);
      await page.getByLabel('Target Image').setInputFiles(FACE);
      expect((await refused).status()).toBe(403);
      await page.getByText(SAFETY_REASONS.age_not_assured).last().waitFor();
      await screenshot(page, 'age-check-swap-refused');

      await page.goto(`${t.url}/magic`);
      await page.getByTestId('age-check-notice').waitFor();
      expect(await balanceOf(client)).toBe(5);

      // The link leads to the check; a debit card does not pass.
      await page.getByRole('link', { name: 'Check my age' }).click();
      await page.getByRole('button', { name: 'Check with a credit card' }).click();
      await page.waitForURL(/\/stripe\/test-age-check\/cs_/);
      await page.getByLabel('Card number').fill(card('debit'));
      await page.getByRole('button', { name: 'Check card (test)' }).click();
      await page.getByTestId('test-age-check-error').getByText(SAFETY_REASONS.card_not_credit).waitFor();
      await screenshot(page, 'age-check-debit-refused');

      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('button', { name: 'Check with a credit card' }).click();
      await page.waitForURL(/\/stripe\/test-age-check\/cs_/);
      await page.getByLabel('Card number').fill(card('credit'));
      await page.getByRole('button', { name: 'Check card (test)' }).click();
      await page.getByTestId('age-assured').waitFor();
      await screenshot(page, 'age-check-passed');
      expect(await balanceOf(client)).toBe(5);

      await page.goto(`${t.url}/swap`);
      const checked = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap/check'), {
        timeout: 120_000,
      });
      await page.getByLabel('Face Image').setInputFiles(FACE);
      await page.getByLabel('Target Image').setInputFiles(FACE);
      expect((await checked).status()).toBe(200);
      expect(await page.getByTestId('age-check-notice').count()).toBe(0);
    } finally {
      await context.close();
    }
  }, 300_000);

  it('an account assured by staff works; a held output shows in the gallery only once a moderator releases it on the moderation screen; a removed one brings the notice and the refund', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    // The moderator works from a phone: the screen must work there too.
    const modContext = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const modPage = await modContext.newPage();
    const picture = await marked(await sharp(FACE).png().toBuffer(), 'minorFace');
    t.app.get(EngineRegistry).override(
      'generate',
      Object.assign(new ScriptedEngine(), {
        generate: async () => ({ data: picture, format: 'png' as const, width: 256, height: 256 }),
      }),
    );
    try {
      const username = await newcomer(page, 5);
      const client = await signIn(t, username);
      const accounts = t.app.get(AccountsRepository);
      const staffName = uniqueName('help');
      await signIn(t, staffName);
      await accounts.setRole((await accounts.findByUsername(staffName))!.id, 'support');
      const staff = await signIn(t, staffName);
      const recorded = await staff.agent
        .post(`/api/support/users/${username}/age-assurance`)
        .send({ reason: 'Driving licence seen on a video call, ticket 77' });
      expect(recorded.status).toBe(200);

      await page.goto(`${t.url}/magic`);
      await page.getByText('Magic Brush').first().waitFor();
      expect(await page.getByTestId('age-check-notice').count()).toBe(0);

      const moderatorName = uniqueName('mod');
      await register(t, moderatorName);
      await accounts.setRole((await accounts.findByUsername(moderatorName))!.id, 'moderator');
      await logInAs(modPage, t.url, moderatorName, PASSWORD);
      await modPage.goto(`${t.url}/admin/moderation`);
      await modPage.getByText('Nothing is waiting for review').waitFor();

      const generate = () =>
        page.request.post(`${t.url}/api/generateImage`, {
          data: { title: 'portrait', author: username, prompt: 'adult woman, portrait, nude' },
        });
      expect((await generate()).status()).toBe(200);
      expect(await balanceOf(client)).toBe(4);
      // The owner is told it waits for review, not that it was added to the folder.
      await toast(page, 'Generated held for review').waitFor();
      expect(await toast(page, 'Generated ready').count()).toBe(0);
      const jobs = await (await page.request.get(`${t.url}/api/jobs`)).json();
      const galleryPath = `/profile/bulkInpaints/${jobs.content[0].folderId as string}`;
      await page.goto(`${t.url}${galleryPath}`);
      await page.waitForLoadState('networkidle');
      expect(await page.getByTestId('content-item').count()).toBe(0);
      await screenshot(page, 'held-not-in-gallery');

      // The held output arrives on the open moderation screen by itself (the queue's push).
      const card = modPage.getByTestId('held-item');
      await card.waitFor();
      expect(await card.textContent()).toContain(SAFETY_REASONS.minor_face);
      expect(await card.getByTestId('held-faces').textContent()).toBe('Face 1: estimated age 15');
      expect(await card.getByTestId('held-scores').textContent()).toContain('Porn 0.5%');
      const preview = card.getByTestId('held-preview');
      expect(await preview.evaluate((img) => getComputedStyle(img).filter)).toContain('blur');
      await preview.evaluate((img: HTMLImageElement) =>
        img.complete && img.naturalWidth > 0 ? undefined : new Promise((resolve) => (img.onload = resolve)),
      );
      await screenshot(modPage, 'moderation-held-blurred-phone');
      await card.getByRole('button', { name: 'Reveal picture' }).click();
      expect(await preview.evaluate((img) => getComputedStyle(img).filter)).toBe('none');
      expect(await card.getByRole('button', { name: 'Release' }).isDisabled()).toBe(true);
      await card.getByLabel('Reason for the decision').fill('Adult face on a second look');
      await card.getByRole('button', { name: 'Release' }).click();
      await modPage.getByText('Nothing is waiting for review').waitFor();

      // The owner's open gallery shows it live, with the notice.
      await page.getByTestId('content-item').first().waitFor();
      expect(await page.getByTestId('content-item').count()).toBe(1);
      await toast(page, 'was reviewed and released').waitFor();
      await screenshot(page, 'released-in-gallery');
      expect(await balanceOf(client)).toBe(4);

      // A second held output, removed on the screen: the notice with the reason, and the refund.
      expect((await generate()).status()).toBe(200);
      expect(await balanceOf(client)).toBe(3);
      await card.waitFor();
      await card.getByLabel('Reason for the decision').fill('The face looks under 18');
      await card.getByRole('button', { name: 'Remove' }).click();
      await modPage.getByText('Nothing is waiting for review').waitFor();
      await screenshot(modPage, 'moderation-empty-phone');
      const notice = toast(page, 'was removed after review');
      await notice.waitFor();
      expect(await notice.textContent()).toContain('Reason: The face looks under 18. 1 credit refunded.');
      await page.getByTestId('balance').filter({ hasText: '4' }).waitFor();
      await screenshot(page, 'removed-notice-refund');
      expect(await balanceOf(client)).toBe(4);
      expect(await page.getByTestId('content-item').count()).toBe(1);
      await page.goto(`${t.url}/credits`);
      await page.getByText('Removed after review: The face looks under 18').waitFor();
      await screenshot(page, 'removed-refund-in-history');
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
      await context.close();
      await modContext.close();
    }
  }, 300_000);
});
