import { PATREON_REDIRECT_MS, PaymentMessages } from '@studio/contracts';
import { Result, Spin } from 'antd';
import { useEffect, useRef, useState } from 'react';
import { Navigate, useNavigate, useParams } from 'react-router-dom';
import { apiPost } from '../../api/client';
import { Paths } from '../../paths';
import { rememberLogin } from '../../session/storage';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';

type LinkState = 'linking' | 'linked' | 'failed';

/** Patreon link (spec section 2): redeem the secret, say how it went, go home after 5 s. */
export function PatreonPage() {
  const { secret } = useParams();
  const loggedIn = useRequireLogin();
  const { account, refresh } = useSession();
  const navigate = useNavigate();
  const [state, setState] = useState<LinkState>('linking');
  const sent = useRef(false);

  useEffect(() => {
    if (!secret || !account || sent.current) return;
    sent.current = true;
    void apiPost('/patreonSecret', { secret, username: account }).then((result) => {
      if (result.ok) {
        rememberLogin(account, true);
        void refresh();
      }
      setState(result.ok ? 'linked' : 'failed');
    });
  }, [secret, account, refresh]);

  useEffect(() => {
    if (state === 'linking') return;
    const timer = setTimeout(() => navigate(Paths.home), PATREON_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [state, navigate]);

  if (!secret) return <Navigate to={Paths.home} replace />;
  if (!loggedIn) return null;
  if (state === 'linking') return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
  return state === 'linked' ? (
    <Result status="success" title={PaymentMessages.patreonLinked} />
  ) : (
    <Result status="error" title={PaymentMessages.patreonFailed} />
  );
}
