import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import {
  dismissToasts,
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  screenshot as fullPage,
  toast,
  waitUntil,
  watchSocket,
  type Watch,
  settledBox,
} from './browser';

const FIXTURES = join(__dirname, '../../libs/inference/fixtures');
const FACE = join(FIXTURES, 'ai-face.jpg'); // 256x256
const TARGET = join(FIXTURES, 'cgi-model-3.jpg'); // 939x1280, scaled to 751x1024 in the browser

/** Samples the progress bars of the modal and the tray every 25 ms (set up before any page loads). */
const recordProgress = () => {
  const seen = { modal: [] as number[], tray: [] as number[] };
  (window as unknown as { __progress: typeof seen }).__progress = seen;
  setInterval(() => {
    const read = (selector: string, into: number[]) =>
      document.querySelectorAll(selector).forEach((bar) => {
        const value = Number(bar.getAttribute('aria-valuenow'));
        if (into.at(-1) !== value) into.push(value);
      });
    read('[data-testid="job-modal"] [role="progressbar"]', seen.modal);
    read('[data-testid="tray-job"] [role="progressbar"]', seen.tray);
  }, 25);
};

/** A full-page screenshot from the top, so the sticky header sits where it belongs. */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  return fullPage(page, name);
}

const progressSeen = (page: Page) =>
  page.evaluate(() => (window as unknown as { __progress: { modal: number[]; tray: number[] } }).__progress);

