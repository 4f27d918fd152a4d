import {
  AnalyticsEvents,
  COINS_PER_PACK,
  PACK_PRICE_USD,
  PaymentMessages,
  SocketEvents,
  type CheckoutOutcome,
  formatCount,
} from '@studio/contracts';
import { Button, Result, Spin } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { analytics } from '../../analytics/analytics';
import { apiGet } from '../../api/client';
import { Paths } from '../../paths';
import { useSocketEvent } from '../../realtime/useRealtime';
import { readCart } from '../../session/cart';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';

/**
 * Where Stripe sends the browser back (spec: /stripe/{status}[/{session}]). The coins are credited
 * by the webhook, which may land before the browser is back or while the page's socket is still
 * joining: so the page asks the server about its checkout on arrival and whenever the socket is
 * (re)joined, and between those the balance push tells it.
 */
export function StripeResultPage() {
  const loggedIn = useRequireLogin();
  const { status, session } = useParams();
  const navigate = useNavigate();
  const { balance } = useSession();
  const [credited, setCredited] = useState<number | null>(null);
  const tracked = useRef(false);
  const success = status === 'success';

  useEffect(() => {
    if (!loggedIn || tracked.current) return;
    tracked.current = true;
    const price = readCart() * PACK_PRICE_USD;
    analytics.track(success ? AnalyticsEvents.completedPurchase : AnalyticsEvents.canceledPurchase, {
      price,
    });
  }, [loggedIn, success]);

  const askServer = useCallback(() => {
    if (!loggedIn || !success || !session) return;
    void apiGet<CheckoutOutcome>(`/checkout/${encodeURIComponent(session)}`).then((result) => {
      const coins = result.body?.content.credited;
      if (typeof coins === 'number') setCredited(coins);
    });
  }, [loggedIn, success, session]);
  useEffect(askServer, [askServer]);
  useSocketEvent(SocketEvents.ready, askServer);

  useSocketEvent(SocketEvents.balanceChanged, (change) => {
    if (success && change.delta > 0 && change.delta % COINS_PER_PACK === 0) setCredited(change.delta);
  });

  if (!loggedIn) return null;
  const home = (
    <Button type="primary" onClick={() => navigate(Paths.home)}>
      Homepage
    </Button>
  );
  if (!success) return <Result status="info" title={PaymentMessages.cancelled} extra={home} />;
  return (
    <Result
      status="success"
      title={PaymentMessages.success}
      subTitle={
        credited === null ? (
          <span>
            <Spin size="small" /> {PaymentMessages.pleaseWait}
          </span>
        ) : (
          <span data-testid="credited">
            {PaymentMessages.credited(credited)} Your balance is{' '}
            {balance === null ? '…' : formatCount(balance)} coins.
          </span>
        )
      }
      extra={home}
    />
  );
}
