import { HISTORY_PAGE_SIZE, type CreditHistoryEntry, type Page } from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, queryString } from '../../api/client';

function emptyPage(page: number, pageSize: number): Page<CreditHistoryEntry> {
  return { items: [], total: 0, page, pageSize };
}

/** Support's view of a user's history; the user's own is at /credits/history. */
export const supportHistoryPath = (username: string) =>
  `/support/users/${encodeURIComponent(username)}/credits`;

/**
 * A credit history (`basePath`: the user's own, or support's view of one), one page at a time;
 * reload() after a change; null asks nothing (logged out). Mount it under a key of the path so another user starts on page 1.
 */
export function useCreditHistory(basePath: string | null) {
  const [paging, setPaging] = useState({ page: 1, pageSize: HISTORY_PAGE_SIZE.default as number });
  const [data, setData] = useState(() => emptyPage(1, HISTORY_PAGE_SIZE.default));
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    if (basePath === null) return; // not allowed to ask (yet)
    let current = true;
    setLoading(true);
    const path = `${basePath}${queryString(paging)}`;
    void apiGet<Page<CreditHistoryEntry>>(path).then((result) => {
      if (!current) return;
      const content = result.body?.content;
      setData(
        result.ok && content && Array.isArray(content.items)
          ? content
          : emptyPage(paging.page, paging.pageSize),
      );
      setLoading(false);
    });
    return () => {
      current = false;
    };
  }, [basePath, paging, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const changePage = useCallback((page: number, pageSize: number) => setPaging({ page, pageSize }), []);

  return { data, loading, reload, changePage };
}
