import { join } from 'node:path';
import type { AdminStats } from '@studio/contracts';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AuditService } from '../../backend/src/modules/audit/audit.service';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import {
  confirmation,
  dismissToasts,
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  openedOptions,
  screenshot as fullPage,
  toast,
  waitUntil,
  watchSocket,
} from './browser';

const FIXTURES = join(__dirname, '../../libs/inference/fixtures');
const FACE = join(FIXTURES, 'ai-face.jpg');
const TARGET = join(FIXTURES, 'cgi-model-3.jpg');
const DOLLARS_PER_CREDIT = 0.05;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * A fixed-offset zone where it is now between 12:00 and 13:00, so no day, week or month ends
 * while the test runs. Etc/GMT-5 is UTC+5 (the sign is inverted by the IANA convention).
 */
function zoneNearNoon(now: Date): { zone: string; offsetHours: number } {
  const offsetHours = 12 - now.getUTCHours();
  if (offsetHours === 0) return { zone: 'UTC', offsetHours };
  return { zone: `Etc/GMT${offsetHours > 0 ? '-' : '+'}${Math.abs(offsetHours)}`, offsetHours };
}

/** The wall clock of an instant in a zone, in the admin table's format (YYYY-MM-DD HH:mm:ss). */
function wallClock(zone: string, at: Date): string {
  const parts: Record<string, string> = {};
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  for (const p of fmt.formatToParts(at)) parts[p.type] = p.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The calendar of the admin's zone: which of the four totals an instant counts in. */
function calendar(zone: string, now: Date) {
  const day = (at: Date) => wallClock(zone, at).slice(0, 10);
  const today = day(now);
  const [y, m, d] = today.split('-').map(Number);
  const civil = (offsetDays: number) =>
    new Date(Date.UTC(y, m - 1, d + offsetDays)).toISOString().slice(0, 10);
  const sinceMonday = (new Date(Date.UTC(y, m - 1, d)).getUTCDay() + 6) % 7;
  const monday = civil(-sinceMonday);
  return {
    today,
    /** The chart's label of today: DD-MM. */
    todayLabel: `${today.slice(8, 10)}-${today.slice(5, 7)}`,
    periods(at: Date) {
      const date = day(at);
      return {
        today: date === today,
        yesterday: date === civil(-1),
        week: date >= monday && date <= today,
        month: date.slice(0, 7) === today.slice(0, 7) && date <= today,
      };
    },
  };
}

type Period = 'today' | 'yesterday' | 'week' | 'month';
const PERIODS: Period[] = ['today', 'yesterday', 'week', 'month'];
const TITLES: Record<Period, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  week: 'Week',
  month: 'Month',
};

const dollars = (credits: number) => `$${(credits * DOLLARS_PER_CREDIT).toFixed(2)}`;

/** The credits and dollars one total card shows. */
async function totalShown(page: Page, period: Period) {
  const card = page.getByTestId(`total-${period}`);
  const values = card.locator('.ant-statistic-content-value');
  return {
    title: (await card.locator('.ant-statistic-title').first().textContent())?.trim(),
    credits: Number((await values.nth(0).textContent())!.replace(/,/g, '')),
    dollars: (await values.nth(1).textContent())!.trim(),
  };
}

async function waitForTotal(page: Page, period: Period, credits: number) {
  await page
    .getByTestId(`total-${period}`)
    .filter({ hasText: new RegExp(`^${TITLES[period]}${credits.toLocaleString('en-US')}credits`) })
    .waitFor();
}

const chartCard = (page: Page) => page.locator('.ant-card').filter({ hasText: 'Face swaps per day' });

/**
 * Hovers the chart's last point (today, at the right end of the line) and reads the tooltip: its
 * items by name, once its title is the expected day.
 */
