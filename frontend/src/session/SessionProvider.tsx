import { Messages, type LoginContent, type LoginRequest, type SessionContent } from '@studio/contracts';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { apiGet, apiPost, errorText, NO_RESPONSE } from '../api/client';
import { useToast } from '../ui/toast';
import { SessionContext, type SessionState, type SessionValue } from './useSession';
import { forgetLogin, readAccount, readVerified, rememberLogin } from './storage';

const loggedOut: SessionState = {
  account: null,
  verified: false,
  early: false,
  role: null,
  balance: null,
  checking: false,
};

/** Start from what storage remembers so the header shows the name at once. */
function initialState(): SessionState {
  const account = readAccount();
  return account ? { ...loggedOut, account, verified: readVerified(), checking: true } : loggedOut;
}

function fromSession(content: SessionContent): SessionState {
  return {
    account: content.username,
    verified: content.verified,
    early: content.early,
    role: content.role,
    balance: content.balance,
    checking: false,
  };
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const toast = useToast();
  const [state, setState] = useState<SessionState>(initialState);
  // Bumped on login and logout so an answer to an older session call cannot overwrite them.
  const epoch = useRef(0);
  // Bumped on every balance set (a push): a session answer read before it must not undo it.
  const balanceSets = useRef(0);

  const refresh = useCallback(async () => {
    const started = epoch.current;
    const setsBefore = balanceSets.current;
    const result = await apiGet<SessionContent>('/session');
    if (started !== epoch.current) return;
    if (result.status === 200 && result.body) {
      const content = result.body.content;
      rememberLogin(content.username, content.verified);
      const pushedMeanwhile = balanceSets.current !== setsBefore;
      setState((current) => ({
        ...fromSession(content),
        balance: pushedMeanwhile ? current.balance : content.balance,
      }));
    } else if (result.status === 401) {
      forgetLogin();
      setState(loggedOut);
    } else {
      // Server or network trouble: keep what storage says rather than logging the person out.
      setState((current) => ({ ...current, checking: false }));
    }
  }, []);

  useEffect(() => {
    if (readAccount()) void refresh();
  }, [refresh]);

  const login = useCallback(
    async (credentials: LoginRequest) => {
      const result = await apiPost<LoginContent | string>('/login', credentials);
      const content = result.body?.content;
      if (result.ok && content && typeof content === 'object') {
        epoch.current += 1;
        rememberLogin(content.username, content.verified);
        setState({ ...loggedOut, account: content.username, verified: content.verified, role: content.role });
        toast.success(Messages.loggedIn);
        // The balance and badges come from the session call.
        void refresh();
        return true;
      }
      if (result.status !== NO_RESPONSE) toast.error(errorText(result));
      return false;
    },
    [refresh, toast],
  );

  const logout = useCallback(async () => {
    epoch.current += 1;
    try {
      await apiPost('/logout');
    } finally {
      // Forget the account even when the call failed: the person asked to leave.
      forgetLogin();
      setState(loggedOut);
      toast.info(Messages.loggedOut);
    }
  }, [toast]);

  const setBalance = useCallback((balance: number) => {
    balanceSets.current += 1;
    setState((current) => (current.account ? { ...current, balance } : current));
  }, []);

  const value = useMemo<SessionValue>(
    () => ({
      ...state,
      loggedIn: state.account !== null,
      isAdmin: state.role === 'admin',
      login,
      logout,
      refresh,
      setBalance,
    }),
    [state, login, logout, refresh, setBalance],
  );

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
