import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import {
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  openedDialog,
  screenshot as fullPage,
  settledBox,
  toast,
} from './browser';

const FIXTURES = join(__dirname, '../../libs/inference/fixtures');
const LANDSCAPE = join(FIXTURES, 'cgi-model-1.jpg'); // 1280x720, scaled to 1024x576 in the browser
const FACE = join(FIXTURES, 'ai-face.jpg'); // 256x256
const UPPER = join(FIXTURES, 'ai-upper.jpg'); // 688x720

/** A full-page screenshot from the top, so the sticky header sits where it belongs. */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  return fullPage(page, name);
}

/** Waits until every <img> matched by the selector has loaded. */
const imagesLoaded = (page: Page, selector: string) =>
  page.waitForFunction(
    (sel) =>
      Array.from(document.querySelectorAll<HTMLImageElement>(sel)).every(
        (img) => img.complete && img.naturalWidth > 0,
      ) && document.querySelectorAll(sel).length > 0,
    selector,
  );

describe('Magic Brush, Generate and Video face swap in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let username: string;
  let work: string;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
    work = mkdtempSync(join(tmpdir(), 'tools-more-'));
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  /** A new user with credits and a folder, logged in, on `path`. */
  async function signedInAt(path: string, credits: number, folderTitle?: string) {
    username = uniqueName('brush');
    await register(t, username);
    if (credits > 0) await grantCredits(t, username, credits);
    await logInAs(page, t.url, username, PASSWORD);
    let folderId: string | undefined;
    if (folderTitle) {
      const made = await page.request.post(`${t.url}/api/makeFolder`, {
        data: { author: username, title: folderTitle },
      });
      folderId = (await made.json()).content._id as string;
    }
    await page.goto(`${t.url}${path}`);
    await page
      .getByTestId('balance')
      .filter({ hasText: String(credits) })
      .waitFor();
    return folderId;
  }

  /** Paints a zig-zag stroke with the mouse over the middle of the mask canvas. */
  async function paint() {
    const canvas = page.getByTestId('mask-canvas');
    const box = (await canvas.boundingBox())!;
    const x0 = box.x + box.width * 0.35;
    const y0 = box.y + box.height * 0.3;
    await page.mouse.move(x0, y0);
    await page.mouse.down();
    for (let i = 1; i <= 12; i++) {
      await page.mouse.move(x0 + i * (box.width * 0.025), y0 + (i % 2 ? 40 : 0), { steps: 4 });
    }
    await page.mouse.up();
    return box;
  }

  it('paints a mask with the mouse and inpaints single, then a bulk batch into a folder', async () => {
    const folderId = await signedInAt('/magic', 20, 'Inpaints');
    await page.getByLabel('Image to inpaint').setInputFiles(LANDSCAPE);
    const canvas = page.getByTestId('mask-canvas');
    await canvas.waitFor();
    await expect(canvas.getAttribute('width')).resolves.toBe('1024');
    await expect(canvas.getAttribute('height')).resolves.toBe('576');
    const inpaint = page.getByRole('button', { name: /Inpaint/ });
    await expect(inpaint.isDisabled()).resolves.toBe(true);

    await paint();
    await expect(inpaint.isEnabled()).resolves.toBe(true);
    // The mask: the image's size, opaque white where painted, transparent elsewhere.
    const mask = await canvas.evaluate((element: HTMLCanvasElement) => {
      const data = element.getContext('2d')!.getImageData(0, 0, element.width, element.height).data;
      let white = 0;
      let other = 0;
      for (let i = 0; i < data.length; i += 4) {
        if (data[i + 3] === 0) continue;
        if (data[i] === 255 && data[i + 1] === 255 && data[i + 2] === 255) white += 1;
        else other += 1;
      }
      return { white, other, total: data.length / 4 };
    });
    expect(mask.white).toBeGreaterThan(2000);
    expect(mask.white).toBeLessThan(mask.total / 4);
    expect(mask.other).toBe(0);
    await page.mouse.move(10, 10);
    await screenshot(page, 'magic-painted');

    // Single
    await inpaint.click();
    const dialog = page.getByRole('dialog', { name: 'Create new inpaint' });
    // The local CPU engine fills from the picture around the mask: no prompt is asked for.
    await dialog.getByTestId('no-prompt').waitFor();
    await expect(dialog.getByLabel('Prompt').count()).resolves.toBe(0);
    await openedDialog(dialog); // its zoom is over: clicks and the screenshot see it in place
    await screenshot(page, 'magic-modal');
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/inpaintImage'));
    await dialog.getByRole('button', { name: 'Single' }).click();
    const answer = await (await answered).json();
    expect(answer.content.job).toMatchObject({ tool: 'inpaint', cost: 1 });
    const modal = page.getByTestId('job-modal');
    await modal.getByText(/Success!|Check Later!/).waitFor({ timeout: 60_000 });
    if (answer.message === 'success') {
      await imagesLoaded(page, '[data-testid="job-modal"] img');
      await expect(
        modal
          .getByRole('img', { name: 'Inpaint result' })
          .evaluate((img: HTMLImageElement) => img.naturalWidth),
      ).resolves.toBe(1024);
    }
    await settledBox(modal);
    await screenshot(page, 'magic-single-result');
    await modal.click();
    await modal.waitFor({ state: 'detached' });
    await page.getByTestId('balance').filter({ hasText: '19' }).waitFor({ timeout: 60_000 });

    // Bulk: two more images, one output each, into the folder.
    await inpaint.click();
    await openedDialog(dialog);
    await dialog.getByRole('button', { name: 'Bulk' }).click();
    await dialog.getByLabel('Parent Folder').click();
    await page.getByTitle('Inpaints').click();
    await dialog.getByLabel('Inpaint Name').fill('Summer dresses');
    await dialog.getByRole('button', { name: 'Add Images' }).click();
    await dialog.getByLabel('Extra images').setInputFiles([FACE, UPPER]);
    await dialog.getByText('2 Images Added').waitFor();
    await dialog.getByTestId('inpaint-cost').filter({ hasText: '3 images × 1 = 3 credits' }).waitFor();
    await screenshot(page, 'magic-bulk-images');
    const bulkAnswered = page.waitForResponse((r) => r.url().endsWith('/api/bulkInpaintImage'));
    await dialog.getByRole('button', { name: /^Inpaint$/ }).click();
    const bulk = await (await bulkAnswered).json();
    expect(bulk).toMatchObject({ message: 'processing', content: { batch: { amount: 3 } } });
    expect(bulk.content.jobs).toHaveLength(3);
    await toast(page, 'Bulk inpaint processing').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('bulk-started').waitFor();
    await screenshot(page, 'magic-bulk-started');

    await page.getByTestId('batch-folder').click();
    await page.waitForURL(`${t.url}/profile/bulkInpaints/${folderId}`);
    // The batch's three images (the single result went to the tool's own folder).
    await page.getByTestId('content-item').nth(2).waitFor({ timeout: 90_000 });
    await expect(page.getByTestId('content-item').count()).resolves.toBe(3);
    await imagesLoaded(page, '[data-testid="content-item"] img');
    await page.getByTestId('balance').filter({ hasText: '16' }).waitFor({ timeout: 60_000 });
    await screenshot(page, 'magic-bulk-folder');
  }, 240_000);

  it('says up front that image generation is not configured (the test app has no remote engine)', async () => {
    await signedInAt('/generate', 5);
    const alert = page.getByTestId('generate-not-configured');
    await alert.getByText('Image generation is not configured').waitFor();
    await expect(page.getByRole('button', { name: /Generate/ }).isDisabled()).resolves.toBe(true);
    await expect(
      page.getByLabel('Age').evaluate((el) => el.closest('.ant-select')!.textContent),
    ).resolves.toBe('20 year old');
    await screenshot(page, 'generate-not-configured');
  });

  it('prices a video from its length and keeps Swap disabled while the feature is off', async () => {
    const video = join(work, 'clip.mp4');
    execFileSync('ffmpeg', [
      ...['-hide_banner', '-loglevel', 'error', '-y', '-loop', '1', '-i', FACE],
      ...['-t', '2', '-vf', 'scale=320:-2', '-pix_fmt', 'yuv420p', video],
    ]);
    await signedInAt('/swapvideo', 100, 'Videos');
    await page.getByTestId('beta-notice').waitFor();
    await page.getByLabel('Parent Folder*').click();
    await page.getByTitle('Videos').click();
    await page.getByLabel('Video', { exact: true }).setInputFiles(video);
    await page.getByLabel('Image', { exact: true }).setInputFiles(FACE);
    await page.getByTestId('video-cost').filter({ hasText: 'This swap will cost 10 credits' }).waitFor();
    await page.getByLabel('I have the consent of the person whose face I use').check();
    await page.getByTestId('video-swap-off').waitFor();
    await expect(page.getByRole('button', { name: /Swap/ }).isDisabled()).resolves.toBe(true);
    await page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>('[data-testid="video-preview"]');
      return !!v && v.readyState >= 2;
    });
    await screenshot(page, 'swapvideo-off');
  });
});
