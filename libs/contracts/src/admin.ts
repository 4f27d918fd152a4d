import type { LogEntry } from './audit';
import type { SuspensionView } from './account';
import type { Role } from './roles';

/**
 * The admin and support console (issue 7): activity log paging and statistics, user lookup,
 * badges and takedowns. Prices in dollars use DOLLARS_PER_CREDIT (pricing.ts).
 */

/**
 * GET /api/admin/logs query: keyset paging and filters (dates are ISO strings). The first page
 * has no `before`; each next one passes the `next` of the page before it.
 */
export interface LogQuery {
  /** The `next` cursor of the previous page: entries older than it. */
  before?: string;
  /** Offset paging, kept for old clients: 1 is the first page; deep pages are slow, use `before`. */
  page?: number;
  pageSize?: number;
  category?: string;
  /** Exact user name (case-insensitive). */
  user?: string;
  from?: string;
  to?: string;
}

/** One page of the log, newest first. No total: counting a large log is a scan of it. */
export interface LogPage {
  items: LogEntry[];
  pageSize: number;
  /** Cursor of the next, older page (pass it as `before`); null on the last page. */
  next: string | null;
  /** Set when the page was asked by `page` (offset paging). */
  page?: number;
}

/** The log table's page sizes: the server caps a page at `max`, the table offers `choices`. */
export const LOG_PAGE_SIZE = { default: 50, max: 200, choices: [20, 50, 100, 200] } as const;

export interface CreditTotal {
  credits: number;
  dollars: number;
}

/** GET /api/admin/stats?tz=<IANA zone>: the admin screen's totals and chart, computed on the server. */
export interface AdminStats {
  timeZone: string;
  totals: { today: CreditTotal; yesterday: CreditTotal; week: CreditTotal; month: CreditTotal };
  /** 30 days including today, oldest first; `day` is 'DD-MM' in the admin's zone. */
  faceSwapsPerDay: { day: string; date: string; faceSwaps: number; dollars: number }[];
}

/** GET /api/support/users?query=: people support can look up. */
export interface UserSummary {
  username: string;
  role: Role;
  verified: boolean;
  early: boolean;
  balance: number;
  createdAt?: string;
  /** Set while the account is suspended (docs/takedown.md, Suspension). */
  suspended?: SuspensionView;
}

/** PUT /api/admin/users/{username}/badges */
export interface SetBadgesRequest {
  verified?: boolean;
  early?: boolean;
}

/** POST /api/admin/content/{itemId}/takedown: hide (the owner sees why) or delete with a reason. */
export interface TakedownRequest {
  reason: string;
  mode: 'hide' | 'delete';
}

/** The queue board (bull-board), served behind the admin session. */
export const QUEUE_BOARD_PATH = '/api/admin/queues';
