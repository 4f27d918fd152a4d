import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  grantCredits,
  makeFolder,
  PASSWORD,
  signIn,
  uniqueName,
  type Client,
} from '../../backend/test/clients';
import { gatedInpaint } from '../../backend/test/gated-engine';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { EngineRegistry } from '../../backend/src/modules/engines';
import {
  cloneOnceInBrowser,
  confirmation,
  controlsUnderToasts,
  dismissToasts,
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  markUncoveredControls,
  screenshot,
  squarePng,
  startBulkOfThree,
  toast,
} from './browser';

/** The phone of issue 39: 390 x 844 CSS pixels, touch. */
const PHONE = { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 1 };

/**
 * A phone user's toasts and job tray (issue 39): no toast lies over a control the user could press
 * before it came (after a validation error, or when a job ends, on every tool page and in the
 * dialogs), the Account page fits the width, and the tray's Cancel → "Cancel batch" cancels.
 */
describe('on a phone: toasts cover no control, the Account page fits, the tray cancels a batch', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let user: Client;
  let folderId: string;
  let inpaints: ReturnType<typeof gatedInpaint>;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    const registry = t.app.get(EngineRegistry);
    inpaints = gatedInpaint(registry.engineFor('inpaint')!);
    registry.override('inpaint', inpaints.engine);
    browser = await launchBrowser();
    user = await signIn(t, uniqueName('phone'));
    await grantCredits(t, user.username, 200);
    folderId = await makeFolder(user, 'Bulk');
    context = await browser.newContext({ viewport: PHONE, ...PHONE });
    page = await context.newPage();
    await logInAs(page, t.url, user.username, PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A clone made through the API: its end brings the "Clones ready" toast to whatever page is open. */
  const cloneInBackground = async () => {
    const res = await page.request.post(`${t.url}/api/generateNoise`, {
      multipart: {
        author: user.username,
        amount: '1',
        original: { name: 'a.png', mimeType: 'image/png', buffer: await squarePng(32, '#5a8') },
      },
    });
    expect(res.status()).toBe(200);
  };

  const settle = async (path: string) => {
    await page.goto(`${t.url}${path}`);
    await page.waitForLoadState('networkidle');
    await page.locator('.app-page').first().waitFor();
    await dismissToasts(page);
  };

  const pages: [string, string][] = [
    ['clone', '/'],
    ['super-resolution', '/superresolution'],
    ['face-swap', '/swap'],
    ['magic-brush', '/magic'],
    ['generate', '/generate'],
    ['video-swap', '/swapvideo'],
    ['bulk-inpaint-folder', ''],
    ['account', '/account'],
  ];

  it.each(pages)(
    "a job's end on the %s page: its toast covers no control",
    async (label, path) => {
      await settle(path || `/profile/bulkInpaints/${folderId}`);
      expect(await markUncoveredControls(page)).toBeGreaterThan(0);
      await cloneInBackground();
      await toast(page, 'Clones ready').waitFor({ timeout: 90_000 });
      const covered = await controlsUnderToasts(page);
      await screenshot(page, `phone-toast-${label}`);
      expect(covered).toEqual([]);
      await dismissToasts(page);
      // A cold app's first jobs wait for its workers to start on a busy machine.
    },
    150_000,
  );

  it("a tool's own job end in its dialog: the toast covers neither Compare nor Run again", async () => {
    await settle('/');
    await cloneOnceInBrowser(page, {
      name: 'face.png',
      mimeType: 'image/png',
      buffer: await squarePng(48, '#a58'),
    });
    await markUncoveredControls(page);
    await toast(page, 'Clones ready').waitFor({ timeout: 90_000 });
    const covered = await controlsUnderToasts(page);
    await screenshot(page, 'phone-toast-clone-dialog');
    expect(covered).toEqual([]);
    await page.keyboard.press('Escape');
    await dismissToasts(page);
  }, 300_000);

  it('a validation error on Change password covers no control', async () => {
    await settle('/account');
    await page.getByLabel('Current password').fill('not-my-password-1');
    await page.getByLabel('New password', { exact: true }).fill('amber-river-castle-42');
    await page.getByLabel('Repeat the new password').fill('amber-river-castle-42');
    const save = page.getByRole('button', { name: /Change password/ });
    // The button low on the screen (the form scrolled up to it), where a floating toast would land
    // (a phone's toast sat at the bottom, above the Jobs button).
    await save.evaluate((el) => {
      const box = el.getBoundingClientRect();
      const target = innerHeight - 140;
      window.scrollBy({ top: box.top + box.height / 2 - target, behavior: 'instant' as ScrollBehavior });
    });
    await markUncoveredControls(page);
    // Sent from the keyboard: a click would first scroll the button to the middle of the screen.
    await page.getByLabel('Repeat the new password').press('Enter');
    await page.locator('.ant-notification-notice-error').waitFor();
    const covered = await controlsUnderToasts(page);
    await screenshot(page, 'phone-toast-change-password');
    expect(covered).toEqual([]);
    await dismissToasts(page);
  });

  it('a validation error on Register covers no control (the Register button stays free)', async () => {
    // The phone with its on-screen keyboard open, as while filling the form: the keyboard takes
    // the lower part of the screen, so the page's visible height is about 500 px (at 844 the whole
    // form fits and the button cannot be brought low), and the form is sent with the keyboard's Go
    // key (a click would first scroll the button to the middle of the screen).
    const keyboardOpen = { ...PHONE, height: 500 };
    const visitor = await browser.newContext({ viewport: keyboardOpen, ...keyboardOpen });
    const guest = await visitor.newPage();
    try {
      await guest.goto(`${t.url}/register`);
      await guest.getByLabel('Username').fill(user.username); // taken
      await guest.getByLabel('Email').fill(`${uniqueName('other')}@example.com`);
      await guest.getByText('I confirm that I am 18 or older').click();
      const password = guest.getByLabel('Password');
      await password.fill('amber-river-castle-42');
      const register = guest.getByRole('button', { name: 'Register' });
      // The button low on the screen, just above the keyboard, where a floating toast lands.
      await register.evaluate((el) => {
        const box = el.getBoundingClientRect();
        const target = innerHeight - 110;
        window.scrollBy({ top: box.top + box.height / 2 - target, behavior: 'instant' as ScrollBehavior });
      });
      await markUncoveredControls(guest);
      await password.press('Enter');
      await guest.locator('.ant-notification-notice-error').waitFor();
      const covered = await controlsUnderToasts(guest);
      await screenshot(guest, 'phone-toast-register');
      expect(covered).toEqual([]);
      // The button is pressed again without closing the toast first.
      await register.click({ timeout: 5_000 });
    } finally {
      await visitor.close();
    }
  });

  it('the Account page is no wider than the phone (sessions included)', async () => {
    // Another session with a desktop browser's long device name, as a user signed in on a laptop
    // too has: its row carries the device, both times and a Log out button.
    const desktop = await browser.newContext({
      userAgent:
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
    });
    try {
      const login = await desktop.request.post(`${t.url}/api/login`, {
        data: { username: user.username, password: PASSWORD },
      });
      expect(login.status()).toBe(200);
      await settle('/account');
      await page.getByText('This device').first().waitFor();
      await page
        .getByRole('button', { name: /Log out/ })
        .first()
        .waitFor();
    } finally {
      await desktop.close();
    }
    // A phone's browser widens its layout to content that does not fit (and zooms out), so the
    // page is measured against the phone's own width, not the window's.
    const widths = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      layout: window.innerWidth,
    }));
    await screenshot(page, 'phone-account');
    expect(widths).toEqual({ page: PHONE.width, layout: PHONE.width });
  });

  it("the tray's Cancel → Cancel batch cancels the rest of a bulk batch and refunds it", async () => {
    await settle(`/profile/${user.username}`);
    const balanceOf = async () =>
      (await (await page.request.get(`${t.url}/api/session`)).json()).content.balance as number;
    const before = await balanceOf();
    await startBulkOfThree(page, t.url, user.username, folderId);
    (await inpaints.nextRun()).finish();
    await inpaints.nextRun(); // the second runs, the third waits
    await toast(page, 'Magic Brush ready').waitFor();
    await dismissToasts(page);

    await page.getByTestId('job-tray-toggle').click();
    const batch = page.getByTestId('tray-batch');
    await batch.getByText(/1 of 3 done/).waitFor();
    const cancelled = page.waitForResponse((r) => /\/api\/jobs\/batches\/[^/]+\/cancel$/.test(r.url()));
    await batch.getByTestId('cancel-batch').click();
    const confirm = confirmation(page);
    await confirm.getByRole('button', { name: 'Cancel batch' }).click();
    expect((await cancelled).status()).toBe(200);
    await toast(page, '2 jobs cancelled').waitFor();
    expect(await balanceOf()).toBe(before - 1);

    // The tray stayed open; the ended batch says what happened: one made, two cancelled.
    const ended = page.locator('[data-testid="tray-batch"][data-state="succeeded"]');
    await ended.getByText('1 of 3 done · 2 cancelled, refunded').waitFor();
    await screenshot(page, 'phone-tray-batch-cancelled');
  });
});
