import { mkdirSync } from 'node:fs';
import Redis from 'ioredis';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Messages } from '@studio/contracts';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { gatedSuperResolution, type GatedRun } from '../../backend/test/gated-engine';
import { startPrivateRedis, type PrivateService } from '../../backend/test/private-services';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { EngineRegistry } from '../../backend/src/modules/engines';
import {
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  screenshot,
  waitUntil,
  watchSocket,
  withEvidence,
  type Watch,
} from './browser';

/** Screenshots of the banner also go where the reviewers look for them. */
const SHOTS = process.env.OUTAGE_SHOTS_DIR;

/**
 * Issue 53, the browser's side: the app's own Redis is killed (SIGKILL) and started again. A tab
 * open through it shows one calm banner (no toast per failed request), sends a submission once and
 * keeps the form; a tab opened on a phone during the outage fills in by itself once Redis is back;
 * the banner goes by itself; a job finished after the return reaches both tabs over their sockets.
 */
describe('the studio while Redis is down, in the browser', () => {
  let redis: PrivateService;
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let desk: Page;
  let deskSocket: Watch;
  let phone: Page;
  let gated: ReturnType<typeof gatedSuperResolution>;
  const username = uniqueName('outage');
  const runs: GatedRun[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    // Every write reaches the disk before its answer: the login session and the queued job must
    // outlive the SIGKILL, as they would on a Redis that fails over.
    const admin = new Redis(redis.url);
    await admin.config('SET', 'appendfsync', 'always');
    await admin.quit();
    t = await startTestApp({
      FRONTEND_DIST,
      REDIS_URL: redis.url,
      JOB_CONCURRENCY_SUPER_RESOLUTION: '1',
      JOB_WAIT_MS: '0',
    });
    const registry = t.app.get(EngineRegistry);
    gated = gatedSuperResolution(registry.engineFor('clone')!);
    registry.override('superResolution', gated.engine);
    browser = await launchBrowser();
    await register(t, username);
    await grantCredits(t, username, 100);
    context = await browser.newContext({ viewport: { width: 1366, height: 800 } });
    desk = await context.newPage();
    deskSocket = watchSocket(desk);
    await logInAs(desk, t.url, username, PASSWORD);
  }, 120_000);

  afterAll(async () => {
    // A test that failed during the outage leaves Redis down: the app closes on a Redis that answers.
    if (redis && redis.pid === undefined) await redis.restart().catch(() => undefined);
    // Runs a stalled-job check may have started again end too, so the app closes.
    for (const run of runs) await run.finish().catch(() => undefined);
    await browser?.close();
    await t?.close();
    await redis?.stop();
  });

  /** Counts, in the page, each time the banner line is put up and each error toast. */
  const watchPage = (page: Page) =>
    page.evaluate(() => {
      const seen = { banners: 0, errorToasts: 0 };
      (window as unknown as { outageSeen: typeof seen }).outageSeen = seen;
      new MutationObserver((records) => {
        for (const record of records)
          record.addedNodes.forEach((node) => {
            if (!(node instanceof HTMLElement)) return;
            if (node.matches('[data-testid="studio-banner"] .ant-alert')) seen.banners += 1;
            if (
              node.matches('.ant-notification-notice-error') ||
              node.querySelector('.ant-notification-notice-error')
            )
              seen.errorToasts += 1;
          });
      }).observe(document.body, { childList: true, subtree: true });
    });
  const seenOn = (page: Page) =>
    page.evaluate(
      () => (window as unknown as { outageSeen: { banners: number; errorToasts: number } }).outageSeen,
    );

  const banner = (page: Page) => page.getByTestId('studio-banner');

  /** Controls in the window whose centre the banner lies on (none: it takes room, it does not float). */
  const controlsUnderBanner = (page: Page) =>
    page.evaluate(() => {
      const strip = document.querySelector('[data-testid="studio-banner"]');
      const covered: string[] = [];
      for (const el of Array.from(
        document.querySelectorAll<HTMLElement>(
          'button, a[href], input:not([type="hidden"]), [role="button"]',
        ),
      )) {
        if (strip?.contains(el)) continue;
        const r = el.getBoundingClientRect();
        const x = r.left + r.width / 2;
        const y = r.top + r.height / 2;
        if (r.width < 1 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
        if (strip?.contains(document.elementFromPoint(x, y))) covered.push(el.outerHTML.slice(0, 80));
      }
      return covered;
    });

  const shoot = async (page: Page, name: string) => {
    await screenshot(page, name);
    if (SHOTS) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: `${SHOTS}/${name}.png` });
    }
  };

  it('shows one banner, sends a submission once and keeps its form, then fills in and hears the job end', async () => {
    // A job running on the gated engine before the fault, followed by the tray.
    await desk.goto(`${t.url}/superresolution`);
    const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
    await desk
      .getByLabel('Image to upscale')
      .setInputFiles({ name: 'in.png', mimeType: 'image/png', buffer: image });
    await desk.getByTestId('image-preview').waitFor();
    await desk.getByRole('button', { name: /Super Resolution/ }).click();
    runs.push(await gated.nextRun());
    await desk.locator('[data-testid="tray-job"][data-state="running"]').waitFor();
    const modal = desk.getByTestId('job-modal');
    await modal.getByText('Check Later!').waitFor();
    await modal.click();
    await modal.waitFor({ state: 'detached' });
    await watchPage(desk);

    await redis.kill();

    // A second submission while it is down: sent once, refused at once, no toast, the form kept.
    const posts: string[] = [];
    desk.on('request', (r) => {
      if (r.method() === 'POST' && r.url().includes('/api/')) posts.push(r.url());
    });
    await desk.getByRole('button', { name: /Super Resolution/ }).click();
    await withEvidence(desk, 'outage-banner-desktop', () =>
      banner(desk).getByText(Messages.briefOutage).waitFor({ timeout: 30_000 }),
    );
    await expect(banner(desk).getAttribute('role')).resolves.toBe('status');
    await expect(banner(desk).getAttribute('aria-live')).resolves.toBe('polite');
    await desk.getByTestId('job-modal').waitFor({ state: 'detached' });
    await desk.getByTestId('image-preview').waitFor();
    await expect(desk.getByRole('button', { name: /Super Resolution/ }).isEnabled()).resolves.toBe(true);
    expect(posts.filter((url) => url.endsWith('/api/superResolution'))).toHaveLength(1);
    await expect(controlsUnderBanner(desk)).resolves.toEqual([]);
    await shoot(desk, 'outage-banner-desktop');

    // A phone opens the credit history while it is down: the page itself loads, its data waits.
    phone = await context.newPage();
    await phone.setViewportSize({ width: 390, height: 844 });
    await phone.goto(`${t.url}/credits`);
    await watchPage(phone);
    await withEvidence(phone, 'outage-banner-phone', () =>
      banner(phone).getByText(Messages.briefOutage).waitFor({ timeout: 30_000 }),
    );
    const box = (await banner(phone).boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(box.y + box.height).toBeLessThanOrEqual(844);
    await expect(controlsUnderBanner(phone)).resolves.toEqual([]);
    await shoot(phone, 'outage-banner-phone');

    await redis.restart();

    // Back: the banner goes by itself and the phone's page fills in, without a reload.
    for (const page of [desk, phone]) {
      await withEvidence(page, 'outage-banner-gone', () =>
        banner(page).locator('.ant-alert').waitFor({ state: 'detached', timeout: 60_000 }),
      );
    }
    await withEvidence(phone, 'outage-credits-filled', () =>
      phone.locator('.ant-table-tbody tr').filter({ hasText: '100' }).first().waitFor({ timeout: 60_000 }),
    );
    await phone.getByTestId('balance').waitFor();
    await shoot(phone, 'outage-back-phone');

    // The job ends after the return: its push reaches the tab that stayed open through the outage.
    // A run the stalled-job check started again (its lock lapsed while Redis was away) ends too.
    let finishing = true;
    void (async () => {
      while (finishing) {
        const run = runs.shift() ?? (await gated.nextRun());
        if (finishing) await run.finish();
        else runs.push(run);
      }
    })();
    try {
      await withEvidence(desk, 'outage-job-done', () =>
        desk.locator('[data-testid="tray-job"][data-state="succeeded"]').waitFor({ timeout: 90_000 }),
      );
    } finally {
      finishing = false;
    }
    // Told over the socket, not found by a re-read.
    await waitUntil(() => deskSocket.frames.some((frame) => frame.includes('"job.completed"')));
    await shoot(desk, 'outage-back-desktop');

    // One banner for the whole outage, and not one error toast, on either tab.
    expect(await seenOn(desk)).toEqual({ banners: 1, errorToasts: 0 });
    expect((await seenOn(phone)).errorToasts).toBe(0);
  }, 300_000);
});