async function chartPoint(page: Page, dayLabel: string) {
  const canvas = chartCard(page).locator('canvas').first();
  const box = (await canvas.boundingBox())!;
  const tooltip = page.locator('.g2-tooltip');
  const title = tooltip.locator('.g2-tooltip-title');
  await page.mouse.move(box.x + box.width / 2, box.y - 40);
  await title.waitFor({ state: 'hidden' });
  // In from the right edge until the tooltip shows: the plot ends some pixels before the canvas.
  for (let dx = 4; dx < 120 && !(await title.isVisible()); dx += 6) {
    await page.mouse.move(box.x + box.width - dx, box.y + box.height / 2);
    await page.waitForTimeout(120);
  }
  await title.filter({ hasText: new RegExp(`^\\s*${dayLabel}\\s*$`) }).waitFor({ timeout: 30_000 });
  await expectTooltipInsideChart(page);
  const items: Record<string, string> = {};
  for (const item of await tooltip.locator('.g2-tooltip-list-item').all()) {
    const name = (await item.locator('.g2-tooltip-list-item-name-label').textContent())!.trim();
    items[name] = (await item.locator('.g2-tooltip-list-item-value').textContent())!.trim();
  }
  return items;
}

/**
 * The tooltip of the right-most point stays inside the chart's card (it used to hang past the right
 * edge and widen the page), and the page gets no horizontal scroll.
 */
async function expectTooltipInsideChart(page: Page) {
  const tooltip = (await page.locator('.g2-tooltip').boundingBox())!;
  const card = (await chartCard(page).boundingBox())!;
  expect(tooltip.width).toBeGreaterThan(40);
  expect(tooltip.x).toBeGreaterThanOrEqual(card.x);
  expect(tooltip.x + tooltip.width).toBeLessThanOrEqual(card.x + card.width);
  expect(tooltip.y).toBeGreaterThanOrEqual(card.y);
  expect(tooltip.y + tooltip.height).toBeLessThanOrEqual(card.y + card.height);
  const widths = await page.evaluate(() => ({
    page: document.documentElement.scrollWidth,
    viewport: document.documentElement.clientWidth,
  }));
  expect(widths.page).toBe(widths.viewport);
}

/** Retries `read` until it gives `expected` (the page updates live), then asserts on the last read. */
async function eventuallyEqual<T>(read: () => Promise<T>, expected: T, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  // A read may also throw while the page redraws (a tooltip gone mid-hover): try again.
  const attempt = () => read().catch((err: unknown) => ({ failedRead: String(err) }) as T);
  let last = await attempt();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    last = await attempt();
  }
  expect(last).toEqual(expected);
}

/** The activity table's rows as text: category, username, date, message and whether a detail icon shows. */
async function tableRows(page: Page) {
  const rows = page.locator('.ant-table-tbody tr.ant-table-row');
  return rows.evaluateAll((trs) =>
    trs.map((tr) => {
      const cells = Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim() ?? '');
      return {
        category: cells[0],
        username: cells[1],
        date: cells[2],
        message: cells[3],
        detail: !!tr.querySelector('td:nth-child(5) button[aria-label="Show detail"]'),
      };
    }),
  );
}

/** Marks the document so a later check can tell it was never reloaded. */
const markDocument = (page: Page) =>
  page.evaluate(() => ((window as unknown as { __sameDocument: boolean }).__sameDocument = true));
const sameDocument = (page: Page) =>
  page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument === true);

/** A full-page screenshot from the top, so the sticky header sits where it belongs. */
async function screenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  return fullPage(page, name);
}

