import { LOG_PAGE_SIZE, type LogEntry, type LogPage, type LogQuery } from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, queryString } from '../../api/client';

/** The table's filters; dates are ISO strings. */
export type LogFilters = Pick<LogQuery, 'category' | 'user' | 'from' | 'to'>;

function emptyPage(pageSize: number): LogPage {
  return { items: [], pageSize, next: null };
}

function isPage(value: unknown): value is LogPage {
  const page = value as Partial<LogPage> | null;
  return !!page && typeof page === 'object' && Array.isArray(page.items);
}

/** Whether a live entry belongs in the table under these filters. */
export function matchesFilters(entry: LogEntry, filters: LogFilters): boolean {
  if (filters.category && entry.category !== filters.category) return false;
  if (filters.user && entry.author?.username.toLowerCase() !== filters.user.trim().toLowerCase())
    return false;
  const at = new Date(entry.createdOn).getTime();
  if (filters.from && at < new Date(filters.from).getTime()) return false;
  if (filters.to && at > new Date(filters.to).getTime()) return false;
  return true;
}

/**
 * One page of GET /api/admin/logs, newest first, with server-side filters and keyset paging:
 * `before` is the `next` cursor of the page before (undefined for the first page). prepend() adds
 * a live entry on top of the first page when it matches the filters (the page size kept; the
 * entry pushed off the page is where the next page now starts); reload() reads the page again.
 */
export function useAuditLog(
  filters: LogFilters,
  before: string | undefined,
  pageSize: number = LOG_PAGE_SIZE.default,
) {
  const [data, setData] = useState<LogPage>(() => emptyPage(pageSize));
  const [loading, setLoading] = useState(true);
  // Bumped by reload(): entries pushed while the socket or the studio was away were never seen.
  const [version, setVersion] = useState(0);
  const { category, user, from, to } = filters;

  useEffect(() => {
    let current = true;
    setLoading(true);
    const query = queryString({ before, pageSize, category, user: user?.trim(), from, to });
    void apiGet<LogPage>(`/admin/logs${query}`).then((result) => {
      if (!current) return;
      const content = result.body?.content;
      setData(result.ok && isPage(content) ? content : emptyPage(pageSize));
      setLoading(false);
    });
    return () => {
      current = false;
    };
  }, [before, pageSize, category, user, from, to, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);

  const prepend = useCallback(
    (entry: LogEntry) => {
      if (before !== undefined || !matchesFilters(entry, { category, user, from, to })) return;
      setData((known) => {
        if (known.items.some((item) => item._id === entry._id)) return known;
        const items = [entry, ...known.items];
        if (items.length <= pageSize) return { ...known, items };
        const kept = items.slice(0, pageSize);
        return { ...known, items: kept, next: kept[kept.length - 1]._id };
      });
    },
    [before, pageSize, category, user, from, to],
  );

  return { data, loading, prepend, reload };
}
