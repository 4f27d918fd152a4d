import type { AdminStats } from '@studio/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiGet, queryString } from '../../api/client';
import { browserTimeZone } from '../../admin/format';

const zero = { credits: 0, dollars: 0 };

/** What the screen shows when the call fails: totals at zero and an empty chart (spec section 4). */
export const EMPTY_STATS: AdminStats = {
  timeZone: 'UTC',
  totals: { today: zero, yesterday: zero, week: zero, month: zero },
  faceSwapsPerDay: [],
};

/** Delay before re-reading the statistics after live log entries, so a burst makes one call. */
export const STATS_RELOAD_DELAY_MS = 1000;

function isStats(value: unknown): value is AdminStats {
  const stats = value as Partial<AdminStats> | null;
  return !!stats && typeof stats === 'object' && !!stats.totals && Array.isArray(stats.faceSwapsPerDay);
}

/**
 * GET /api/admin/stats?tz=<browser zone>: totals and face swaps per day, computed on the server.
 * reloadSoon() re-reads them once after STATS_RELOAD_DELAY_MS, however often it is called.
 */
export function useAdminStats() {
  const [stats, setStats] = useState<AdminStats>(EMPTY_STATS);
  const [loading, setLoading] = useState(true);
  const mounted = useRef(true);
  const timer = useRef<ReturnType<typeof setTimeout>>();

  const load = useCallback(async () => {
    const result = await apiGet<AdminStats>(`/admin/stats${queryString({ tz: browserTimeZone() })}`);
    if (!mounted.current) return;
    const content = result.body?.content;
    setStats(result.ok && isStats(content) ? content : EMPTY_STATS);
    setLoading(false);
  }, []);

  useEffect(() => {
    mounted.current = true;
    void load();
    return () => {
      mounted.current = false;
      clearTimeout(timer.current);
    };
  }, [load]);

  const reloadSoon = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void load(), STATS_RELOAD_DELAY_MS);
  }, [load]);

  return { stats, loading, reloadSoon };
}
