import type { AdminStats, LogEntry, LogPage, UserSummary } from '@studio/contracts';
import { browserTimeZone } from '../admin/format';
import type { FakeAnswer } from './fetchMock';

/** Shapes the admin and support console reads, as the server would send them. */
let counter = 0;

export function logEntry(overrides: Partial<LogEntry> = {}): LogEntry {
  counter += 1;
  return {
    _id: `log${counter}`,
    category: 'FaceSwap',
    author: { username: 'alice' },
    createdOn: new Date(Date.UTC(2026, 10, 21, 9, 0, counter % 60)).toISOString(),
    message: `Swapped ${counter} images for 2 credits.`,
    ...overrides,
  };
}

export function logPageAnswer(items: LogEntry[], page: Partial<Omit<LogPage, 'items'>> = {}): FakeAnswer {
  return {
    status: 200,
    body: { message: 'success', content: { items, pageSize: 50, next: null, ...page } },
  };
}

/** Thirty days oldest first, each with n face swaps on day n (1..30). */
export function adminStats(overrides: Partial<AdminStats> = {}): AdminStats {
  const faceSwapsPerDay = Array.from({ length: 30 }, (_, i) => {
    const date = new Date(Date.UTC(2026, 9, 23 + i));
    const day = `${String(date.getUTCDate()).padStart(2, '0')}-${String(date.getUTCMonth() + 1).padStart(2, '0')}`;
    return { day, date: date.toISOString().slice(0, 10), faceSwaps: i + 1, dollars: (i + 1) * 0.05 };
  });
  return {
    timeZone: browserTimeZone(),
    totals: {
      today: { credits: 12, dollars: 0.6 },
      yesterday: { credits: 40, dollars: 2 },
      week: { credits: 140, dollars: 7 },
      month: { credits: 1234, dollars: 61.7 },
    },
    faceSwapsPerDay,
    ...overrides,
  };
}

export function statsAnswer(stats: AdminStats = adminStats()): FakeAnswer {
  return { status: 200, body: { message: 'success', content: stats } };
}

/** "GET /api/admin/stats?tz=..." for the browser's zone. */
export function statsKey(): string {
  return `GET /api/admin/stats?tz=${encodeURIComponent(browserTimeZone())}`;
}

const LOG_QUERY_ORDER = ['before', 'pageSize', 'category', 'user', 'from', 'to'];

/** "GET /api/admin/logs?..." with the parameters in the order the screen sends them. */
export function logsKey(params: Record<string, string | number> = {}): string {
  const search = new URLSearchParams();
  const all: Record<string, string | number> = { pageSize: 50, ...params };
  for (const key of LOG_QUERY_ORDER) if (all[key] !== undefined) search.set(key, String(all[key]));
  return `GET /api/admin/logs?${search.toString()}`;
}

export function userSummary(overrides: Partial<UserSummary> & { username: string }): UserSummary {
  return { role: 'user', verified: false, early: false, balance: 0, ...overrides };
}
