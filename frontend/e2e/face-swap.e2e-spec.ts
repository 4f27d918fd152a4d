import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import type { JobView } from '@studio/contracts';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { faceCrop, regionDifference } from '../../backend/test/fixtures';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot, toast } from './browser';

const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

describe('face swap in the browser: the free check and picking a face', () => {
  let t: TestApp;
  let browser: Browser;
  let dir: string;
  let target: string;
  let targetPng: Buffer;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), 'face-swap-e2e-'));
    // Two people, the larger on the left (face 1), on a picture wider than 1024 px.
    targetPng = await sharp({
      create: { width: 1800, height: 900, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .composite([
        { input: await faceCrop('cgi-model-3.jpg', [347, 134, 266, 266], 800), left: 40, top: 50 },
        { input: await faceCrop('cgi-model-22.jpg', [284, 161, 341, 342], 520), left: 1150, top: 220 },
      ])
      .png()
      .toBuffer();
    target = join(dir, 'two-people.png');
    writeFileSync(target, targetPng);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function openSwap(page: Page, credits: number) {
    const username = uniqueName('picker');
    await register(t, username);
    await grantCredits(t, username, credits);
    await logInAs(page, t.url, username, PASSWORD);
    const made = await page.request.post(`${t.url}/api/makeFolder`, {
      data: { author: username, title: 'Picked' },
    });
    const folderId = (await made.json()).content._id as string;
    await page.goto(`${t.url}/swap`);
    await page
      .getByTestId('balance')
      .filter({ hasText: String(credits) })
      .waitFor();
    await page.getByRole('combobox').click();
    await page.getByTitle('Picked').click();
    return folderId;
  }

  it('shows the faces found for free, swaps only the face the user clicked, at the full size', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      await openSwap(page, 5);
      // The first check of a fresh app also starts the engine pool and loads its face models.
      const checked = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap/check'), {
        timeout: 120_000,
      });
      await page.getByLabel('Face Image').setInputFiles(join(FIXTURES, 'ai-face.jpg'));
      await page.getByLabel('Target Image').setInputFiles(target);
      const check = await (await checked).json();
      expect(check.content).toMatchObject({ ok: true, price: 1, targetFaces: [0] });
      expect(check.content.target).toMatchObject({ width: 1800, height: 900 });
      expect(check.content.target.faces).toHaveLength(2);

      const first = page.getByRole('button', { name: 'Target face 1' });
      const second = page.getByRole('button', { name: 'Target face 2' });
      await second.waitFor();
      expect(await first.getAttribute('aria-pressed')).toBe('true');
      // The check is free: the balance has not moved.
      await page.getByTestId('balance').filter({ hasText: '5' }).waitFor();
      await screenshot(page, 'face-swap-check');

      await second.click();
      await first.click();
      expect(await first.getAttribute('aria-pressed')).toBe('false');
      expect(await second.getAttribute('aria-pressed')).toBe('true');
      await page.getByTestId('face-check-summary').filter({ hasText: 'onto target face 2' }).waitFor();
      await page.getByLabel('I have the consent of the person whose face I use').check();
      await screenshot(page, 'face-swap-picked');

      const answered = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap'));
      await page.getByRole('button', { name: /Swap$/ }).click();
      const answer = await (await answered).json();
      expect(answer).toMatchObject({ message: 'processing', content: { job: { tool: 'faceSwap' } } });
      const jobUrl = `${t.url}/api/jobs/${answer.content.job._id}`;
      let job = answer.content.job as JobView;
      for (let polls = 0; ['queued', 'running'].includes(job.state) && polls < 600; polls++) {
        await page.waitForTimeout(250); // polling the job's state, not waiting for a fixed time
        job = (await (await page.request.get(jobUrl)).json()).content as JobView;
      }
      expect({ state: job.state, error: job.error }).toEqual({ state: 'succeeded', error: undefined });
      await toast(page, 'Face swap ready').waitFor();
      await page.getByTestId('balance').filter({ hasText: '4' }).waitFor();
      await screenshot(page, 'face-swap-done');

      const output = await (await page.request.get(`${t.url}${job.items[0].url}`)).body();
      expect(await sharp(output).metadata()).toMatchObject({ width: 1800, height: 900 });
      const [face1, face2] = (check.content.target.faces as { box: number[] }[]).map((f) => f.box);
      expect(await regionDifference(output, targetPng, face2)).toBeGreaterThan(8);
      expect(await regionDifference(output, targetPng, face1)).toBeLessThan(2);
    } finally {
      await context.close();
    }
  }, 240_000);

  it('keeps the face boxes within the page on a phone', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    try {
      await openSwap(page, 2);
      await page.getByLabel('Face Image').setInputFiles(join(FIXTURES, 'ai-face.jpg'));
      await page.getByLabel('Target Image').setInputFiles(target);
      const second = page.getByRole('button', { name: 'Target face 2' });
      await second.waitFor({ timeout: 120_000 });
      const picker = await page.getByTestId('face-picker-target').boundingBox();
      const box = await second.boundingBox();
      expect(picker!.x).toBeGreaterThanOrEqual(0);
      expect(picker!.x + picker!.width).toBeLessThanOrEqual(390);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      await second.tap();
      expect(await second.getAttribute('aria-pressed')).toBe('true');
      await screenshot(page, 'face-swap-phone');
    } finally {
      await context.close();
    }
  }, 180_000);
});
