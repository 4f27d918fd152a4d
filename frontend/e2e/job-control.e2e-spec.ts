import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { gatedInpaint, gatedSuperResolution } from '../../backend/test/gated-engine';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { EngineRegistry } from '../../backend/src/modules/engines';
import {
  confirmation,
  dismissToasts,
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  screenshot as fullPage,
  startBulkOfThree,
  withEvidence,
} from './browser';

/**
 * Cancel, place in line with its estimate, Run again and Edit and run in the browser, against the
 * real API. Super resolution runs one job at a time on an engine the test finishes step by step, so
 * a second job waits in line for as long as the test needs.
 */
describe('job control in the browser: cancel, place in line, run again', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let gated: ReturnType<typeof gatedSuperResolution>;
  let inpaints: ReturnType<typeof gatedInpaint>;
  const username = uniqueName('control');
  // Two 40 px upscales cost 2 credits each (a started megapixel of the result).
  const GRANT = 100;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, JOB_WAIT_MS: '0', JOB_CONCURRENCY_SUPER_RESOLUTION: '1' });
    const registry = t.app.get(EngineRegistry);
    gated = gatedSuperResolution(registry.engineFor('clone')!);
    registry.override('superResolution', gated.engine);
    inpaints = gatedInpaint(registry.engineFor('inpaint')!);
    registry.override('inpaint', inpaints.engine);
    browser = await launchBrowser();
    await register(t, username);
    await grantCredits(t, username, GRANT);
    context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    page = await context.newPage();
    await logInAs(page, t.url, username, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  const upscale = async () => {
    const image = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
    const res = await page.request.post(`${t.url}/api/superResolution`, {
      multipart: { author: username, original: { name: 'small.png', mimeType: 'image/png', buffer: image } },
    });
    expect(res.status()).toBe(200);
    return (await res.json()).content.job as { _id: string; cost: number };
  };
  const jobState = async (jobId: string) =>
    (await (await page.request.get(`${t.url}/api/jobs/${jobId}`)).json()).content.state as string;
  const historyRow = (p: Page, jobId: string) =>
    p.locator(`[data-testid="history-job"][data-job="${jobId}"]`);
  const trayRow = (p: Page, jobId: string) => p.locator(`[data-testid="tray-job"][data-job="${jobId}"]`);
  const balance = (p: Page) => p.getByTestId('balance');
  const screenshot = async (p: Page, name: string) => {
    await p.locator('.ant-spin-blur').waitFor({ state: 'detached' });
    return fullPage(p, name);
  };

  let first: { _id: string; cost: number };
  let second: { _id: string; cost: number };
  let running: Awaited<ReturnType<typeof gated.nextRun>>;

  it("shows a waiting job's place in line and estimate, live, on the jobs page and in the tray", async () => {
    first = await upscale();
    running = await gated.nextRun();
    second = await upscale();
    expect(second.cost).toBe(2);

    await page.goto(`${t.url}/jobs`);
    await historyRow(page, first._id)
      .getByText(/^Working on it/)
      .waitFor();
    const waiting = historyRow(page, second._id).getByTestId('job-wait');
    // "Next in line · about 1 min": the estimate comes from the tool's recent durations.
    await waiting
      .filter({ hasText: /^Next in line · (about \d+ (s|min)|a few seconds|any moment now)/ })
      .waitFor();
    await balance(page)
      .filter({ hasText: String(GRANT - 4) })
      .waitFor();
    console.log(`waiting job says: ${await waiting.textContent()}`);
    console.log(`screenshot: ${await screenshot(page, 'job-control-waiting-1366')}`);

    await page.getByTestId('job-tray-toggle').click();
    await trayRow(page, second._id)
      .getByText(/^Next in line · /)
      .waitFor();
  });

  it('cancels the waiting job after a confirmation; the state and the refund reach every open tab', async () => {
    const other = await context.newPage();
    await other.goto(`${t.url}/`);
    await balance(other)
      .filter({ hasText: String(GRANT - 4) })
      .waitFor();
    await other.getByTestId('job-tray-toggle').click();
    await trayRow(other, second._id).and(other.locator('[data-state="queued"]')).waitFor();

    await historyRow(page, second._id)
      .getByRole('button', { name: /Cancel/ })
      .click();
    await confirmation(page)
      .getByText('It leaves the queue and its 2 credits are refunded in full.')
      .waitFor();
    console.log(`screenshot: ${await screenshot(page, 'job-control-cancel-confirm-1366')}`);
    await confirmation(page).getByRole('button', { name: 'Cancel job' }).click();

    await historyRow(page, second._id).getByText('Cancelled', { exact: true }).waitFor();
    await historyRow(page, second._id)
      .getByText(/2 credits were refunded\./)
      .waitFor();
    await balance(page)
      .filter({ hasText: String(GRANT - 2) })
      .waitFor();
    // The other tab heard it over the socket.
    await trayRow(other, second._id).and(other.locator('[data-state="cancelled"]')).waitFor();
    await balance(other)
      .filter({ hasText: String(GRANT - 2) })
      .waitFor();
    expect(await jobState(second._id)).toBe('cancelled');
    await other.close();

    // The running job was not touched; it finishes as usual.
    await running.finish();
    await historyRow(page, first._id).getByText('Done', { exact: true }).waitFor();
  });

  it('runs a finished job again after confirming its price, charged once', async () => {
    await historyRow(page, first._id)
      .getByRole('button', { name: /Run again/ })
      .click();
    await confirmation(page)
      .getByTestId('run-again-price')
      .filter({ hasText: `The same inputs and settings, for 2 credits. Your balance is ${GRANT - 2}.` })
      .waitFor();
    await confirmation(page).getByRole('button', { name: 'Run for 2 credits' }).click();

    // The new job heads the page (read again when it started) and is charged once.
    const rows = page.getByTestId('history-job');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="history-job"]').length === 3);
    const again = (await rows.first().getAttribute('data-job'))!;
    expect([first._id, second._id]).not.toContain(again);
    await balance(page)
      .filter({ hasText: String(GRANT - 4) })
      .waitFor();
    const run = await gated.nextRun();
    await historyRow(page, again)
      .getByText(/^Working on it/)
      .waitFor();
    await run.finish();
    await historyRow(page, again).getByText('Done', { exact: true }).waitFor();
    expect(await jobState(again)).toBe('succeeded');
    await balance(page)
      .filter({ hasText: String(GRANT - 4) })
      .waitFor();
    console.log(`screenshot: ${await screenshot(page, 'job-control-run-again-1366')}`);
  });

  it("cancels from the tool's result modal on a phone, which then says what came back", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const ahead = await upscale();
    const run = await gated.nextRun();
    await page.goto(`${t.url}/superresolution`);
    const image = await sharp({ create: { width: 40, height: 40, channels: 3, background: '#864' } })
      .png()
      .toBuffer();
    await page
      .getByLabel('Image to upscale')
      .setInputFiles({ name: 'b.png', mimeType: 'image/png', buffer: image });
    await page.getByTestId('image-preview').waitFor();
    await page.getByRole('button', { name: /Super Resolution/ }).click();
    const modal = page.getByTestId('job-modal');
    await modal.getByText('Check Later!').waitFor();
    await modal
      .getByTestId('job-wait')
      .filter({ hasText: /^Next in line · / })
      .waitFor();
    await balance(page)
      .filter({ hasText: String(GRANT - 8) })
      .waitFor();
    const cancel = modal.getByRole('button', { name: /Cancel/ });
    const box = (await cancel.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    console.log(`screenshot: ${await screenshot(page, 'job-control-modal-390')}`);

    await cancel.click();
    await confirmation(page).getByRole('button', { name: 'Cancel job' }).click();
    // A loaded run (11) timed out here once: the evidence says what the page and the server had.
    await withEvidence(page, 'job-control-modal-cancel', () =>
      page.locator('[data-testid="job-modal"][data-phase="cancelled"]').waitFor(),
    );
    await modal.getByText(/2 credits were refunded\./).waitFor();
    await modal.getByRole('button', { name: /Run again/ }).waitFor();
    await balance(page)
      .filter({ hasText: String(GRANT - 6) })
      .waitFor();
    console.log(`screenshot: ${await screenshot(page, 'job-control-modal-cancelled-390')}`);
    await run.finish();
    await page.waitForFunction(
      async (id) => (await (await fetch(`/api/jobs/${id}`)).json()).content.state === 'succeeded',
      ahead._id,
    );
  });

  it('opens the tool pre-filled with Edit and run, and the buttons fit a 390 px phone', async () => {
    await page.goto(`${t.url}/jobs`);
    await historyRow(page, first._id)
      .getByRole('button', { name: /Edit and run/ })
      .waitFor();
    for (const name of [/Run again/, /Edit and run/]) {
      const box = (await historyRow(page, first._id).getByRole('button', { name }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    console.log(`screenshot: ${await screenshot(page, 'job-control-jobs-390')}`);
    await page.getByTestId('job-tray-toggle').click();
    await trayRow(page, second._id)
      .getByRole('button', { name: /Run again/ })
      .waitFor();
    for (const name of [/Run again/, /Edit and run/]) {
      const box = (await trayRow(page, second._id).getByRole('button', { name }).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
    console.log(`screenshot: ${await screenshot(page, 'job-control-tray-390')}`);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await trayRow(page, first._id)
      .getByRole('button', { name: /Edit and run/ })
      .click();
    await page.waitForURL(`${t.url}/superresolution?from=${first._id}`);
    await page
      .getByTestId('prefill-notice')
      .getByText(/Filled in from your job/)
      .waitFor();
    await page.getByTestId('image-preview').waitFor();
    expect(await page.getByRole('radio', { name: '2×' }).isChecked()).toBe(true);
    await page.getByTestId('sr-cost').getByText('80 × 80 px: 2 credits').waitFor();
    console.log(`screenshot: ${await screenshot(page, 'job-control-edit-390')}`);
  });

  it('cancels the rest of a bulk Magic Brush batch from its folder page: finished images stay, the rest is refunded', async () => {
    const made = await page.request.post(`${t.url}/api/makeFolder`, {
      data: { author: username, title: 'Bulk' },
    });
    const folderId = (await made.json()).content._id as string;
    await page.goto(`${t.url}/profile/bulkInpaints/${folderId}`);
    const before = (await (await page.request.get(`${t.url}/api/session`)).json()).content.balance as number;
    await balance(page)
      .filter({ hasText: String(before) })
      .waitFor();
    await startBulkOfThree(page, t.url, username, folderId);
    await (await inpaints.nextRun()).finish();
    await inpaints.nextRun(); // the second runs, the third waits
    const status = page.getByTestId('batch-status');
    await status.getByText('STATUS: Three: 1 of 3 done').waitFor();
    await balance(page)
      .filter({ hasText: String(before - 3) })
      .waitFor();

    // The first image's toast sits over the page's top on a phone.
    await dismissToasts(page);
    await status.getByRole('button', { name: /Cancel/ }).click();
    await confirmation(page)
      .getByText('The 2 images not made yet are dropped and 2 credits refunded. Finished images stay.')
      .waitFor();
    console.log(`screenshot: ${await screenshot(page, 'job-control-batch-cancel-390')}`);
    await confirmation(page).getByRole('button', { name: 'Cancel batch' }).click();
    await page.locator('.ant-notification-notice').filter({ hasText: '2 jobs cancelled' }).waitFor();
    await balance(page)
      .filter({ hasText: String(before - 1) })
      .waitFor();
    // The status line is gone and the finished image stays in the folder.
    await status.waitFor({ state: 'detached' });
    await page.getByTestId('content-item').waitFor();
    expect(await page.getByTestId('content-item').count()).toBe(1);
  });
});
