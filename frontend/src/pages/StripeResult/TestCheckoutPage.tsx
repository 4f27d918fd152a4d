import {
  COINS_PER_PACK,
  PACK_PRICE_USD,
  PaymentMessages,
  formatCount,
  type PaymentEventOutcome,
  type TestCheckoutDetails,
} from '@studio/contracts';
import { Alert, Button, Card, Descriptions, Result, Space, Spin, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { apiGet, apiPost, errorText } from '../../api/client';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';

/**
 * Local test payments (STRIPE_TEST_CHECKOUT, on under `npm start`): plays Stripe's payment page
 * for a checkout made at the local stand-in. Pay delivers the signed completion event the way
 * Stripe's webhook would, so the coins arrive by the same path as a real purchase.
 */
export function TestCheckoutPage() {
  const loggedIn = useRequireLogin();
  const { session = '' } = useParams();
  const navigate = useNavigate();
  const [details, setDetails] = useState<TestCheckoutDetails | null | 'unknown'>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!loggedIn) return;
    void apiGet<TestCheckoutDetails>(`/stripe/test-checkout/${encodeURIComponent(session)}`).then((result) =>
      setDetails(result.ok && result.body ? result.body.content : 'unknown'),
    );
  }, [loggedIn, session]);

  if (!loggedIn) return null;
  if (details === null) return <Spin style={{ display: 'block', margin: '120px auto' }} />;
  if (details === 'unknown') {
    return (
      <Result
        status="warning"
        title={PaymentMessages.checkoutUnknown}
        subTitle={PaymentMessages.checkoutUnknownDetail}
        extra={<Button onClick={() => navigate(Paths.refill)}>Buy coins</Button>}
      />
    );
  }

  const pay = async () => {
    setBusy(true);
    const result = await apiPost<PaymentEventOutcome>(
      `/stripe/test-checkout/${encodeURIComponent(session)}/pay`,
    );
    if (result.ok) {
      navigate(`/stripe/success/${encodeURIComponent(session)}`);
      return;
    }
    setBusy(false);
    setError(errorText(result));
  };

  return (
    <Card style={{ maxWidth: 520, margin: '32px auto' }} data-testid="test-checkout">
      <Space direction="vertical" size="large" style={{ width: '100%' }}>
        <Alert
          type="warning"
          showIcon
          message="TEST MODE: no real payment"
          description="This server runs with a local stand-in for Stripe. No card is asked for and no money moves; the coins are test coins."
        />
        <Typography.Title level={3} style={{ margin: 0 }}>
          Test checkout
        </Typography.Title>
        <Descriptions column={1} size="small" bordered>
          <Descriptions.Item label="Packs">
            {details.packs} × {COINS_PER_PACK} coins for ${PACK_PRICE_USD}
          </Descriptions.Item>
          <Descriptions.Item label="Coins">{formatCount(details.coins)}</Descriptions.Item>
          <Descriptions.Item label="Total">
            ${(details.amountCents / 100).toFixed(2)} (test)
          </Descriptions.Item>
        </Descriptions>
        {error && <Alert type="error" showIcon message={error} />}
        <Space wrap>
          <Button type="primary" size="large" loading={busy} onClick={pay}>
            Pay (test)
          </Button>
          <Button
            size="large"
            disabled={busy}
            onClick={() => navigate(`/stripe/canceled/${encodeURIComponent(session)}`)}
          >
            Cancel
          </Button>
        </Space>
      </Space>
    </Card>
  );
}
