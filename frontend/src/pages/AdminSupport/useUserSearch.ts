import type { UserSummary } from '@studio/contracts';
import { useCallback, useRef, useState } from 'react';
import { apiGet, errorText, queryString } from '../../api/client';

/** GET /api/support/users?query=: the people whose name matches, for support to pick one. */
export function useUserSearch() {
  const [users, setUsers] = useState<UserSummary[]>([]);
  const [searching, setSearching] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const latest = useRef(0);

  const search = useCallback(async (query: string) => {
    const text = query.trim();
    const call = ++latest.current;
    if (!text) {
      setUsers([]);
      setError(null);
      return;
    }
    setSearching(true);
    const result = await apiGet<UserSummary[]>(`/support/users${queryString({ query: text })}`);
    if (call !== latest.current) return;
    const content = result.body?.content;
    setUsers(result.ok && Array.isArray(content) ? content : []);
    setError(result.ok ? null : errorText(result));
    setSearching(false);
  }, []);

  return { users, searching, error, search };
}
