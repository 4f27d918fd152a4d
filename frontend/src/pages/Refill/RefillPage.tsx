import {
  AnalyticsEvents,
  COIN_PRODUCT_ID,
  COINS_PER_PACK,
  PACK_PRICE_USD,
  PACKS_MAX,
  PACKS_MIN,
  PaymentMessages,
  clampPacks,
  quotePacks,
  formatCount,
} from '@studio/contracts';
import { Alert, Button, Card, InputNumber, Space, Statistic, Typography } from 'antd';
import { useState } from 'react';
import { analytics } from '../../analytics/analytics';
import { apiPost, errorText } from '../../api/client';
import { readCart, writeCart } from '../../session/cart';
import { useRequireLogin } from '../../session/useRequireLogin';
import { CoinIcon } from '../../ui/CoinIcon';
import { useToast } from '../../ui/toast';
import { useBillingStatus } from './usePaymentsStatus';

/** Buy coins (spec section 2, "Top-up screen"): packs of 200 coins for $10, then Stripe Checkout. */
export function RefillPage() {
  return useRequireLogin() ? <RefillScreen /> : null;
}

function RefillScreen() {
  const status = useBillingStatus();
  const configured = status === null ? null : status.paymentsConfigured;
  const toast = useToast();
  const [packs, setPacks] = useState(readCart);
  const [busy, setBusy] = useState(false);
  const quote = quotePacks(packs);

  const refill = async () => {
    writeCart(quote.packs);
    analytics.track(AnalyticsEvents.startPurchase, { price: quote.dollars });
    setBusy(true);
    const result = await apiPost<string>('/createCheckoutSession', {
      coin_id: COIN_PRODUCT_ID,
      coin_amount: quote.packs,
    });
    if (result.ok && result.body) {
      window.location.assign(result.body.content);
      return;
    }
    setBusy(false);
    toast.error(errorText(result));
  };

  return (
    <Card style={{ maxWidth: 520, margin: '32px auto' }}>
      <Space direction="vertical" size="large" style={{ width: '100%' }}>
        <Typography.Title level={2} style={{ margin: 0 }}>
          Top up your balance.
        </Typography.Title>
        {configured === false && <Alert type="warning" showIcon message={PaymentMessages.notConfigured} />}
        {status?.testMode && (
          <Alert
            type="warning"
            showIcon
            data-testid="payments-test-mode"
            message="TEST MODE: no real payment"
            description="Payments go to a local stand-in for Stripe: no card is asked for and no money moves."
          />
        )}
        <Space align="center" size="middle">
          <InputNumber
            aria-label="Number of packs"
            min={PACKS_MIN}
            max={PACKS_MAX}
            step={1}
            precision={0}
            value={packs}
            onChange={(value) => setPacks(clampPacks(Number(value ?? PACKS_MIN)))}
            size="large"
          />
          <Typography.Text>
            <CoinIcon /> {COINS_PER_PACK} coins for ${PACK_PRICE_USD}
          </Typography.Text>
        </Space>
        <Statistic
          title="Total"
          value={`$${quote.dollars}`}
          suffix={<span data-testid="refill-coins">for {formatCount(quote.coins)} coins</span>}
        />
        <Button
          type="primary"
          size="large"
          block
          loading={busy}
          disabled={configured !== true}
          onClick={refill}
        >
          Refill
        </Button>
      </Space>
    </Card>
  );
}
