#!/usr/bin/env node
// Lighthouse (the npm package) on / and /profile of a running app, in Debian's chromium:
//   npm run lighthouse -w @studio/frontend                       # against npm start on :3000
//   node frontend/scripts/lighthouse.mjs --base http://127.0.0.1:4000 [--json] [--paths /,/profile]
// It registers a throwaway user and audits /profile logged in as a returning visitor is (session
// cookie and the remembered account name in localStorage). Desktop preset (lighthouse's own
// desktop config: no mobile emulation, desktop-class network and CPU), scores 0..100.
import { randomBytes } from 'node:crypto';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer from 'puppeteer-core';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';

const args = process.argv.slice(2);
const option = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const base = (option('base') ?? process.env.LIGHTHOUSE_BASE ?? 'http://localhost:3000').replace(/\/$/, '');
const asJson = args.includes('--json');

/** A new user and their session cookie (register, then log in), for the logged-in routes. */
async function newSession() {
  const username = `lh${randomBytes(5).toString('hex')}`;
  const password = randomBytes(12).toString('base64url');
  const post = (path, body) =>
    fetch(`${base}/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const registered = await post('register', {
    email: `${username}@example.com`,
    username,
    password,
    adult: true,
  });
  if (!registered.ok) throw new Error(`register: ${registered.status} ${await registered.text()}`);
  const login = await post('login', { username, password });
  if (!login.ok) throw new Error(`login: ${login.status} ${await login.text()}`);
  const cookies = login.headers.getSetCookie().map((cookie) => {
    const [name, ...value] = cookie.split(';')[0].split('=');
    return { name, value: value.join('='), url: base };
  });
  return { username, cookies };
}

const KEY_METRICS = [
  'first-contentful-paint',
  'largest-contentful-paint',
  'total-blocking-time',
  'cumulative-layout-shift',
];

/**
 * A run Lighthouse itself could not record (a runtime error such as NO_NAVSTART, its trace missing
 * the navigation: chromium under load) says nothing about the page; it is run again, in a fresh
 * tab, up to twice. A page that scores low is not retried.
 */
async function audit(browser, path, session) {
  for (let attempt = 1; ; attempt += 1) {
    const result = await auditOnce(browser, path, session);
    if (!result.error || attempt === 3) return result;
    process.stderr.write(`lighthouse ${path}: ${result.error}; running it again\n`);
  }
}

/** One route in a fresh tab; logged in: the session's cookies and remembered name set first. */
async function auditOnce(browser, path, session) {
  const page = await browser.newPage();
  if (session) {
    await browser.setCookie(...session.cookies);
    await page.goto(`${base}/`);
    await page.evaluate((username) => {
      localStorage.setItem('account', username);
      localStorage.setItem('verified', 'false');
    }, session.username);
  }
  const result = await lighthouse(
    `${base}${path}`,
    {
      output: 'json',
      logLevel: 'error',
      onlyCategories: ['performance', 'accessibility'],
      // Keeps the login just set (the cache is still cleared: a first load of the route).
      disableStorageReset: !!session,
    },
    desktopConfig,
    page,
  );
  await page.close();
  const { categories, audits } = result.lhr;
  const requests = audits['network-requests'].details?.items ?? [];
  const failing = (category) =>
    categories[category].auditRefs
      .map((ref) => audits[ref.id])
      .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode !== 'informative')
      .map((a) => {
        const where = (a.details?.items ?? [])
          .slice(0, 4)
          .map((item) =>
            `${item.node?.selector ?? ''} ${item.node?.explanation?.split('\n')[1] ?? ''}`.trim(),
          );
        return [`${a.id}: ${a.title}`, ...where.map((w) => `  at ${w}`)].join('\n');
      });
  return {
    path,
    // Where the audit ended: a logged-out redirect would show here.
    finalPath: new URL(result.lhr.finalDisplayedUrl).pathname,
    performance: Math.round(categories.performance.score * 100),
    accessibility: Math.round(categories.accessibility.score * 100),
    metrics: Object.fromEntries(KEY_METRICS.map((id) => [id, audits[id].displayValue])),
    accessibilityIssues: failing('accessibility'),
    // What the page is made of, the same on a busy machine as on a quiet one (the test's part):
    // bytes over the wire, what blocks the first render, and how much the layout moves.
    bytes: requests.reduce((sum, r) => sum + (r.transferSize ?? 0), 0),
    requests: requests.length,
    renderBlocking: renderBlockingUrls(result.artifacts.Trace, base),
    layoutShift: audits['cumulative-layout-shift'].numericValue,
    // Timings (the bench's part): milliseconds, and the score made of them.
    timings: Object.fromEntries(
      KEY_METRICS.slice(0, 3).map((id) => [id, Math.round(audits[id].numericValue)]),
    ),
    ...(result.lhr.runtimeError ? { error: result.lhr.runtimeError.message } : {}),
  };
}

/**
 * The requests Chromium itself marked render-blocking when it sent them (a stylesheet or a classic
 * script in <head>): read from the markup, not from a timing estimate (Lighthouse's own
 * render-blocking audit only lists those that cost it 50 ms or more). Paths on this site.
 */
function renderBlockingUrls(trace, base) {
  const urls = trace.traceEvents
    .filter((e) => e.name === 'ResourceSendRequest' && e.args?.data?.renderBlocking === 'blocking')
    .map((e) => e.args.data.url);
  return [...new Set(urls)].map((url) => (url.startsWith(base) ? url.slice(base.length) : url));
}

// Routes audited logged in; `--paths` picks others (the bench audits a bare page as its baseline).
const LOGGED_IN = new Set(['/profile']);
const paths = (option('paths') ?? '/,/profile').split(',');
const session = paths.some((path) => LOGGED_IN.has(path)) ? await newSession() : undefined;
const chrome = await chromeLauncher.launch({
  chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
try {
  const results = [];
  for (const path of paths)
    results.push(await audit(browser, path, LOGGED_IN.has(path) ? session : undefined));
  if (asJson) {
    process.stdout.write(`${JSON.stringify(results)}\n`);
  } else {
    for (const r of results) {
      console.log(`${r.path.padEnd(10)} performance ${r.performance}  accessibility ${r.accessibility}`);
      console.log(
        `           ${Object.entries(r.metrics)
          .map(([k, v]) => `${k} ${v}`)
          .join(' · ')}`,
      );
      console.log(
        `           ${r.bytes} bytes in ${r.requests} requests · layout shift ${r.layoutShift} · ` +
          `render-blocking: ${r.renderBlocking.join(', ') || 'none'}`,
      );
      for (const issue of r.accessibilityIssues) console.log(`           a11y: ${issue}`);
    }
  }
} finally {
  await browser.disconnect();
  chrome.kill();
}
