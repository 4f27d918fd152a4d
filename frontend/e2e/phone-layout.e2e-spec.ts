import sharp from 'sharp';
import request from 'supertest';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { grantCredits, makeFolder, PASSWORD, signIn, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { dismissToasts, FRONTEND_DIST, launchBrowser, logInAs, openedOptions, screenshot } from './browser';

/** The phone of the issue: 390 x 844 CSS pixels, touch. */
const PHONE = { width: 390, height: 844 };

interface LayoutProblem {
  kind: 'covered' | 'overflow' | 'under-jobs-button' | 'cut-off';
  what: string;
  by?: string;
}

/**
 * Runs in the page. Three checks of what a phone user meets:
 * - sideways overflow: the document wider than the screen;
 * - covered: each visible control, scrolled to the middle of the screen (as a user would bring
 *   it), is what `elementFromPoint` finds at its centre, not something on top of it;
 * - under the Jobs button: scrolled to the very bottom (where nothing can move out from under it),
 *   no text, image or control lies under the floating Jobs button;
 * - cut off: text truncated with an ellipsis (a title does not count: a phone has no hover).
 */
function findLayoutProblems(): LayoutProblem[] {
  const problems: LayoutProblem[] = [];
  const name = (el: Element | null): string => {
    if (!el) return 'nothing';
    const label =
      el.getAttribute('aria-label') ||
      el.getAttribute('data-testid') ||
      (el.textContent ?? '').trim().slice(0, 40) ||
      el.getAttribute('placeholder') ||
      '';
    return `<${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? ` class="${el.className.slice(0, 60)}"` : ''}> ${label}`;
  };
  const visible = (el: Element) => {
    const rect = el.getBoundingClientRect();
    if (rect.width < 1 || rect.height < 1) return false;
    for (let node: Element | null = el; node; node = node.parentElement) {
      const style = getComputedStyle(node);
      if (style.visibility === 'hidden' || style.display === 'none' || Number(style.opacity) === 0)
        return false;
    }
    return true;
  };

  const doc = document.documentElement;
  if (doc.scrollWidth > window.innerWidth + 1) {
    const wide = Array.from(document.body.querySelectorAll('*')).find((el) => {
      const rect = el.getBoundingClientRect();
      return rect.right > window.innerWidth + 1 && visible(el) && getComputedStyle(el).position !== 'fixed';
    });
    problems.push({ kind: 'overflow', what: `page ${doc.scrollWidth}px wide`, by: name(wide ?? null) });
  }

  const jobsButton = document.querySelector('[data-testid="job-tray-toggle"]');
  const inOverlay = (el: Element) =>
    !!el.closest('.ant-notification, .ant-message, [data-testid="job-tray"]');
  const controls = Array.from(
    document.querySelectorAll(
      'button, a[href], input:not([type="hidden"]), select, textarea, [role="button"], [role="tab"], [role="switch"], [role="checkbox"], [role="radio"], [role="slider"], [role="combobox"], [tabindex]:not([tabindex="-1"])',
    ),
  ).filter((el) => visible(el) && !inOverlay(el));

  for (const el of controls) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' as ScrollBehavior });
    const rect = el.getBoundingClientRect();
    const x = Math.min(Math.max(rect.left + rect.width / 2, 0), window.innerWidth - 1);
    const y = Math.min(Math.max(rect.top + rect.height / 2, 0), window.innerHeight - 1);
    const hit = document.elementFromPoint(x, y);
    if (!hit || el === hit || el.contains(hit) || hit.contains(el)) continue;
    // antd draws some inputs under their own face (a select's chosen value over its search box).
    const widget = el.closest('.ant-select, .ant-picker, .ant-input-number, .ant-segmented, .ant-upload');
    if (widget && widget.contains(hit)) continue;
    // A label drawn over its own (visually hidden) input is that input's face.
    const labels = (el as HTMLInputElement).labels;
    if (labels && Array.from(labels).some((label) => label.contains(hit))) continue;
    problems.push({ kind: 'covered', what: name(el), by: name(hit) });
  }

  if (jobsButton && visible(jobsButton)) {
    window.scrollTo({ top: doc.scrollHeight, behavior: 'instant' as ScrollBehavior });
    const button = jobsButton.getBoundingClientRect();
    const content = Array.from(
      document.querySelectorAll(
        'label, h1, h2, h3, h4, h5, p, img, video, canvas, button, a[href], input, textarea, .ant-typography, .ant-form-item-label, .ant-tag',
      ),
    ).filter((el) => visible(el) && !jobsButton.contains(el) && !inOverlay(el));
    for (const el of content) {
      const r = el.getBoundingClientRect();
      const overlaps =
        r.left < button.right && r.right > button.left && r.top < button.bottom && r.bottom > button.top;
      if (overlaps) problems.push({ kind: 'under-jobs-button', what: name(el) });
    }
  }

  for (const el of Array.from(document.body.querySelectorAll('*'))) {
    const style = getComputedStyle(el);
    if (style.textOverflow !== 'ellipsis' || !visible(el) || inOverlay(el)) continue;
    if (el.scrollWidth <= el.clientWidth + 1) continue;
    problems.push({ kind: 'cut-off', what: name(el) });
  }
  window.scrollTo({ top: 0, behavior: 'instant' as ScrollBehavior });
  return problems;
}

