import {
  AnalyticsEvents,
  PACK_PRICE_USD,
  PaymentMessages,
  SocketEvents,
  type CheckoutOutcome,
  formatCount,
} from '@studio/contracts';
import { Button, Result, Space, Spin } from 'antd';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { analytics } from '../../analytics/analytics';
import { apiGet } from '../../api/client';
import { Paths } from '../../paths';
import { useResync, useSocketEvent } from '../../realtime/useRealtime';
import { readCart } from '../../session/cart';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';

/**
 * Where Stripe sends the browser back (spec: /stripe/{status}[/{session}]). The coins are credited
 * by the webhook, which may land before the browser is back or while the page's socket is still
 * joining: so the page asks the server about its checkout on arrival and whenever the socket is
 * (re)joined, and between those the balance push tells it. It says only what the server knows:
 * "successful" once the server credited that checkout; a session the server does not know (a
 * made-up id, another user's, a server without payments) is said to be unknown.
 */
export function StripeResultPage() {
  const loggedIn = useRequireLogin();
  const { status, session } = useParams();
  const navigate = useNavigate();
  const { balance } = useSession();
  /** What the server knows of the checkout: asking, unknown to it (404), open, or credited. */
  const [known, setKnown] = useState<'asking' | 'unknown' | 'open' | 'credited'>('asking');
  const [credited, setCredited] = useState<number | null>(null);
  const tracked = useRef(false);
  const success = status === 'success';

  useEffect(() => {
    // Only a checkout the server credited counts as a completed purchase.
    if (!loggedIn || tracked.current || (success && known !== 'credited')) return;
    tracked.current = true;
    const price = readCart() * PACK_PRICE_USD;
    analytics.track(success ? AnalyticsEvents.completedPurchase : AnalyticsEvents.canceledPurchase, {
      price,
    });
  }, [loggedIn, success, known]);

  const askServer = useCallback(() => {
    if (!loggedIn || !session) return;
    void apiGet<CheckoutOutcome>(`/checkout/${encodeURIComponent(session)}`).then((result) => {
      const coins = result.body?.content.credited;
      if (typeof coins === 'number') {
        setCredited(coins);
        setKnown('credited');
      } else if (result.status === 404) setKnown((was) => (was === 'credited' ? was : 'unknown'));
      else if (result.ok) setKnown((was) => (was === 'credited' ? was : 'open'));
    });
  }, [loggedIn, session]);
  useEffect(askServer, [askServer]);
  useResync(askServer);

  useSocketEvent(SocketEvents.balanceChanged, (change) => {
    if (success && known !== 'unknown' && change.kind === 'purchase' && change.delta > 0) {
      setCredited(change.delta);
      setKnown('credited');
    }
  });

  if (!loggedIn) return null;
  const home = (
    <Button type="primary" onClick={() => navigate(Paths.home)}>
      Homepage
    </Button>
  );
  const buy = <Button onClick={() => navigate(Paths.refill)}>Buy coins</Button>;
  if (session && known === 'unknown') {
    return (
      <Result
        status="warning"
        title={PaymentMessages.checkoutUnknown}
        subTitle={PaymentMessages.checkoutUnknownDetail}
        extra={
          <Space wrap style={{ justifyContent: 'center' }}>
            {home}
            {buy}
          </Space>
        }
        data-testid="checkout-unknown"
      />
    );
  }
  if (!success) {
    return (
      <Result
        status="info"
        title={PaymentMessages.cancelled}
        subTitle={
          known === 'credited' && credited !== null
            ? PaymentMessages.credited(credited)
            : PaymentMessages.nothingCharged
        }
        extra={
          <Space wrap style={{ justifyContent: 'center' }}>
            {home}
            {buy}
          </Space>
        }
      />
    );
  }
  if (!session || known !== 'credited' || credited === null) {
    return (
      <Result
        status="info"
        title={known === 'asking' && session ? PaymentMessages.checking : PaymentMessages.confirming}
        subTitle={
          <span>
            <Spin size="small" /> {PaymentMessages.pleaseWait}
          </span>
        }
        extra={home}
      />
    );
  }
  return (
    <Result
      status="success"
      title={PaymentMessages.success}
      subTitle={
        <span data-testid="credited">
          {PaymentMessages.credited(credited)} Your balance is {balance === null ? '…' : formatCount(balance)}{' '}
          coins.
        </span>
      }
      extra={home}
    />
  );
}
