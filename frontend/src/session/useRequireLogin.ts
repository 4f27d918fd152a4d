import { Messages } from '@studio/contracts';
import { useEffect, useRef } from 'react';
import { useNavigate } from 'react-router-dom';
import { Paths } from '../paths';
import { useToast } from '../ui/toast';
import { useSession } from './useSession';

export interface RequireLoginOptions {
  /** Say 'You need to be logged in' when a logged-out visitor opens the screen (generation tools). */
  explain?: boolean;
  /** Where a logged-out visitor goes: the login page, or home for a folder (spec section 6). */
  to?: string;
}

/**
 * Screens that need an account send a logged-out visitor to the login page. Call it in a thin
 * outer component and render the screen (whose hooks call the API) only when it returns true, so
 * a logged-out visit sends no request that would answer 401.
 */
export function useRequireLogin({ explain = false, to = Paths.login }: RequireLoginOptions = {}): boolean {
  const { account } = useSession();
  const navigate = useNavigate();
  const toast = useToast();
  // Logging out while on the screen already says 'Logged out.': no second message then.
  const openedLoggedOut = useRef(!account);
  const told = useRef(false);

  useEffect(() => {
    if (account) return;
    if (explain && openedLoggedOut.current && !told.current) {
      told.current = true;
      toast.error(Messages.needLogin);
    }
    navigate(to, { replace: true });
  }, [account, explain, to, navigate, toast]);
  return !!account;
}
