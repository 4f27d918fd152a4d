import type { LoginRequest, Role } from '@studio/contracts';
import { createContext, useContext } from 'react';

export interface SessionState {
  /** The account name, or null when logged out. */
  account: string | null;
  verified: boolean;
  early: boolean;
  /** Known only from the server; never read from storage. */
  role: Role | null;
  /** Coin balance; null until the server has told us. */
  balance: number | null;
  /** True while a remembered account is being confirmed with the server. */
  checking: boolean;
}

export interface SessionValue extends SessionState {
  loggedIn: boolean;
  isAdmin: boolean;
  /** Logs in and shows the outcome as a toast; resolves true on success. */
  login(credentials: LoginRequest): Promise<boolean>;
  logout(): Promise<void>;
  /** Asks the server who we are (GET /api/session). */
  refresh(): Promise<void>;
  setBalance(balance: number): void;
}

export const SessionContext = createContext<SessionValue | null>(null);

export function useSession(): SessionValue {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession must be used inside <SessionProvider>');
  return session;
}
