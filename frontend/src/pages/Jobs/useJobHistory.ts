import type { JobHistoryPage, JobHistoryQuery } from '@studio/contracts';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, errorText, queryString } from '../../api/client';

export type JobFilters = Pick<JobHistoryQuery, 'tool' | 'state' | 'from' | 'to'>;

/**
 * GET /api/jobs/history one keyset page at a time: `older()` follows the page's `next`, `newer()`
 * goes back along the cursors seen; new filters start again at the newest page.
 */
export function useJobHistory(enabled: boolean) {
  const [filters, setFilters] = useState<JobFilters>({});
  // The cursors of the pages before the current one; the current cursor is the last.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<JobHistoryPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [version, setVersion] = useState(0);
  const before = cursors[cursors.length - 1];

  useEffect(() => {
    if (!enabled) return;
    let current = true;
    setLoading(true);
    void apiGet<JobHistoryPage>(`/jobs/history${queryString({ ...filters, before })}`).then((result) => {
      if (!current) return;
      setLoading(false);
      if (result.ok && Array.isArray(result.body?.content?.items)) {
        setPage(result.body.content);
        setError(null);
      } else setError(errorText(result));
    });
    return () => {
      current = false;
    };
  }, [enabled, filters, before, version]);

  const filter = useCallback((next: JobFilters) => {
    setFilters(next);
    setCursors([undefined]);
  }, []);
  const older = useCallback(() => {
    if (page?.next) setCursors((all) => [...all, page.next!]);
  }, [page]);
  const newer = useCallback(() => setCursors((all) => (all.length > 1 ? all.slice(0, -1) : all)), []);
  /** Reads the current page again (a job started meanwhile). */
  const reload = useCallback(() => setVersion((v) => v + 1), []);

  return {
    filters,
    filter,
    jobs: page?.items ?? [],
    loading,
    error,
    hasOlder: !!page?.next,
    hasNewer: cursors.length > 1,
    older,
    newer,
    reload,
    pageNumber: cursors.length,
  };
}
