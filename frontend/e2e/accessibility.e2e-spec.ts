import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import type { AxeResults } from 'axe-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { COIN_PRODUCT_ID } from '@studio/contracts';
import {
  grantCredits,
  makeFolder,
  markEmailVerified,
  PASSWORD,
  signIn,
  uniqueName,
} from '../../backend/test/clients';
import { stripeTestConfig } from '../../backend/test/stripe';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { dismissToasts, FRONTEND_DIST, launchBrowser, logInAs } from './browser';

/** The rules the issue measured with: WCAG 2.0, 2.1 and 2.2, levels A and AA. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 },
  // The system's dark setting, which the app follows when nobody chose a mode.
  'desktop-dark': { viewport: { width: 1280, height: 800 }, colorScheme: 'dark' as const },
};
type Viewport = keyof typeof VIEWPORTS;
type Role = 'visitor' | 'user' | 'admin';

/**
 * The route table itself (routes.tsx), read as text: a route added there is checked here without
 * anyone remembering to list it. (Importing it would load every page into node.)
 */
function routeTable(): string[] {
  const source = readFileSync(join(__dirname, '../src/routes.tsx'), 'utf8');
  const children = source.slice(source.indexOf('export const routes'));
  const paths = [...children.matchAll(/\{ (?:index: true|path: '([^']*)'), element:/g)].map((m) =>
    m[1] === undefined ? '' : m[1],
  );
  // Every element of the table but the layout's must have been read: a route written another way fails here.
  const elements = children.match(/element:/g)?.length ?? 0;
  if (paths.length < 20 || paths.length !== elements - 1)
    throw new Error(
      `${paths.length} routes read from routes.tsx, ${elements - 1} there: has its form changed?`,
    );
  return paths;
}

/** Who sees the screen as it is meant to be seen. Tools and public pages also as a visitor. */
function rolesFor(path: string): Role[] {
  if (path.startsWith('admin/')) return ['admin'];
  if (['login', 'register', 'forgot-password', 'reset-password', 'verify-email', '*'].includes(path))
    return ['visitor'];
  if (['', 'superresolution', 'swap', 'swapvideo', 'magic', 'generate', 'report', 'appeal'].includes(path))
    return ['visitor', 'user'];
  return ['user'];
}

interface Ids {
  username: string;
  folder: string;
  checkout: string;
  paid: string;
  ageCheck: string;
}

/** A real value for each route parameter; a new parameter fails the test until it is added here. */
function fill(path: string, ids: Ids): string {
  if (path === '*') return '/no-such-page';
  const values: Record<string, string> = {
    username: ids.username,
    id: ids.folder,
    secret: 'not-a-patreon-secret',
    status: path.includes(':session') ? 'success' : 'canceled',
    session: path.startsWith('stripe/test-age-check')
      ? ids.ageCheck
      : path.startsWith('stripe/test-checkout')
        ? ids.checkout
        : ids.paid,
  };
  return `/${path.replace(/:(\w+)/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`route /${path}: the test does not know how to fill :${name}`);
    return encodeURIComponent(value);
  })}`;
}

interface Finding {
  route: string;
  role: Role;
  viewport: Viewport;
  rule: string;
  impact: string;
  targets: string[];
  /** What axe says of the first element (colours and ratio, the attribute...). */
  why: string;
}

/** Still loading or still moving: a spinner, a skeleton, an antd motion (opening animation). */
const BUSY = '.ant-spin-spinning, .ant-skeleton-active, [class*="-appear-active"], [class*="-enter-active"]';

/** The page's content is there: the routed page rendered, nothing still loading, fonts in. */
async function settle(page: Page, what: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.locator('.app-page > *').first().waitFor();
  await page
    .waitForFunction((busy) => !document.querySelector(busy) && document.fonts.status === 'loaded', BUSY)
    .catch(async (error: Error) => {
      const busy = await page.evaluate((sel) => document.querySelector(sel)?.outerHTML.slice(0, 300), BUSY);
      throw new Error(`${what}: ${error.message}; still busy: ${busy}`);
    });
  await dismissToasts(page);
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

async function runAxe(page: Page): Promise<AxeResults> {
  // axe-core's own script (the package lighthouse installs), run through the DevTools protocol:
  // the app's Content-Security-Policy rightly refuses an inline <script>, and stays on.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    (values) =>
      (window as unknown as { axe: typeof import('axe-core') }).axe.run(document, {
        runOnly: { type: 'tag', values },
        resultTypes: ['violations'],
      }),
    WCAG_TAGS,
  );
}

/** How many Tab presses a page gets at most: every control of the largest screens, bounded. */
const MAX_TABS = 60;

/**
 * WCAG 2.4.7 (focus visible), which axe does not check: presses Tab through the page and returns
 * the controls whose focus changed nothing on screen. What a control looks like is read from it,
 * its three nearest ancestors and its next sibling (antd draws a radio's or a checkbox's ring on the
 * element after its hidden input, an input's on its wrapper): outline, shadow, border, background,
 * text decoration and colour, at rest (before any key) and once focused, its transitions over.
 */
async function controlsWithoutVisibleFocus(page: Page): Promise<{ reached: number; unseen: string[] }> {
  await page.evaluate(() => {
    const props = [
      'outline-style',
      'outline-width',
      'outline-color',
      'box-shadow',
      'border-color',
      'background-color',
      'text-decoration-line',
      'color',
    ];
    const look = (el: Element) => {
      const nodes: Element[] = [el];
      for (let up = el.parentElement, i = 0; up && i < 3; up = up.parentElement, i += 1) nodes.push(up);
      if (el.nextElementSibling) nodes.push(el.nextElementSibling);
      return nodes
        .map((node) => {
          const style = getComputedStyle(node);
          return props.map((prop) => style.getPropertyValue(prop)).join('|');
        })
        .join('#');
    };
    const rest = new Map<Element, string>();
    for (const el of Array.from(document.querySelectorAll('*'))) rest.set(el, look(el));
    (window as unknown as { focusProbe: unknown }).focusProbe = { look, rest };
  });
  await page.locator('body').evaluate((body) => (body as HTMLElement).blur());
  const unseen: string[] = [];
  let reached = 0;
  for (let i = 0; i < MAX_TABS; i += 1) {
    await page.keyboard.press('Tab');
    const seen = await page.evaluate(async () => {
      const el = document.activeElement;
      if (!el || el === document.body) return null;
      const probe = (
        window as unknown as { focusProbe: { look(el: Element): string; rest: Map<Element, string> } }
      ).focusProbe;
      const label =
        el.getAttribute('aria-label') ||
        (el.textContent ?? '').trim().slice(0, 40) ||
        el.getAttribute('name') ||
        '';
      const id = `<${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className ? ` class="${el.className.slice(0, 60)}"` : ''}> ${label}`;
      // Back at a control already reached: the Tab order has come round.
      if (el.hasAttribute('data-tabbed')) return null;
      el.setAttribute('data-tabbed', '');
      const before = probe.rest.get(el);
      if (before === undefined) return { id, visible: true };
      // Some rings come a render later (rc-select marks itself focused after a 10 ms timer) and
      // then fade in (antd's 0.2 s transitions; spinners loop forever and are not waited for):
      // the look is read frame by frame, each time the finite animations are over, for 30 frames.
      for (let frame = 0; frame < 30; frame += 1) {
        await new Promise((resolve) => requestAnimationFrame(resolve));
        await Promise.all(
          document
            .getAnimations()
            .filter((a) => a.effect?.getTiming().iterations !== Infinity)
            .map((a) => a.finished.catch(() => undefined)),
        );
        if (probe.look(el) !== before) return { id, visible: true };
      }
      return { id, visible: false };
    });
    if (!seen) break;
    reached += 1;
    if (!seen.visible) unseen.push(seen.id);
  }
  return { reached, unseen };
}

function summary(checked: string[], findings: Finding[]): string {
  const failing = new Set(findings.map((f) => `${f.route} ${f.role} ${f.viewport}`));
  const byRule = new Map<string, { impact: string; elements: number; pages: Set<string> }>();
  for (const f of findings) {
    const row = byRule.get(f.rule) ?? { impact: f.impact, elements: 0, pages: new Set<string>() };
    row.elements += f.targets.length;
    row.pages.add(`${f.route} ${f.role} ${f.viewport}`);
    byRule.set(f.rule, row);
  }
  const lines = [
    `axe-core ${WCAG_TAGS.join(', ')}: ${checked.length} pages checked, ${failing.size} failing`,
    '',
    '| rule | impact | pages | elements |',
    '| --- | --- | ---: | ---: |',
    ...[...byRule].map(([rule, r]) => `| ${rule} | ${r.impact} | ${r.pages.size} | ${r.elements} |`),
    '',
    ...findings.map(
      (f) => `${f.route} (${f.role}, ${f.viewport}) ${f.rule}: ${f.targets.join(' ; ')} -- ${f.why}`,
    ),
  ];
  return lines.join('\n');
}

describe('accessibility: axe-core (WCAG 2.2 AA) on every route, for each role, on desktop and phone', () => {
  let t: TestApp;
  let browser: Browser;
  let user: Awaited<ReturnType<typeof signIn>>;
  let admin: Awaited<ReturnType<typeof signIn>>;
  let ids: Ids;
  const contexts = new Map<string, BrowserContext>();

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ...stripeTestConfig(), STRIPE_TEST_CHECKOUT: 'true' });
    browser = await launchBrowser();
    // A user with coins, a folder holding a result, a test checkout and an age check under way.
    user = await signIn(t, uniqueName('a11y'));
    await markEmailVerified(t, user.username);
    await grantCredits(t, user.username, 50);
    const folder = await makeFolder(user, 'Holiday portraits');
    const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#58a' } })
      .png()
      .toBuffer();
    const clone = await user.agent
      .post('/api/generateNoise')
      .field('author', user.username)
      .field('folder', folder)
      .attach('Clone0', image, 'a.png');
    expect(clone.status).toBe(200);
    // Two test checkouts: one still open (its test checkout page), one paid (its return page).
    const checkout = async () => {
      const res = await user.agent
        .post('/api/createCheckoutSession')
        .send({ coin_id: COIN_PRODUCT_ID, coin_amount: 1 });
      expect([res.status, res.body]).toEqual([200, expect.anything()]);
      return (res.body.content as string).split('/').pop()!;
    };
    const open = await checkout();
    const paid = await checkout();
    const pay = await user.agent.post(`/api/stripe/test-checkout/${paid}/pay`);
    expect([pay.status, pay.body]).toEqual([200, expect.anything()]);
    const ageCheck = await user.agent.post('/api/age-assurance/card');
    expect([ageCheck.status, ageCheck.body]).toEqual([200, expect.anything()]);
    ids = {
      username: user.username,
      folder,
      checkout: open,
      paid,
      ageCheck: (ageCheck.body.content as { sessionId: string }).sessionId,
    };

    admin = await signIn(t, uniqueName('keeper'));
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(admin.username))!.id, 'admin');
  }, 180_000);
  afterAll(async () => {
    for (const context of contexts.values()) await context.close();
    await browser?.close();
    await t?.close();
  });

  /** One browser context per role and viewport, logged in once. */
  async function pageFor(role: Role, viewport: Viewport): Promise<Page> {
    const key = `${role} ${viewport}`;
    let context = contexts.get(key);
    if (!context) {
      context = await browser.newContext(VIEWPORTS[viewport]);
      contexts.set(key, context);
      const page = await context.newPage();
      if (role !== 'visitor')
        await logInAs(page, t.url, role === 'admin' ? admin.username : user.username, PASSWORD);
    }
    return context.pages()[0];
  }

  it('finds no WCAG A/AA violation and no control without visible focus on any page', async () => {
    const checked: string[] = [];
    const findings: Finding[] = [];
    let tabbed = 0;
    for (const viewport of Object.keys(VIEWPORTS) as Viewport[]) {
      for (const path of routeTable()) {
        for (const role of rolesFor(path)) {
          const route = fill(path, ids);
          const page = await pageFor(role, viewport);
          await page.goto(`${t.url}${route}`);
          await settle(page, `${route} (${role}, ${viewport})`);
          const results = await runAxe(page);
          checked.push(`${route} ${role} ${viewport}`);
          // Keyboards are a desktop's: the focus check runs there, in the light theme.
          if (viewport === 'desktop') {
            const { reached, unseen } = await controlsWithoutVisibleFocus(page);
            tabbed += reached;
            if (unseen.length)
              findings.push({
                route,
                role,
                viewport,
                rule: 'focus-visible (own check)',
                impact: 'serious',
                targets: unseen,
                why: 'Tab reached these controls and nothing on screen changed',
              });
          }
          for (const v of results.violations)
            findings.push({
              route,
              role,
              viewport,
              rule: v.id,
              impact: v.impact ?? '',
              targets: v.nodes.map((n) => n.target.join(' ')),
              why: v.nodes[0]?.failureSummary?.replace(/\s+/g, ' ') ?? '',
            });
        }
      }
    }
    const table = `${summary(checked, findings)}\nfocus check (desktop): ${tabbed} controls reached with Tab`;
    console.log(table);
    const out = join(__dirname, '../../test-results');
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'accessibility.md'), `${table}\n`);
    expect(
      findings.map((f) => `${f.route} (${f.role}, ${f.viewport}) ${f.rule}: ${f.targets.join(' ; ')}`),
    ).toEqual([]);
  }, 1_200_000);
});
