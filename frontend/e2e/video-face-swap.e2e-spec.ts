import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import type { FaceSwapVideoCheck } from '@studio/contracts';
import { grantCredits, PASSWORD, register, signIn, uniqueName } from '../../backend/test/clients';
import { Job } from '../../backend/src/modules/generation/job.schema';
import { faceCrop } from '../../backend/test/fixtures';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot, SCREENSHOTS, toast } from './browser';

const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

describe('video face swap in the browser: the first frame, picking the person to follow', () => {
  let t: TestApp;
  let browser: Browser;
  let dir: string;
  let clip: string;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    const admin = await signIn(t, adminName, 'admin-password-1');
    expect((await admin.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(200);
    browser = await launchBrowser();
    dir = mkdtempSync(join(tmpdir(), 'video-swap-e2e-'));
    // Two people side by side (the larger on the left: face 1), a 2 s H.264 clip.
    const canvas = await sharp({
      create: { width: 640, height: 360, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .composite([
        { input: await faceCrop('cgi-model-3.jpg', [347, 134, 266, 266], 300), left: 30, top: 30 },
        { input: await faceCrop('cgi-model-22.jpg', [284, 161, 341, 342], 210), left: 400, top: 90 },
      ])
      .png()
      .toBuffer();
    writeFileSync(join(dir, 'canvas.png'), canvas);
    clip = join(dir, 'two-people.mp4');
    execFileSync('ffmpeg', [
      ...['-y', '-loglevel', 'error', '-loop', '1', '-framerate', '10', '-i', join(dir, 'canvas.png')],
      ...['-t', '2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', clip],
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Signed in with `credits`, on the video page with a folder chosen and both files picked. */
  async function pickFiles(page: Page, credits: number): Promise<FaceSwapVideoCheck> {
    const username = uniqueName('follower');
    await register(t, username);
    await grantCredits(t, username, credits);
    await logInAs(page, t.url, username, PASSWORD);
    await page.request.post(`${t.url}/api/makeFolder`, { data: { author: username, title: 'Clips' } });
    await page.goto(`${t.url}/swapvideo`);
    await page
      .getByTestId('balance')
      .filter({ hasText: String(credits) })
      .waitFor();
    await page.getByLabel('Parent Folder*').click();
    await page.getByTitle('Clips').click();
    // The first check of a fresh app also starts the engine pool and loads its face models.
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/faceSwapVideo/check'), {
      timeout: 120_000,
    });
    await page.getByLabel('Video', { exact: true }).setInputFiles(clip);
    await page.getByLabel('Image', { exact: true }).setInputFiles(join(FIXTURES, 'ai-face.jpg'));
    const answer = await checked;
    expect(answer.status()).toBe(200);
    return (await answer.json()).content as FaceSwapVideoCheck;
  }

  it('shows the first frame with a box on each face, for free, and sends the face the user picked', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      const check = await pickFiles(page, 20);
      expect(check).toMatchObject({ ok: true, targetFace: 0, price: 10 });
      expect(check.frame.faces).toHaveLength(2);

      const first = page.getByRole('button', { name: 'Target face 1' });
      const second = page.getByRole('button', { name: 'Target face 2' });
      await second.waitFor();
      expect(await first.getAttribute('aria-pressed')).toBe('true');
      await second.click();
      expect(await first.getAttribute('aria-pressed')).toBe('false');
      expect(await second.getAttribute('aria-pressed')).toBe('true');
      await page.getByTestId('face-check-summary').filter({ hasText: 'onto face 2 of the video' }).waitFor();
      await page.getByTestId('face-check-summary').filter({ hasText: '10 credits' }).waitFor();
      // The boxes lie over the drawn frame, the second one on the right-hand person.
      const frame = await page.getByTestId('face-picker-target').locator('img').boundingBox();
      const box = await second.boundingBox();
      expect(box!.x + box!.width / 2).toBeGreaterThan(frame!.x + frame!.width / 2);
      expect(box!.y).toBeGreaterThanOrEqual(frame!.y);
      // The check is free: the balance has not moved.
      await page.getByTestId('balance').filter({ hasText: '20' }).waitFor();
      await page.getByLabel('I have the consent of the person whose face I use').check();
      await screenshot(page, 'video-swap-check');
      // The tool's card alone, the whole of it in view (for docs/face-swap.md).
      await page.setViewportSize({ width: 1280, height: 1500 });
      await page.locator('.tool-card').screenshot({ path: join(SCREENSHOTS, 'video-swap-card.png') });

      const submitted = page.waitForResponse((r) => r.url().endsWith('/api/faceSwapVideo'));
      await page.getByRole('button', { name: /Swap$/ }).click();
      const response = await submitted;
      const answer = await response.json();
      expect(answer).toMatchObject({
        message: 'processing',
        content: { job: { tool: 'faceSwapVideo', cost: 10 } },
      });
      // The job was queued with the picked person (the browser's multipart body is not readable here).
      const job = await t.app
        .get<Model<Job>>(getModelToken(Job.name))
        .findById(answer.content.job._id)
        .lean();
      expect(job!.params).toMatchObject({ sourceFace: 0, targetFace: 1 });
      await toast(page, 'Video Face Swap in Progress').waitFor();
      await page.getByTestId('balance').filter({ hasText: '10' }).waitFor();
    } finally {
      await context.close();
    }
  }, 240_000);

  it('keeps the frame and its boxes within the page on a phone', async () => {
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const page = await context.newPage();
    try {
      await pickFiles(page, 20);
      const second = page.getByRole('button', { name: 'Target face 2' });
      await second.waitFor();
      const picker = await page.getByTestId('face-picker-target').boundingBox();
      const box = await second.boundingBox();
      expect(picker!.x).toBeGreaterThanOrEqual(0);
      expect(picker!.x + picker!.width).toBeLessThanOrEqual(390);
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      await second.tap();
      expect(await second.getAttribute('aria-pressed')).toBe('true');
      await screenshot(page, 'video-swap-check-phone');
    } finally {
      await context.close();
    }
  }, 240_000);
});
