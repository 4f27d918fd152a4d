import { creditsToDollars, TOOL_PRICES, type AdminStats, type CreditTotal } from '@studio/contracts';

/** Days in the admin chart: 30 including today (spec section 9). */
export const CHART_DAYS = 30;

/** A calendar date (month 1..12) with no zone attached. */
interface CivilDate {
  year: number;
  month: number;
  day: number;
}

/** Throws RangeError for a name the runtime does not know as an IANA zone. */
export function zoneFormatter(timeZone: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
}

export function isTimeZone(timeZone: string): boolean {
  try {
    zoneFormatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall clock of `at` in the formatter's zone, as if it were UTC (ms, whole seconds). */
function wallClock(fmt: Intl.DateTimeFormat, at: number): number {
  const p: Record<string, number> = {};
  for (const part of fmt.formatToParts(at)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's offset from UTC at an instant, in ms (Berlin in summer: +7,200,000). */
export function zoneOffset(fmt: Intl.DateTimeFormat, at: number): number {
  return wallClock(fmt, Math.floor(at / 1000) * 1000) - Math.floor(at / 1000) * 1000;
}

export function civilDateAt(fmt: Intl.DateTimeFormat, at: number): CivilDate {
  const d = new Date(wallClock(fmt, at));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** The date `days` after (or before) a calendar date. */
function addDays(date: CivilDate, days: number): CivilDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/**
 * The first instant of a calendar date in the zone. Computed per day, so a DST change between two
 * days moves only the days after it; where midnight itself is skipped the day starts at the jump.
 */
export function startOfDay(fmt: Intl.DateTimeFormat, date: CivilDate): number {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  let at = midnight - zoneOffset(fmt, midnight);
  at = midnight - zoneOffset(fmt, at);
  const wall = wallClock(fmt, at);
  // Midnight does not exist that day (clocks jumped over it): start at the first instant that is the day.
  if (wall < midnight) at += midnight - wall;
  return at;
}

function isoDate(date: CivilDate): string {
  return `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/** Day boundaries in a zone around `now`: the chart's 30 days and the four totals' periods. */
export interface StatsWindow {
  timeZone: string;
  /** Day starts (ms), oldest first, from the earliest day needed up to and including tomorrow. */
  starts: number[];
  /** 'YYYY-MM-DD' of each day in `starts` but the last. */
  dates: string[];
  /** Indexes into `starts` of today, the chart's first day, Monday and the 1st of the month. */
  today: number;
  chartFirst: number;
  weekFirst: number;
  monthFirst: number;
}

export function statsWindow(timeZone: string, now: Date): StatsWindow {
  const fmt = zoneFormatter(timeZone);
  const today = civilDateAt(fmt, now.getTime());
  const weekday = new Date(Date.UTC(today.year, today.month - 1, today.day)).getUTCDay(); // 0 = Sunday
  const sinceMonday = (weekday + 6) % 7;
  const sinceFirst = today.day - 1;
  const back = Math.max(CHART_DAYS - 1, sinceMonday, sinceFirst);
  const days: CivilDate[] = [];
  for (let k = back; k >= -1; k -= 1) days.push(addDays(today, -k));
  return {
    timeZone,
    starts: days.map((d) => startOfDay(fmt, d)),
    dates: days.slice(0, -1).map(isoDate),
    today: back,
    chartFirst: back - (CHART_DAYS - 1),
    weekFirst: back - sinceMonday,
    monthFirst: back - sinceFirst,
  };
}

/** Index of the day holding `at` (starts[i] <= at < starts[i + 1]), or -1 outside the window. */
export function dayIndex(starts: number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  if (at < starts[0] || at >= starts[hi]) return -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (starts[mid] <= at) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * The figures a log entry carries, written only by system code from the event that charged or
 * made the images (a ledger capture, a finished face swap job). Nothing a user writes (folder or
 * batch names, messages) is ever read as a figure.
 */
export interface EntryFigures {
  /** Credits spent: set only on the entry of a ledger capture. */
  credits?: number;
  /** Images face-swapped: set only on the entry of a finished face swap job. */
  swaps?: number;
}

/** A counted log row, reduced to what the statistics read. */
export interface StatsRow extends EntryFigures {
  createdOn: Date;
}

/** What one log line adds to the statistics: credits spent and images face-swapped. */
export interface Contribution {
  credits: number;
  swaps: number;
}

/** A figure as stored: a positive whole number counts, anything else (absent, 0, junk) does not. */
function figure(value: unknown): number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0;
}

export function contributionOf(row: EntryFigures): Contribution {
  return { credits: figure(row.credits), swaps: figure(row.swaps) };
}

/** Credits spent and images swapped per day of the window (indexes as in `window.dates`). */
export interface DailyTotals {
  credits: number[];
  swaps: number[];
}

export function emptyDailyTotals(window: StatsWindow): DailyTotals {
  const n = window.dates.length;
  return { credits: new Array<number>(n).fill(0), swaps: new Array<number>(n).fill(0) };
}

/** Adds a contribution made at instant `at` to its day; instants outside the window are ignored. */
export function addAt(window: StatsWindow, totals: DailyTotals, at: number, add: Contribution): void {
  const i = dayIndex(window.starts, at);
  if (i < 0) return;
  totals.credits[i] += add.credits;
  totals.swaps[i] += add.swaps;
}

/** Per-day totals straight from log rows. */
export function dailyTotalsOf(window: StatsWindow, rows: Iterable<StatsRow>): DailyTotals {
  const totals = emptyDailyTotals(window);
  for (const row of rows) addAt(window, totals, new Date(row.createdOn).getTime(), contributionOf(row));
  return totals;
}

/** The totals and the chart, in the contract's shape, from per-day totals. */
export function summarize(window: StatsWindow, { credits, swaps }: DailyTotals): AdminStats {
  const total = (from: number, to: number): CreditTotal => {
    let sum = 0;
    for (let i = from; i <= to; i += 1) sum += credits[i];
    return { credits: sum, dollars: creditsToDollars(sum) };
  };
  const faceSwapsPerDay: AdminStats['faceSwapsPerDay'] = [];
  for (let i = window.chartFirst; i <= window.today; i += 1) {
    const date = window.dates[i];
    faceSwapsPerDay.push({
      day: `${date.slice(8, 10)}-${date.slice(5, 7)}`,
      date,
      faceSwaps: swaps[i],
      dollars: creditsToDollars(swaps[i] * TOOL_PRICES.faceSwap),
    });
  }
  return {
    timeZone: window.timeZone,
    totals: {
      today: total(window.today, window.today),
      yesterday: total(window.today - 1, window.today - 1),
      week: total(window.weekFirst, window.today),
      month: total(window.monthFirst, window.today),
    },
    faceSwapsPerDay,
  };
}

/** Per-day credits spent and images swapped, then the totals and the chart. */
export function buildStats(window: StatsWindow, rows: Iterable<StatsRow>): AdminStats {
  return summarize(window, dailyTotalsOf(window, rows));
}
