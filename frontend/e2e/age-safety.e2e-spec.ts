import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { SAFETY_REASONS, TEST_CARDS, type HeldItem } from '@studio/contracts';
import { AccountsRepository } from '../../backend/src/modules/accounts';
import { EngineRegistry } from '../../backend/src/modules/engines';
import { balanceOf, grantCredits, PASSWORD, register, signIn, uniqueName } from '../../backend/test/clients';
import { marked } from '../../backend/test/marked-classifier';
import { ScriptedEngine } from '../../backend/test/scripted-engine';
import { stripeTestConfig } from '../../backend/test/stripe';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

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

  it('an account assured by staff works; a held output shows in the gallery only once a moderator releases it', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const picture = await marked(await sharp(FACE).png().toBuffer(), 'minorFace');
    t.app.get(EngineRegistry).override(
      'generate',
      Object.assign(new ScriptedEngine(), {
        generate: async () => ({ data: picture, format: 'png' as const, width: 256, height: 256 }),
      }),
    );
    try {
      const username = await newcomer(page, 5);
      const staffName = uniqueName('mod');
      await signIn(t, staffName);
      const accounts = t.app.get(AccountsRepository);
      await accounts.setRole((await accounts.findByUsername(staffName))!.id, 'support');
      const staff = await signIn(t, staffName);
      const recorded = await staff.agent
        .post(`/api/support/users/${username}/age-assurance`)
        .send({ reason: 'Driving licence seen on a video call, ticket 77' });
      expect(recorded.status).toBe(200);

      await page.goto(`${t.url}/magic`);
      await page.getByText('Magic Brush').first().waitFor();
      expect(await page.getByTestId('age-check-notice').count()).toBe(0);

      const made = await page.request.post(`${t.url}/api/generateImage`, {
        data: { title: 'portrait', author: username, prompt: 'adult woman, portrait, nude' },
      });
      expect(made.status()).toBe(200);
      const held = ((await staff.agent.get('/api/moderation/held')).body.content as HeldItem[]).find(
        (h) => h.owner === username,
      )!;
      expect(held.reason).toBe('minor_face');
      const jobs = await (await page.request.get(`${t.url}/api/jobs`)).json();
      const galleryPath = `/profile/bulkInpaints/${jobs.content[0].folderId as string}`;
      await page.goto(`${t.url}${galleryPath}`);
      await page.waitForLoadState('networkidle');
      expect(await page.getByTestId('content-item').count()).toBe(0);
      await screenshot(page, 'held-not-in-gallery');

      expect((await staff.agent.post(`/api/moderation/held/${held.itemId}/release`)).status).toBe(200);
      await page.reload();
      await page.getByTestId('content-item').first().waitFor();
      expect(await page.getByTestId('content-item').count()).toBe(1);
      await screenshot(page, 'released-in-gallery');
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
      await context.close();
    }
  }, 300_000);
});