describe('admin console in the browser', () => {
  const adminName = uniqueName('admin');
  const adminPassword = 'admin-password-e2e';
  const startedAt = new Date();
  const { zone, offsetHours } = zoneNearNoon(startedAt);
  const cal = calendar(zone, startedAt);

  let t: TestApp;
  let browser: Browser;
  let adminContext: BrowserContext;
  let userContext: BrowserContext;
  let admin: Page;
  let user: Page;
  let userFrames: string[];
  const swapper = uniqueName('swapper');
  let folderId: string;
  let swapStarted: Date;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ADMIN_USERNAME: adminName, ADMIN_PASSWORD: adminPassword });
    browser = await launchBrowser();
    adminContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId: zone });
    userContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    admin = await adminContext.newPage();
    user = await userContext.newPage();
    userFrames = watchSocket(user).frames;
    await logInAs(admin, t.url, adminName, adminPassword);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function statsNow(): Promise<AdminStats> {
    const answer = await admin.request.get(`${t.url}/api/admin/stats?tz=${encodeURIComponent(zone)}`);
    expect(answer.status()).toBe(200);
    return (await answer.json()).content as AdminStats;
  }

  it('shows the chart, the four totals and the table from the seeded log', async () => {
    const before = await statsNow();
    const seeded = uniqueName('seed');
    // Noon in the admin's zone, `days` days before today (fixed offset: no DST in between).
    const [y, m, d] = cal.today.split('-').map(Number);
    const noon = (days: number) => new Date(Date.UTC(y, m - 1, d - days, 12) - offsetHours * HOUR);
    const entries = [
      {
        category: 'FaceSwap',
        message: 'Swapped 3 images.',
        swaps: 3,
        detail: 'Job seed-1 · cost 3',
        createdOn: new Date(Date.now() - 3 * 60_000),
      },
      {
        category: 'Credits',
        message: 'Spent 3 credits.',
        credits: 3,
        detail: 'Tool faceSwap · Job seed-1',
        createdOn: new Date(Date.now() - 2 * 60_000),
      },
      {
        category: 'Credits',
        message: 'Spent 4 credits.',
        credits: 4,
        createdOn: new Date(Date.now() - 60_000),
      },
      {
        category: 'Credits',
        message: 'Spent 5 credits.',
        credits: 5,
        detail: 'Tool clone',
        createdOn: noon(1),
      },
      { category: 'FaceSwap', message: 'Swapped 2 images.', swaps: 2, createdOn: noon(1) },
      { category: 'Credits', message: 'Spent 11 credits.', credits: 11, createdOn: noon(3) },
      { category: 'Credits', message: 'Spent 13 credits.', credits: 13, createdOn: noon(10) },
      { category: 'Credits', message: 'Spent 17 credits.', credits: 17, createdOn: noon(40) },
      {
        category: 'Account',
        message: 'Logged in.',
        detail: 'From 127.0.0.1',
        createdOn: new Date(Date.now() - 30 * DAY),
      },
    ];
    const audit = t.app.get(AuditService);
    for (const entry of entries) await audit.append({ ...entry, author: { username: seeded } });

    // What each total should gain, by the calendar of the zone.
    const gain: Record<Period, number> = { today: 0, yesterday: 0, week: 0, month: 0 };
    let swapsToday = 0;
    // The statistics sum the figures the server stores beside a spend or a swap, not the text.
    for (const entry of entries) {
      const periods = cal.periods(entry.createdOn);
      const figures = entry as { credits?: number; swaps?: number };
      for (const period of PERIODS) if (periods[period]) gain[period] += figures.credits ?? 0;
      if (periods.today) swapsToday += figures.swaps ?? 0;
    }
    expect(gain.today).toBe(7); // the three entries of the last minutes, whatever the date

    await admin.goto(`${t.url}/admin/logs`);
    const chart = chartCard(admin);
    await chart.locator('canvas').first().waitFor();
    for (const period of PERIODS) {
      const expected = before.totals[period].credits + gain[period];
      await waitForTotal(admin, period, expected);
      expect(await totalShown(admin, period)).toEqual({
        title: TITLES[period],
        credits: expected,
        dollars: dollars(expected),
      });
    }
    const todayBefore = before.faceSwapsPerDay.at(-1)!.faceSwaps;
    await eventuallyEqual(() => chartPoint(admin, cal.todayLabel), {
      FaceSwaps: String(todayBefore + swapsToday),
      Dollars: dollars(todayBefore + swapsToday),
    });
    // The right-most point's tooltip, inside the chart (checked by chartPoint).
    await fullPage(admin, 'admin-logs-tooltip');

    // The table, narrowed to the seeded user: newest first, dates in the admin's zone.
    await admin.getByLabel('Username', { exact: true }).fill(seeded);
    await admin.getByLabel('Username', { exact: true }).press('Enter');
    // The filtered page replaces the unfiltered one: wait until every row shown is the seeded user's.
    await eventuallyEqual(
      async () => (await tableRows(admin)).filter((row) => row.username === seeded).length,
      entries.length,
    );
    await eventuallyEqual(async () => (await tableRows(admin)).length, entries.length);
    const headers = await admin.locator('.ant-table-thead th').allTextContents();
    expect(headers.map((h) => h.trim())).toEqual(['Category', 'Username', 'Date', 'Message', 'Detail']);
    // Newest first; of two at the same instant, the one appended last (the server's _id order).
    const newestFirst = entries
      .map((entry, order) => ({ ...entry, order }))
      .sort((a, b) => b.createdOn.getTime() - a.createdOn.getTime() || b.order - a.order);
    expect(await tableRows(admin)).toEqual(
      newestFirst.map((entry) => ({
        category: entry.category,
        username: seeded,
        date: wallClock(zone, entry.createdOn),
        message: entry.message,
        detail: !!entry.detail,
      })),
    );
    await admin.getByRole('button', { name: 'Show detail' }).first().click();
    await admin.locator('.ant-popover').filter({ hasText: newestFirst[0].detail! }).waitFor();
    await screenshot(admin, 'admin-logs-seeded');
  });

  it("follows a user's face swap live: the new row on top, the chart and the totals", async () => {
    await register(t, swapper);
    await grantCredits(t, swapper, 10);
    await logInAs(user, t.url, swapper, PASSWORD);
    const made = await user.request.post(`${t.url}/api/makeFolder`, {
      data: { author: swapper, title: 'Swaps' },
    });
    folderId = (await made.json()).content._id as string;
    await user.goto(`${t.url}/swap`);
    await user.getByTestId('balance').filter({ hasText: '10' }).waitFor();

    await admin.goto(`${t.url}/admin/logs`);
    await chartCard(admin).locator('canvas').first().waitFor();
    const before = await statsNow();
    await waitForTotal(admin, 'today', before.totals.today.credits);
    await markDocument(admin);

    await user.getByRole('combobox').click();
    await user.getByTitle('Swaps').click();
    await user.getByLabel('Face Image').setInputFiles(FACE);
    await user.getByLabel('Target Image').setInputFiles(TARGET);
    await user.getByLabel('I have the consent of the person whose face I use').check();
    swapStarted = new Date();
    await user.getByRole('button', { name: /Swap$/ }).click();
    const row = user.getByTestId('tray-job').filter({ hasText: 'Face swap' });
    await row.and(user.locator('[data-state="succeeded"]')).waitFor({ timeout: 90_000 });
    await user.getByTestId('balance').filter({ hasText: '9' }).waitFor();

    // The admin's page, never reloaded: the row arrives on top (only the swapper's own entries
    // of the same job may be newer), then the totals and the chart follow.
    const swapRow = admin
      .locator('.ant-table-tbody tr.ant-table-row')
      .filter({ hasText: 'Swapped 1 image.' })
      .filter({ hasText: swapper });
    await swapRow.waitFor();
    const rows = await tableRows(admin);
    const at = rows.findIndex((r) => r.message === 'Swapped 1 image.' && r.username === swapper);
    expect(at).toBeLessThan(4);
    expect(rows.slice(0, at).every((r) => r.username === swapper)).toBe(true);
    expect(rows[at]).toMatchObject({ category: 'FaceSwap', detail: true });
    expect(rows[at].date.slice(0, 10)).toBe(cal.today);

    const spentToday = before.totals.today.credits + 1;
    await waitForTotal(admin, 'today', spentToday);
    expect((await totalShown(admin, 'today')).dollars).toBe(dollars(spentToday));
    await waitForTotal(admin, 'month', before.totals.month.credits + 1);
    const swapsToday = before.faceSwapsPerDay.at(-1)!.faceSwaps + 1;
    await eventuallyEqual(() => chartPoint(admin, cal.todayLabel), {
      FaceSwaps: String(swapsToday),
      Dollars: dollars(swapsToday),
    });
    expect(await sameDocument(admin)).toBe(true);
    await admin.mouse.move(0, 0);
    await screenshot(admin, 'admin-logs-live-swap');
  }, 150_000);

  it('reimburses the user on the support page; the header balance rises live', async () => {
    await markDocument(user);
    await admin.goto(`${t.url}/admin/support`);
    await admin.getByLabel('Find a user').fill(swapper.slice(0, 10));
    await admin.getByLabel('Find a user').press('Enter');
    await admin.getByTestId(`user-${swapper}`).click();
    await admin.getByTestId('user-balance').filter({ hasText: /^9$/ }).waitFor();
    const history = admin.locator('.ant-card').filter({ hasText: 'Credit history' });
    await history.locator('tr.ant-table-row').filter({ hasText: 'test grant' }).waitFor();
    await screenshot(admin, 'support-user-found');

    const form = admin.locator('form#reimburse');
    await form.getByLabel('Credits').fill('5');
    await form.getByLabel('Reason').fill('The swap came out blurry');
    await screenshot(admin, 'support-reimburse-form');
    // The user is told why, live (the push names the ledger entry's kind); the toast lasts 5 s, so
    // it is watched for from the click on.
    const told = toast(user, 'Support added 5 credits')
      .filter({ hasText: 'The swap came out blurry' })
      .waitFor();
    await form.getByRole('button', { name: 'Reimburse' }).click();
    await toast(admin, `Reimburse: 5 credits to ${swapper}`).waitFor();
    await told;
    await screenshot(user, 'user-reimbursed-toast');
    await admin.getByTestId('user-balance').filter({ hasText: /^14$/ }).waitFor();
    await history
      .locator('tr.ant-table-row')
      .filter({ hasText: 'The swap came out blurry' })
      .filter({ hasText: '+5' })
      .waitFor();
    await admin.getByTestId(`user-${swapper}`).filter({ hasText: '14 credits' }).waitFor();
    await history
      .locator('tr.ant-table-row')
      .filter({ hasText: 'reservation' })
      .filter({ hasText: 'Face swap' })
      .waitFor();
    await user.getByTestId('balance').filter({ hasText: /^14$/ }).waitFor();
    expect(await sameDocument(user)).toBe(true);
    await dismissToasts(user);
    if (await user.getByTestId('job-tray').isVisible()) await user.getByTestId('job-tray-toggle').click();
    await user.getByTestId('job-tray').waitFor({ state: 'detached' });
    await screenshot(user, 'user-balance-reimbursed');
    await dismissToasts(admin);

    // Bulk: everyone who spent on face swaps in the window, previewed, then paid.
    const bulk = admin.locator('form#bulkReimburse');
    await bulk.getByLabel('Tool').click();
    await openedOptions(admin)
      .locator('.ant-select-item-option')
      .filter({ hasText: /^Face swap$/ })
      .click();
    const from = wallClock(zone, new Date(swapStarted.getTime() - HOUR));
    const to = wallClock(zone, new Date(Date.now() + HOUR));
    const range = bulk.locator('.ant-picker-range input');
    await range.nth(0).click();
    await range.nth(0).fill(from);
    await range.nth(0).press('Enter');
    await range.nth(1).fill(to);
    await range.nth(1).press('Enter');
    await bulk.getByLabel('Reason').fill('Face swap outage');
    await bulk.getByRole('button', { name: 'Preview' }).click();
    const card = admin.locator('.ant-card').filter({ hasText: 'Reimburse a tool outage' });
    await card.getByTestId('bulk-total').waitFor();
    expect((await card.getByTestId('bulk-total').textContent())?.trim()).toBe('1 user, 1 credit in total');
    expect(
      await card
        .locator('tr.ant-table-row')
        .evaluateAll((trs) =>
          trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent?.trim())),
        ),
    ).toEqual([[swapper, '1']]);
    await card.getByRole('button', { name: 'Reimburse 1 user' }).click();
    const confirm = confirmation(admin).filter({ hasText: 'Reimburse everyone listed?' });
    await confirm.waitFor();
    await screenshot(admin, 'support-bulk-confirm');
    await confirm.getByRole('button', { name: 'Reimburse' }).click();
    await toast(admin, 'Reimbursed 1 credit to 1 user').waitFor();
    await user.getByTestId('balance').filter({ hasText: /^15$/ }).waitFor();
    expect(await sameDocument(user)).toBe(true);
  }, 60_000);

  it('sets maintenance notices on the operations page; the user sees them at once', async () => {
    await user.goto(`${t.url}/magic`);
    await user.getByText('Paint over what you want to change').waitFor();
    await markDocument(user);
    await admin.goto(`${t.url}/admin/operations`);
    const text = 'Magic Brush is slower than usual while we upgrade the servers.';
    await postNotice(admin, 'inpaint', 'Magic Brush', text);
    await user.getByTestId('tool-notices').filter({ hasText: text }).waitFor();
    expect(await sameDocument(user)).toBe(true);
    await dismissToasts(admin);
    await screenshot(admin, 'admin-operations');
    await screenshot(user, 'user-magic-notice');

    // Face swap: the user moves to its screen (same document), then the admins post its notice.
    await user.getByRole('navigation', { name: 'Tools' }).getByRole('link', { name: 'Face swap' }).click();
    await user.getByText('Put the face from one image onto the person in another.').waitFor();
    await expect(user.getByTestId('tool-notices').count()).resolves.toBe(0);
    const swapText = 'Face swaps take a few minutes longer today.';
    await postNotice(admin, 'faceSwap', 'Face swap', swapText);
    const shown = user.getByTestId('maintenance-notice').filter({ hasText: swapText });
    await shown.waitFor();
    // Only the Face swap notice: Magic Brush's stays on its own screen.
    await expect(user.getByTestId('maintenance-notice').allTextContents()).resolves.toEqual([swapText]);
    expect(await sameDocument(user)).toBe(true);
    await dismissToasts(admin);
    await screenshot(user, 'user-faceswap-notice');
  });

  it("takes content down from the operations page; the owner's folder updates live with a toast", async () => {
    await user.goto(`${t.url}/profile/bulkInpaints/${folderId}`);
    await user.getByTestId('content-item').first().waitFor();
    const contents = await (await user.request.get(`${t.url}/api/getBulkInpaints/${folderId}`)).json();
    const item = contents.content.inpaints[0] as { _id: string; url: string; title?: string };
    expect(item.url).toMatch(new RegExp(`^/api/content/${item._id}\\.\\w+$`));
    expect((await user.request.get(`${t.url}${item.url}`)).status()).toBe(200);
    const itemsBefore = await user.getByTestId('content-item').count();
    await markDocument(user);

    await admin.goto(`${t.url}/admin/operations`);
    const card = admin.getByTestId('takedown-card');
    const reason = 'The person in this picture asked us to remove it.';
    // The content URL as an admin copies it from the address bar.
    await card.getByLabel('Content URL or item id').fill(`${t.url}${item.url}`);
    await card.getByRole('radio', { name: 'Hide (keep the file)' }).check();
    await card.getByLabel('Reason').fill(reason);
    await card.getByRole('button', { name: 'Take down' }).click();
    const confirm = confirmation(admin).filter({ hasText: 'Take this item down?' });
    await confirm.filter({ hasText: `Item ${item._id}.` }).waitFor();
    await screenshot(admin, 'admin-takedown-confirm');
    await confirm.getByRole('button', { name: 'Take down' }).click();
    await toast(admin, `Taken down: ${item.title ?? 'No Title'}`).waitFor();
    await expect(card.getByLabel('Content URL or item id').inputValue()).resolves.toBe('');

    // The owner's folder, never reloaded: the item leaves the grid, the notice and a toast say why.
    await waitUntil(() => userFrames.some((f) => f.includes('"content.taken_down"') && f.includes(item._id)));
    const told = toast(user, `“${item.title ?? 'No Title'}” was hidden by our team`);
    await told.filter({ hasText: `Reason: ${reason}` }).waitFor();
    await user.getByTestId('takedown-notice').filter({ hasText: reason }).waitFor();
    await expect(user.getByTestId('content-item').count()).resolves.toBe(itemsBefore - 1);
    expect(await sameDocument(user)).toBe(true);
    expect((await user.request.get(`${t.url}${item.url}`)).status()).toBe(451);
    await screenshot(user, 'takedown-owner');
  });
});

/** Writes a tool's maintenance notice on the operations page, saves it and switches it on. */
async function postNotice(admin: Page, tool: string, label: string, text: string): Promise<void> {
  const notice = admin.getByTestId(`notice-${tool}`);
  // Each tool's example names that tool.
  await expect(notice.getByLabel(`${label} notice text`).getAttribute('placeholder')).resolves.toBe(
    `e.g. ${label} is slower than usual while we upgrade the servers.`,
  );
  await notice.getByLabel(`${label} notice text`).fill(text);
  await notice.getByRole('button', { name: 'Save' }).click();
  await toast(admin, `${label} notice saved`).waitFor();
  await notice.getByRole('switch', { name: `${label} notice on` }).click();
  await notice.getByText('Shown').waitFor();
}