describe('phone layout at 390x844: nothing covered, nothing wider than the screen', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let username: string;
  let folderId: string;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
    // An admin with a folder holding a result: the user pages and the admin pages have content.
    const user = await signIn(t, uniqueName('phone'));
    username = user.username;
    await grantCredits(t, username, 50);
    await t.app
      .get(AccountsRepository)
      .setRole((await t.app.get(AccountsRepository).findByUsername(username))!.id, 'admin');
    folderId = await makeFolder(user, 'A folder with a rather long name to see how it wraps');
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#58a' } })
      .png()
      .toBuffer();
    const clone = await user.agent
      .post('/api/generateNoise')
      .field('author', username)
      .field('folder', folderId)
      .attach('Clone0', image, 'a.png');
    expect(clone.status).toBe(200);
    // An open report naming a copy on the web: the staff's reports table has a row to lay out.
    const filed = await request(t.url)
      .post('/api/reports')
      .field('category', 'intimate_without_consent')
      .field('reporterRole', 'depicted')
      .field('name', 'Jane Reporter')
      .field('email', 'jane@example.com')
      .field('explanation', 'This picture shows me without my consent.')
      .field('goodFaith', 'true')
      .field('signature', 'Jane Reporter')
      .field('url', 'https://elsewhere.example/a/rather/long/address/of/the/copy.jpg');
    expect(filed.status).toBe(201);

    context = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 1,
    });
    page = await context.newPage();
    await logInAs(page, t.url, username, PASSWORD);
  }, 180_000);
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await t?.close();
  });

  const pages: [string, () => string][] = [
    ['clone', () => '/'],
    ['super-resolution', () => '/superresolution'],
    ['face-swap', () => '/swap'],
    ['magic-brush', () => '/magic'],
    ['generate', () => '/generate'],
    ['video-swap', () => '/swapvideo'],
    ['profile', () => `/profile/${username}`],
    ['folder', () => `/profile/bulkInpaints/${folderId}`],
    ['credits', () => '/credits'],
    ['jobs', () => '/jobs'],
    ['account', () => '/account'],
    ['refill', () => '/profile/refill'],
    ['admin-logs', () => '/admin/logs'],
    ['admin-support', () => '/admin/support'],
    ['admin-operations', () => '/admin/operations'],
    ['admin-reports', () => '/admin/reports'],
  ];

  it.each(pages)(
    '%s',
    async (label, path) => {
      await page.goto(`${t.url}${path()}`);
      await page.waitForLoadState('networkidle');
      await page.locator('.app-page').first().waitFor();
      await page
        .waitForFunction(() => !document.querySelector('.ant-spin-spinning, .ant-skeleton-active'), null, {
          timeout: 15_000,
        })
        .catch(() => undefined);
      if (label === 'generate') {
        // The longest tags of two choosers: they must wrap, not end in "…".
        for (const [chooser, tag] of [
          ['Clothing', 'one-piece swimsuit'],
          ['Ethnicity', 'Native American'],
        ]) {
          await page
            .locator('.tag-chooser', { has: page.getByText(chooser, { exact: true }) })
            .locator('.ant-select-selector')
            .click();
          await openedOptions(page)
            .locator('.ant-select-item-option')
            .filter({ hasText: tag })
            .first()
            .click();
        }
      }
      await dismissToasts(page);
      await screenshot(page, `phone-${label}`);
      const problems = await page.evaluate(findLayoutProblems);
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
