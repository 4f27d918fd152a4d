import { SocketEvents, type AllowanceStatus } from '@studio/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import { apiGet } from '../api/client';
import { useResync, useSocketEvent } from '../realtime/useRealtime';
import { useSession } from '../session/useSession';

/** While the worker decides (a moment after the verification), asked again this often, this many times. */
const PENDING_RECHECK_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

/**
 * Where the logged-in account's welcome allowance stands, from the server's decision
 * (GET /api/billing/allowance): null while unknown or logged out. Asked again when the socket
 * (re)joins, when an allowance reaches the balance, and a few times while it is still pending.
 * `enabled` false: not asked (yet).
 */
export function useAllowance(enabled = true): AllowanceStatus | null {
  const { account: loggedIn } = useSession();
  const account = enabled ? loggedIn : null;
  const [status, setStatus] = useState<AllowanceStatus | null>(null);
  const asked = useRef(0);

  const load = useCallback(async () => {
    if (!account) return;
    const result = await apiGet<AllowanceStatus>('/billing/allowance');
    const content = result.ok ? result.body?.content : undefined;
    if (content && typeof content === 'object') setStatus(content);
  }, [account]);

  useEffect(() => {
    setStatus(null);
    asked.current = 0;
    void load();
  }, [load]);

  useEffect(() => {
    if (status?.state !== 'pending' || asked.current >= PENDING_RECHECK_MS.length) return;
    const timer = setTimeout(() => void load(), PENDING_RECHECK_MS[asked.current++]);
    return () => clearTimeout(timer);
  }, [status, load]);

  useResync(() => void load());
  useSocketEvent(SocketEvents.balanceChanged, (change) => {
    if (change.kind === 'allowance') void load();
  });
  return status;
}
