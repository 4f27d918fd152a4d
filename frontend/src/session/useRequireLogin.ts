import { useEffect } from 'react';
import { useNavigate } from 'react-router-dom';
import { Paths } from '../paths';
import { useSession } from './useSession';

/** Screens that need an account send a logged-out visitor to the login page. */
export function useRequireLogin(): boolean {
  const { account } = useSession();
  const navigate = useNavigate();
  useEffect(() => {
    if (!account) navigate(Paths.login, { replace: true });
  }, [account, navigate]);
  return !!account;
}
