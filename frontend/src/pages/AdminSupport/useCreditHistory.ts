import { HISTORY_PAGE_SIZE, type CreditHistoryEntry, type Page } from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, queryString } from '../../api/client';

function emptyPage(page: number, pageSize: number): Page<CreditHistoryEntry> {
  return { items: [], total: 0, page, pageSize };
}

/**
 * GET /api/support/users/{username}/credits, one page at a time; reload() after a change.
 * Mount it under a key of the user name so another user starts on page 1.
 */
export function useCreditHistory(username: string) {
  const [paging, setPaging] = useState({ page: 1, pageSize: HISTORY_PAGE_SIZE.default as number });
  const [data, setData] = useState(() => emptyPage(1, HISTORY_PAGE_SIZE.default));
  const [loading, setLoading] = useState(true);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    let current = true;
    setLoading(true);
    const path = `/support/users/${encodeURIComponent(username)}/credits${queryString(paging)}`;
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
  }, [username, paging, version]);

  const reload = useCallback(() => setVersion((v) => v + 1), []);
  const changePage = useCallback((page: number, pageSize: number) => setPaging({ page, pageSize }), []);

  return { data, loading, reload, changePage };
}
