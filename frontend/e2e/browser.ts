import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import sharp from 'sharp';

/** Debian's chromium, driven by playwright-core (no browser download). */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

export const SCREENSHOTS = join(__dirname, '../../test-results/screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Runs a wait in the browser; when it fails, its error also says what the page showed (a
 * screenshot, the job dialog's phase and text, open dialogs and toasts) and the account's latest
 * jobs as the server has them, so a failure on a busy machine tells what happened, not only that
 * the wait ran out.
 */
export async function withEvidence<T>(page: Page, name: string, wait: () => Promise<T>): Promise<T> {
  try {
    return await wait();
  } catch (error) {
    const evidence = await page
      .evaluate(async () => {
        const text = (el: Element | null) =>
          (el?.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 300);
        const modal = document.querySelector('[data-testid="job-modal"]');
        const jobs: unknown = await fetch('/api/jobs', { credentials: 'include' })
          .then((res) => res.json())
          .then((body: { content?: Record<string, unknown>[] }) =>
            Array.isArray(body.content)
              ? body.content.slice(0, 5).map((job) => ({
                  _id: job._id,
                  state: job.state,
                  progress: job.progress,
                  error: job.error,
                  held: job.held,
                }))
              : body,
          )
          .catch((err: unknown) => String(err));
        return {
          path: location.pathname,
          jobModal: modal && { phase: modal.getAttribute('data-phase'), text: text(modal) },
          dialogs: Array.from(document.querySelectorAll('.ant-modal-wrap:not([style*="display: none"])')).map(
            text,
          ),
          toasts: Array.from(document.querySelectorAll('.ant-notification-notice')).map(text),
          jobs,
          at: new Date().toISOString(),
        };
      })
      .catch((err: unknown) => `the page could not be read: ${String(err)}`);
    const shot = await screenshot(page, `${name}-failed`).catch(() => 'no screenshot');
    if (error instanceof Error) {
      // Jest prints the stack, whose first lines are the message as it was when thrown.
      const message = error.message;
      error.message += `\nWhat the page showed (${shot}): ${JSON.stringify(evidence, null, 1)}`;
      error.stack = error.stack?.replace(message, error.message);
    }
    throw error;
  }
}

/**
 * An antd overlay (popover, modal, dropdown menu, select list) once its opening motion is over. While it opens its root has
 * motion classes (`ant-zoom-big-appear`, `ant-zoom-enter-active`...), and on a busy machine the
 * zoom can wait paused on its first frame: Playwright then finds the button still, clicks where it
 * is, and the click is lost when the zoom moves it (loaded runs lost a Bulk, a Generate Clones and
 * a Cancel job so, and the account menu's Log out). Clicks inside a just-opened overlay go through this.
 */
const AT_REST = ':not([class*="-appear"]):not([class*="-enter"]):not([class*="-leave"])';

/** The open confirmation (antd Popconfirm), at rest. */
export function confirmation(page: Page): Locator {
  return page.locator(`.ant-popconfirm:not(.ant-popover-hidden)${AT_REST}`);
}

/** The open dropdown menu (antd Dropdown, such as the account menu), at rest. */
export function openedMenu(page: Page): Locator {
  return page.locator(`.ant-dropdown:not(.ant-dropdown-hidden)${AT_REST}`);
}

/** The open option list of a select (antd Select), at rest. */
export function openedOptions(page: Page): Locator {
  return page.locator(`.ant-select-dropdown:not(.ant-select-dropdown-hidden)${AT_REST}`);
}

/** Waits until a just-opened dialog (its `role="dialog"` element, antd's .ant-modal) has finished opening. */
export async function openedDialog(dialog: Locator): Promise<Locator> {
  await dialog.and(dialog.page().locator(`.ant-modal${AT_REST}`)).waitFor();
  return dialog;
}

/** The toast (antd notification, top right) with this text. */
export function toast(page: Page, text: string) {
  return page.locator('.ant-notification-notice').filter({ hasText: text });
}

/** The built client the test apps serve; TEST_FRONTEND_DIST points a run at another build (an older one, to see a test fail on the code before its fix). */
export const FRONTEND_DIST = process.env.TEST_FRONTEND_DIST ?? join(__dirname, '../dist');

/** Logs in through the login screen and waits for the confirmation toast. */
export async function logInAs(
  page: Page,
  baseUrl: string,
  username: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log In' }).click();
  await toast(page, 'Logged in!').waitFor();
  await dismissToasts(page);
}

/** Registers through the register screen and waits to land on the login screen. */
export async function registerInBrowser(
  page: Page,
  baseUrl: string,
  username: string,
  password: string,
): Promise<void> {
  await page.goto(`${baseUrl}/register`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Email').fill(`${username}@example.com`);
  await page.getByLabel('Password').fill(password);
  await page.getByText('I confirm that I am 18 or older').click();
  await page.getByRole('button', { name: 'Register' }).click();
  await toast(page, 'Registered!').waitFor();
  await page.waitForURL(`${baseUrl}/login`);
}

/** Stripe's hosted checkout page is outside this machine: the page answers it locally. */
export function fakeStripeCheckout(page: Page): Promise<void> {
  return page.route('https://checkout.stripe.com/**', (route) =>
    route.fulfill({ contentType: 'text/html', body: '<h1>Stripe Checkout</h1>' }),
  );
}

/**
 * Closes the open toasts, and any that arrive meanwhile (a live push may add one), until none is
 * left: they sit under the header's right side for 5 s.
 */
export async function dismissToasts(page: Page): Promise<void> {
  const notices = page.locator('.ant-notification-notice');
  const deadline = Date.now() + 15_000;
  while ((await notices.count()) > 0 && Date.now() < deadline) {
    for (const close of await page.locator('.ant-notification-notice-close').all()) {
      await close.click({ timeout: 2_000 }).catch(() => undefined);
    }
    await notices
      .first()
      .waitFor({ state: 'detached', timeout: 500 })
      .catch(() => undefined);
  }
  await expect(notices.count()).resolves.toBe(0);
}

/** What the page saw: socket frames, and how many times the server said the socket joined. */
export interface Watch {
  frames: string[];
  readies(): number;
}

export function watchSocket(page: Page): Watch {
  const frames: string[] = [];
  // Socket.IO starts on HTTP long-polling and upgrades to a WebSocket: read both.
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => frames.push(String(payload))));
  page.on('response', (response) => {
    if (!response.url().includes('/socket.io/') || response.request().method() !== 'GET') return;
    void response
      .text()
      .then((text) => frames.push(...text.split('\x1e')))
      .catch(() => undefined);
  });
  return { frames, readies: () => frames.filter((f) => f.includes('"session.ready"')).length };
}