describe('image tools in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let socket: Watch;
  let username: string;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(recordProgress);
    page = await context.newPage();
    socket = watchSocket(page);
  });
  afterEach(() => context.close());

  /** A new user with credits, logged in, on `path` with the socket joined. */
  async function signedInAt(path: string, credits: number) {
    username = uniqueName('maker');
    await register(t, username);
    if (credits > 0) await grantCredits(t, username, credits);
    await logInAs(page, t.url, username, PASSWORD);
    const readies = socket.readies();
    await page.goto(`${t.url}${path}`);
    await waitUntil(() => socket.readies() > readies);
    await page
      .getByTestId('balance')
      .filter({ hasText: String(credits) })
      .waitFor();
  }

  const jobFrames = (event: string) => socket.frames.filter((f) => f.includes(`"${event}"`));

  it('clones an image: amount modal, Generating..., the clones and their folder', async () => {
    await signedInAt('/', 20);
    await page.getByLabel('Image to clone').setInputFiles(FACE);
    await page.getByTestId('image-preview').waitFor();
    await screenshot(page, 'clone-picked');

    await page.getByRole('button', { name: /Clone/ }).click();
    const ask = page.getByRole('dialog', { name: 'Create new clones' });
    await ask.getByLabel('Amount').fill('25');
    await ask.getByRole('button', { name: 'Generate Clones' }).click();
    await toast(page, 'Not enough credits!').waitFor();
    await dismissToasts(page);
    await ask.getByLabel('Amount').fill('3');
    await ask.getByTestId('clone-cost').filter({ hasText: 'Costs 3 credits · your balance is 20' }).waitFor();
    await screenshot(page, 'clone-amount');

    // Chromium does not expose multipart bodies with files; the answer shows what the server read.
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/generateNoise'));
    await ask.getByRole('button', { name: 'Generate Clones' }).click();
    const response = await answered;
    expect(response.request().headers()['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const answer = await response.json();
    // 'success' with the clones when the job ended within the server's wait, 'processing' when it
    // did not (a busy machine): which one depends on speed, so both are right; the modal tells the end
    expect(answer).toMatchObject({ content: { job: { tool: 'clone', cost: 3 } } });
    expect(['success', 'processing']).toContain(answer.message);
    if (answer.message === 'success') expect(answer.content.job.items).toHaveLength(3);

    const modal = page.getByTestId('job-modal');
    await modal.getByText('Success!').waitFor({ timeout: 150_000 });
    const clones = modal.getByRole('img', { name: /^Clone \d$/ });
    await expect(clones.count()).resolves.toBe(3);
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll<HTMLImageElement>('[data-testid="clone-results"] img')).every(
        (img) => img.complete && img.naturalWidth === 256,
      ),
    );
    await page.getByTestId('balance').filter({ hasText: '17' }).waitFor();
    // The push follows the charge, which may come after the answer the modal showed.
    await waitUntil(() => jobFrames('job.completed').length > 0);
    expect(jobFrames('job.completed')).toHaveLength(1);
    await screenshot(page, 'clone-success');

    // The tray has the finished job; the modal's link leads to the 'Clones' folder.
    await page.getByTestId('tray-job').filter({ hasText: 'Done' }).waitFor();
    await modal.getByTestId('result-folder').click();
    await page.waitForURL(/\/profile\/bulkInpaints\/[a-f0-9]{24}$/);
    await page.getByTestId('content-item').nth(2).waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(3);
    await page.getByTestId('job-modal').waitFor({ state: 'detached' });
  });

  it('upscales an image with progress in the modal, shows it, and closes on click', async () => {
    await signedInAt('/superresolution', 10);
    await page.getByLabel('Image to upscale').setInputFiles(FACE);
    await page.getByTestId('image-preview').waitFor();

    const sent = page.waitForRequest((r) => r.url().endsWith('/api/superResolution'));
    await page.getByRole('button', { name: /Super Resolution/ }).click();
    expect((await sent).postDataJSON()).toEqual({
      original: expect.stringMatching(/^data:image\/jpeg;base64,/),
      author: username,
      scale: 2,
    });
    const modal = page.getByTestId('job-modal');
    await modal.getByText('Generating...').waitFor();
    await settledBox(modal); // the modal's opening animation is over
    await screenshot(page, 'superres-generating');

    await modal.getByText('Success!').waitFor({ timeout: 150_000 });
    const result = modal.getByRole('img', { name: 'Super resolution result' });
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.job-result-image');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    await expect(result.evaluate((img: HTMLImageElement) => img.naturalWidth)).resolves.toBe(512);
    const seen = await progressSeen(page);
    expect(jobFrames('job.progress').length).toBeGreaterThan(0);
    expect(seen.modal.some((value) => value > 0 && value < 100)).toBe(true);
    await page.getByTestId('balance').filter({ hasText: '8' }).waitFor();
    await screenshot(page, 'superres-success');

    await modal.click();
    await modal.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: /Super Resolution/ }).waitFor();
  });

  it('swaps a face: folder, two images, consent; the tray follows the job to its folder', async () => {
    await signedInAt('/swap', 10);
    await page.getByText('Create a folder on your profile page first').waitFor();
    await screenshot(page, 'swap-no-folder');
    const made = await page.request.post(`${t.url}/api/makeFolder`, {
      data: { author: username, title: 'Swaps' },
    });
    const folderId = (await made.json()).content._id as string;
    await page.reload();

    await page.getByRole('combobox').click();
    await page.getByTitle('Swaps').click();
    // the free check of both pictures (the first of a fresh app also loads the face models)
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap/check'), {
      timeout: 120_000,
    });
    await page.getByLabel('Face Image').setInputFiles(FACE);
    await page.getByLabel('Target Image').setInputFiles(TARGET);
    await expect(page.getByTestId('image-preview').count()).resolves.toBeGreaterThanOrEqual(1);
    expect((await (await checked).json()).content).toMatchObject({ ok: true, price: 1 });
    const swap = page.getByRole('button', { name: /Swap$/ });
    await swap.waitFor();
    await expect(swap.isDisabled()).resolves.toBe(true); // no consent yet
    await page.getByLabel('I have the consent of the person whose face I use').check();
    await page.getByRole('button', { name: /Swap$/, disabled: false }).waitFor();
    await screenshot(page, 'swap-ready');

    const answered = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap'));
    await swap.click();
    const answer = await (await answered).json();
    expect(answer).toMatchObject({ message: 'processing', content: { job: { tool: 'faceSwap', folderId } } });
    await toast(page, 'Face Swap in Progress').waitFor();

    const tray = page.getByTestId('job-tray');
    const row = tray.getByTestId('tray-job').filter({ hasText: 'Face swap' });
    await row.waitFor();
    await screenshot(page, 'swap-in-tray');
    await row.and(page.locator('[data-state="succeeded"]')).waitFor({ timeout: 90_000 });
    await toast(page, 'Face swap ready').waitFor();
    await page.getByTestId('balance').filter({ hasText: '9' }).waitFor();
    expect((await progressSeen(page)).tray.length).toBeGreaterThan(0);
    expect(jobFrames('job.progress').length).toBeGreaterThan(0);
    await screenshot(page, 'swap-done');

    await row.getByRole('link', { name: /Open folder/ }).click();
    await page.waitForURL(`${t.url}/profile/bulkInpaints/${folderId}`);
    await page.getByTestId('content-item').first().waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(1);
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('[data-testid="content-item"] img');
      return !!img && img.complete && img.naturalWidth > 0;
    });
    await screenshot(page, 'swap-folder');
  });

  it('refuses, for free, a target in which the check finds no face', async () => {
    await signedInAt('/swap', 5);
    await page.request.post(`${t.url}/api/makeFolder`, { data: { author: username, title: 'Swaps' } });
    await page.reload();
    await page.getByRole('combobox').click();
    await page.getByTitle('Swaps').click();
    // The target has no face the engine can find: a flat image.
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/faceSwap/check'), {
      timeout: 120_000,
    });
    await page.getByLabel('Face Image').setInputFiles(FACE);
    await page.getByLabel('Target Image').setInputFiles({
      name: 'blank.png',
      mimeType: 'image/png',
      buffer: await blankPng(page),
    });
    const check = (await (await checked).json()).content as { ok: boolean; problems: string[] };
    expect(check.ok).toBe(false);
    expect(check.problems).toHaveLength(1);
    await page.getByText(check.problems[0]).waitFor();
    await page.getByLabel('I have the consent of the person whose face I use').check();
    // the refusal stays on the page: Swap cannot be pressed and nothing was charged
    await expect(page.getByRole('button', { name: /Swap$/ }).isDisabled()).resolves.toBe(true);
    await page.getByTestId('balance').filter({ hasText: '5' }).waitFor();
    const jobs = (await (await page.request.get(`${t.url}/api/jobs`)).json()).content as unknown[];
    expect(jobs).toHaveLength(0);
    await screenshot(page, 'swap-refused');
  });
});

/** A 200x200 grey PNG made by the browser's canvas. */
async function blankPng(page: Page): Promise<Buffer> {
  const dataUrl = await page.evaluate(() => {
    const canvas = document.createElement('canvas');
    canvas.width = 200;
    canvas.height = 200;
    const context = canvas.getContext('2d')!;
    context.fillStyle = '#888';
    context.fillRect(0, 0, 200, 200);
    return canvas.toDataURL('image/png');
  });
  return Buffer.from(dataUrl.split(',')[1], 'base64');
}
