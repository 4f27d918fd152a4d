import { SocketEvents } from '@studio/contracts';
import type { ReactNode } from 'react';
import { useSession } from '../session/useSession';
import { RealtimeContext, useRealtime, useSocketEvent } from './useRealtime';

/** Opens the socket once the session is confirmed and keeps the header balance live. */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { account, checking } = useSession();
  const socket = useRealtime(checking ? null : account);
  return (
    <RealtimeContext.Provider value={socket}>
      <BalanceSync />
      {children}
    </RealtimeContext.Provider>
  );
}

function BalanceSync() {
  const { setBalance } = useSession();
  useSocketEvent(SocketEvents.balanceChanged, ({ balance }) => setBalance(balance));
  return null;
}