/** Polls until the check passes; the bound only ends a test that would never pass (wide: a busy machine is slow). */
export async function waitUntil(check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** An element's box once it has stopped moving (an opening animation over): two reads agree. */
export async function settledBox(locator: Locator, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let box = await locator.boundingBox();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const next = await locator.boundingBox();
    if (box && JSON.stringify(next) === JSON.stringify(box)) return box;
    if (Date.now() > deadline) throw new Error('the element did not come to rest in time');
    box = next;
  }
}

/**
 * Marks (data-uncovered) each enabled control the user can press now: visible in the window and
 * found at its own centre (nothing on top of it). Run before what brings a toast.
 */
export function markUncoveredControls(page: Page): Promise<number> {
  return page.evaluate(() => {
    const controls = document.querySelectorAll<HTMLElement>(
      'button:not([disabled]), a[href], input:not([type="hidden"]):not([disabled]), textarea:not([disabled]), [role="button"], [role="radio"], [role="checkbox"], [role="switch"], [role="combobox"], [role="tab"]',
    );
    let marked = 0;
    for (const el of Array.from(controls)) {
      el.removeAttribute('data-uncovered');
      if (el.closest('.ant-notification')) continue;
      const rect = el.getBoundingClientRect();
      const x = rect.left + rect.width / 2;
      const y = rect.top + rect.height / 2;
      if (rect.width < 1 || x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
      const hit = document.elementFromPoint(x, y);
      if (!hit || !(hit === el || el.contains(hit) || hit.contains(el) || el.closest('label')?.contains(hit)))
        continue;
      el.setAttribute('data-uncovered', '');
      marked += 1;
    }
    return marked;
  });
}

/**
 * The controls marked by markUncoveredControls that a toast now lies on: their centre, where it is
 * still in the window, hits a toast. Run once the toast is shown.
 */
export function controlsUnderToasts(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const covered: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('[data-uncovered]'))) {
      const rect = el.getBoundingClientRect();
      const x = rect.left + rect.width / 2;
      const y = rect.top + rect.height / 2;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
      const hit = document.elementFromPoint(x, y);
      if (hit?.closest('.ant-notification') && !el.closest('.ant-notification')) {
        const label = el.getAttribute('aria-label') || (el.textContent ?? '').trim().slice(0, 40);
        const notice = hit.closest('.ant-notification-notice') ?? hit;
        const by = `${(notice.textContent ?? '').trim().slice(0, 30)} at y ${Math.round(notice.getBoundingClientRect().top)}`;
        const r = notice.getBoundingClientRect();
        covered.push(
          `<${el.tagName.toLowerCase()}> ${label} (${Math.round(x)}, ${Math.round(y)}) under "${by}" [${hit.tagName}.${String(hit.className).slice(0, 50)} box ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}x${Math.round(r.height)}; scrollY ${Math.round(scrollY)}, innerWidth ${innerWidth}]`,
        );
      }
    }
    return covered;
  });
}

/** Makes one clone of `file` through the Clone screen (open): its dialog, then the job modal's Success!. */
export async function cloneOnceInBrowser(page: Page, file: Parameters<Locator['setInputFiles']>[0]) {
  await page.getByLabel('Image to clone').setInputFiles(file);
  await page.getByTestId('image-preview').waitFor();
  await page.getByRole('button', { name: /Clone/ }).click();
  const ask = await openedDialog(page.getByRole('dialog', { name: 'Create new clones' }));
  await ask.getByLabel('Amount').fill('1');
  await ask.getByRole('button', { name: 'Generate Clones' }).click();
  const modal = page.getByTestId('job-modal');
  // 'Check Later!' first when the job outlasts the request's wait (a cold engine on a busy
  // machine); the dialog then shows the result when the job ends.
  await withEvidence(page, 'clone-once', () => modal.getByText('Success!').waitFor({ timeout: 150_000 }));
  return modal;
}

/** A plain square PNG of one colour. */
export function squarePng(size: number, background: string): Promise<Buffer> {
  return sharp({ create: { width: size, height: size, channels: 3, background } })
    .png()
    .toBuffer();
}

/** Starts a bulk Magic Brush batch "Three" of three images in `folderId`, as the page's session. */
export async function startBulkOfThree(page: Page, baseUrl: string, author: string, folderId: string) {
  const res = await page.request.post(`${baseUrl}/api/bulkInpaintImage`, {
    multipart: {
      author,
      prompt: 'freckles',
      amount: '3',
      folder: folderId,
      inpaintName: 'Three',
      original: { name: 'a.png', mimeType: 'image/png', buffer: await squarePng(48, '#a86') },
      mask: { name: 'mask.png', mimeType: 'image/png', buffer: await squarePng(48, '#fff') },
    },
  });
  expect(res.status()).toBe(200);
}
