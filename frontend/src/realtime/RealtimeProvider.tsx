import { SocketEvents } from '@studio/contracts';
import type { ReactNode } from 'react';
import { useSession } from '../session/useSession';
import { useToast } from '../ui/toast';
import { creditChangeNotice, moderationNotice, takedownNotice, type AccountNotice } from './accountNotices';
import { RealtimeContext, useRealtime, useResync, useSocketEvent } from './useRealtime';

/**
 * Opens the socket once the session is confirmed, keeps the header balance live and tells the
 * account, on whatever screen, about what staff did to it: credits added, content taken down, a
 * held output released or removed.
 */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { account, checking } = useSession();
  const socket = useRealtime(checking ? null : account);
  return (
    <RealtimeContext.Provider value={socket}>
      <BalanceSync />
      <TakedownToasts />
      {children}
    </RealtimeContext.Provider>
  );
}

function useNoticeToast() {
  const toast = useToast();
  return (notice: AccountNotice) => toast[notice.type](notice.message, notice.description);
}

function BalanceSync() {
  const { setBalance, refresh } = useSession();
  const show = useNoticeToast();
  // A change made before the socket joined the account's room, or while the studio was briefly
  // down, was never pushed to it: whenever it (re)joins or the studio is back, the balance is read again.
  useResync(() => void refresh());
  useSocketEvent(SocketEvents.balanceChanged, (change) => {
    setBalance(change.balance);
    const notice = creditChangeNotice(change);
    if (notice) show(notice);
  });
  return null;
}

/** The folder screen updates its grid itself; the toast shows on every screen. */
function TakedownToasts() {
  const show = useNoticeToast();
  useSocketEvent(SocketEvents.contentTakenDown, (takedown) => show(takedownNotice(takedown)));
  useSocketEvent(SocketEvents.moderationDecided, (outcome) => show(moderationNotice(outcome)));
  return null;
}
