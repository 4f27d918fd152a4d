import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import {
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  openedMenu,
  screenshot as fullPage,
  SCREENSHOTS,
  toast,
} from './browser';

const PORTRAIT = join(__dirname, '../../libs/inference/fixtures/cgi-model-3.jpg'); // 939x1280 → 751x1024
const HEADER_HEIGHT = 64;

/** A full-page screenshot from the top, so the sticky header sits where it belongs. */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  return fullPage(page, `experience-${name}`);
}

/** Every API answer with this status the page received. */
function recordApiStatus(page: Page, status: number): string[] {
  const seen: string[] = [];
  page.on('response', (response) => {
    if (response.status() === status && response.url().includes('/api/')) seen.push(response.url());
  });
  return seen;
}

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
const themeOf = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);
const bodyBackground = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.querySelector('.app-shell')!).backgroundColor);

describe('messages, phones and dark mode in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  afterEach(() => context?.close());

  async function open(viewport: { width: number; height: number }) {
    context = await browser.newContext({ viewport });
    page = await context.newPage();
  }

  async function newUser(credits: number): Promise<string> {
    const username = uniqueName('viewer');
    await register(t, username);
    if (credits > 0) await grantCredits(t, username, credits);
    return username;
  }

  it.each(['/magic', '/swap', '/swapvideo', '/generate'])(
    'logged out, %s says "You need to be logged in" on the login page and asks the API nothing that 401s',
    async (path) => {
      await open({ width: 1280, height: 800 });
      const unauthorized = recordApiStatus(page, 401);
      await page.goto(`${t.url}${path}`);
      await page.waitForURL(`${t.url}/login`);
      await toast(page, 'You need to be logged in').waitFor();
      await page.getByRole('button', { name: 'Log In' }).waitFor();
      await screenshot(page, `logged-out${path.replace('/', '-')}`);
      await page.waitForLoadState('networkidle');
      expect(unauthorized).toEqual([]);
      await expect(toast(page, 'You need to be logged in').count()).resolves.toBe(1);
    },
  );

  it('logged out, the other account screens redirect without a 401 either', async () => {
    await open({ width: 1280, height: 800 });
    const unauthorized = recordApiStatus(page, 401);
    for (const path of ['/superresolution', '/profile/refill', '/stripe/success/cs_test', '/profile']) {
      await page.goto(`${t.url}${path}`);
      await page.waitForURL((url) => url.pathname !== path);
      await page.waitForLoadState('networkidle');
    }
    expect(unauthorized).toEqual([]);
  });

  it('at 390 px every screen fits the width, with the balance written 5,000,000', async () => {
    await open({ width: 390, height: 844 });
    await page.goto(`${t.url}/login`);
    await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(390);
    await screenshot(page, '390-login');

    const username = await newUser(5_000_000);
    await logInAs(page, t.url, username, PASSWORD);
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('5,000,000');

    for (const [path, ready] of [
      ['/', 'Image to clone'],
      ['/swap', 'Face Image'],
      ['/magic', 'Image to inpaint'],
      ['/generate', null],
      ['/profile', null],
    ] as const) {
      await page.goto(`${t.url}${path}`);
      if (ready) await page.getByLabel(ready).waitFor({ state: 'attached' });
      await page.getByTestId('balance').filter({ hasText: '5,000,000' }).waitFor();
      await page.waitForLoadState('networkidle');
      await screenshot(page, `390${path === '/' ? '-home' : path.replace('/', '-')}`);
      expect({ path, width: await pageWidth(page) }).toEqual({ path, width: 390 });
    }
    // The tool tabs scroll inside the page: the last one is reachable, the page stays 390 wide.
    await page.goto(`${t.url}/magic`);
    await page.getByRole('link', { name: /Video swap/ }).scrollIntoViewIfNeeded();
    await expect(pageWidth(page)).resolves.toBe(390);
  });

  it('follows a dark system setting, and a toggled choice is kept for that user across reloads', async () => {
    await open({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    const username = await newUser(10);
    await logInAs(page, t.url, username, PASSWORD);
    await page.goto(`${t.url}/swap`);
    await page.getByLabel('Face Image').waitFor({ state: 'attached' });
    await expect(themeOf(page)).resolves.toBe('dark');
    const dark = await bodyBackground(page);
    await screenshot(page, 'dark-swap');

    await page.getByTestId('theme-toggle').click();
    await expect(themeOf(page)).resolves.toBe('light');
    const light = await bodyBackground(page);
    expect(light).not.toBe(dark);
    await page.reload();
    await page.getByLabel('Face Image').waitFor({ state: 'attached' });
    await expect(themeOf(page)).resolves.toBe('light');
    await expect(bodyBackground(page)).resolves.toBe(light);
    await screenshot(page, 'dark-toggled-light');

    // The choice belongs to that user: another one in the same browser follows the system.
    const other = await newUser(0);
    await page.getByTestId('account-menu').click();
    await openedMenu(page).getByRole('menuitem', { name: 'Log out' }).click();
    await logInAs(page, t.url, other, PASSWORD);
    await expect(themeOf(page)).resolves.toBe('dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'light');
  });

  it('fits a portrait image on the Magic Brush canvas into a 900 px tall window', async () => {
    await open({ width: 1280, height: 900 });
    const username = await newUser(10);
    await logInAs(page, t.url, username, PASSWORD);
    await page.goto(`${t.url}/magic`);
    await page.getByLabel('Image to inpaint').setInputFiles(PORTRAIT);
    const canvas = page.getByTestId('mask-canvas');
    await canvas.waitFor();
    await expect(canvas.getAttribute('height')).resolves.toBe('1024');
    const viewport = page.locator('.mask-viewport');
    await viewport.scrollIntoViewIfNeeded();
    const fit = await viewport.evaluate((element) => ({
      height: element.getBoundingClientRect().height,
      scrolls: element.scrollHeight > element.clientHeight,
    }));
    expect(fit.scrolls).toBe(false);
    expect(fit.height).toBeLessThanOrEqual(900 - HEADER_HEIGHT);
    await canvas.evaluate((element) => element.scrollIntoView({ block: 'end' }));
    // The window as seen (not the full page): the canvas fits it.
    await page.screenshot({ path: join(SCREENSHOTS, 'experience-magic-portrait.png') });
  });
});
