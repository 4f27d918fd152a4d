import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { gatedSuperResolution } from '../../backend/test/gated-engine';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { EngineRegistry } from '../../backend/src/modules/engines';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot as fullPage, settledBox } from './browser';

const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/**
 * Live progress and places in line in the job tray (a super resolution engine the test steps
 * through), the tray beside the face swap form at 1366×900, a 12-image bulk as one row, and the
 * credit history and jobs pages with their filters.
 */
describe('job progress, the tray and the histories in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let gated: ReturnType<typeof gatedSuperResolution>;
  const username = uniqueName('keeper');

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, JOB_WAIT_MS: '0', JOB_CONCURRENCY_SUPER_RESOLUTION: '1' });
    const registry = t.app.get(EngineRegistry);
    gated = gatedSuperResolution(registry.engineFor('clone')!);
    registry.override('superResolution', gated.engine);
    browser = await launchBrowser();
    await register(t, username);
    await grantCredits(t, username, 1500);
    context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    page = await context.newPage();
    await logInAs(page, t.url, username, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const png = (width: number, height: number, background: string) =>
    sharp({ create: { width, height, channels: 3, background } })
      .png()
      .toBuffer();
  const upscale = async () => {
    const res = await page.request.post(`${t.url}/api/superResolution`, {
      multipart: {
        author: username,
        original: { name: 'small.png', mimeType: 'image/png', buffer: await png(40, 40, '#468') },
      },
    });
    expect(res.status()).toBe(200);
    return (await res.json()).content.job._id as string;
  };
  /** From the top, once no table is loading, so the sticky header sits where it belongs. */
  const screenshot = async (page: Page, name: string) => {
    await page.locator('.ant-spin-blur').waitFor({ state: 'detached' });
    await page.evaluate(() => window.scrollTo(0, 0));
    return fullPage(page, name);
  };
  const trayRow = (jobId: string) => page.locator(`[data-testid="tray-job"][data-job="${jobId}"]`);
  const progressOf = (jobId: string) => trayRow(jobId).getByRole('progressbar');

  it('moves progress step by step, shows places in line, and stands beside the swap form', async () => {
    await page.request.post(`${t.url}/api/makeFolder`, { data: { author: username, title: 'Swaps' } });
    await page.goto(`${t.url}/swap`);
    await page.getByRole('combobox').click();
    await page.getByTitle('Swaps').click();
    await page.getByLabel('Face Image').setInputFiles(join(FIXTURES, 'ai-face.jpg'));
    await page.getByLabel('Target Image').setInputFiles(join(FIXTURES, 'cgi-model-3.jpg'));
    const swap = page.getByRole('button', { name: /Swap$/ });
    await swap.waitFor();
    // The free face check's answer adds the faces it found above the button: the form's layout is
    // final only then (measured before it, the button was in view or not as the check was quick).
    await page.getByText('Faces found').waitFor();

    const first = await upscale();
    const running = await gated.nextRun();
    const second = await upscale();
    const third = await upscale();
    // The tray opened by itself, beside the form.
    await trayRow(first)
      .getByText(/^Working on it/)
      .waitFor();
    await trayRow(second)
      .getByText(/^Next in line/)
      .waitFor();
    await trayRow(third)
      .getByText(/^2nd in line/)
      .waitFor();

    running.report(0.4);
    await progressOf(first).and(page.locator('[aria-valuenow="40"]')).waitFor();
    running.report(0.75);
    await progressOf(first).and(page.locator('[aria-valuenow="75"]')).waitFor();

    // Nothing of the form is under the tray: the Swap button and both drop areas are in the clear.
    // The button is brought into view first (the tray is fixed to the window, the form scrolls).
    await swap.scrollIntoViewIfNeeded();
    const tray = await settledBox(page.getByTestId('job-tray'));
    for (const part of [swap, ...(await page.locator('.image-dropzone').all())]) {
      const box = (await part.boundingBox())!;
      expect(overlaps(box, tray)).toBe(false);
      expect(box.x + box.width).toBeLessThanOrEqual(1366);
    }
    const atSwap = await swap.evaluate((button) => {
      const r = button.getBoundingClientRect();
      return button.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
    });
    expect(atSwap).toBe(true);
    console.log(`screenshot: ${await screenshot(page, 'tray-beside-swap-1366')}`);

    // The first ends, the second starts, the third moves up.
    await running.finish();
    await trayRow(first).and(page.locator('[data-state="succeeded"]')).waitFor();
    const next = await gated.nextRun();
    await trayRow(second)
      .getByText(/^Working on it/)
      .waitFor();
    await trayRow(third)
      .getByText(/^Next in line/)
      .waitFor();
    await next.finish();
    await (await gated.nextRun()).finish();
    await trayRow(third).and(page.locator('[data-state="succeeded"]')).waitFor();
  });

  it('shows a 12-image bulk inpaint as one batch row with its progress', async () => {
    const made = await page.request.post(`${t.url}/api/makeFolder`, {
      data: { author: username, title: 'Bulk' },
    });
    const folderId = (await made.json()).content._id as string;
    const mask = await sharp({ create: { width: 48, height: 48, channels: 3, background: '#000' } })
      .composite([{ input: await png(16, 16, '#fff'), left: 16, top: 16 }])
      .png()
      .toBuffer();
    const res = await page.request.post(`${t.url}/api/bulkInpaintImage`, {
      multipart: {
        author: username,
        prompt: 'freckles',
        amount: '12',
        folder: folderId,
        inpaintName: 'Twelve',
        original: { name: 'a.png', mimeType: 'image/png', buffer: await png(48, 48, '#a86') },
        mask: { name: 'mask.png', mimeType: 'image/png', buffer: mask },
      },
    });
    expect(res.status()).toBe(200);
    const batch = page.getByTestId('tray-batch').filter({ hasText: 'Twelve' });
    await batch.waitFor();
    expect(await batch.getAttribute('data-jobs')).toBe('12');
    expect(await page.getByTestId('tray-job').filter({ hasText: 'Magic Brush' }).count()).toBe(0);
    await batch.getByText(/of 12 done/).waitFor();
    await batch.and(page.locator('[data-state="succeeded"]')).waitFor({ timeout: 120_000 });
    await batch.getByText('12 of 12 done').waitFor();
    console.log(`screenshot: ${await screenshot(page, 'tray-batch-row')}`);
  }, 150_000);

  it('lists the credit history in plain words with separators', async () => {
    await page.goto(`${t.url}/credits`);
    const table = page.locator('.ant-table');
    // Newest first: the batch's charges on page 1, the first gift on page 2.
    await table.getByText('Spent on Magic Brush').first().waitFor();
    await table.getByText('Magic Brush finished: payment confirmed').first().waitFor();
    console.log(`screenshot: ${await screenshot(page, 'credits-1366')}`);
    await page.locator('.ant-pagination').getByTitle('2', { exact: true }).click();
    await table.getByText('Gift from the studio').waitFor();
    await table.getByText('+1,500').waitFor();
    await table.getByText('Spent on Super resolution').first().waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    console.log(`screenshot: ${await screenshot(page, 'credits-390')}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1366, height: 900 });
  });

  it('lists every job with tool, state and day filters', async () => {
    await page.goto(`${t.url}/jobs`);
    const rows = page.getByTestId('history-job');
    await rows.nth(14).waitFor(); // 3 upscales + 12 inpaints
    expect(await rows.count()).toBe(15);
    console.log(`screenshot: ${await screenshot(page, 'jobs-1366')}`);

    await page.getByRole('combobox', { name: 'Tool' }).click();
    await page.getByTitle('Super resolution').click();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-job"]').length === 3);
    await page.getByRole('combobox', { name: 'State' }).click();
    await page.getByTitle('Failed').click();
    await page.getByText('No jobs match.').waitFor();
    await page.locator('.ant-select-clear').last().click({ force: true });
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-job"]').length === 3);
    // Days are UTC: nothing ran before yesterday.
    const yesterday = new Date(Date.now() - 24 * 3600 * 1000).toISOString().slice(0, 10);
    await page.getByLabel('To', { exact: true }).fill(yesterday);
    await page.getByText('No jobs match.').waitFor();
    await page.getByLabel('To', { exact: true }).fill('');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-job"]').length === 3);

    await page.setViewportSize({ width: 390, height: 844 });
    console.log(`screenshot: ${await screenshot(page, 'jobs-390')}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
