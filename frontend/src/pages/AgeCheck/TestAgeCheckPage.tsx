import { AGE_CHECK_PATH, TEST_CARDS, type AgeAssuranceStatus } from '@studio/contracts';
import { Alert, Button, Card, Input, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { apiPost, errorText } from '../../api/client';
import { useRequireLogin } from '../../session/useRequireLogin';

/**
 * Local test mode (STRIPE_TEST_CHECKOUT, on under `npm start`): plays Stripe's card page for a card
 * check made at the local stand-in. It takes Stripe's published test cards only; the server then
 * judges the card as it judges a real one (credit passes, debit and prepaid do not).
 */
export function TestAgeCheckPage() {
  const loggedIn = useRequireLogin();
  const { session = '' } = useParams();
  const navigate = useNavigate();
  const [number, setNumber] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (!loggedIn) return null;

  const submit = async () => {
    setBusy(true);
    setError(null);
    const result = await apiPost<AgeAssuranceStatus>(
      `/age-assurance/card/${encodeURIComponent(session)}/test-card`,
      { cardNumber: number },
    );
    setBusy(false);
    if (result.ok) navigate(AGE_CHECK_PATH);
    else setError(errorText(result));
  };

  return (
    <Card style={{ maxWidth: 620, margin: '32px auto' }} data-testid="test-age-check">
      <Space direction="vertical" size="large" style={{ width: '100%' }}>
        <Alert
          type="warning"
          showIcon
          message="TEST MODE: no real card"
          description="This server runs with a local stand-in for Stripe. Use one of Stripe's test card numbers below; nothing is charged."
        />
        <Typography.Title level={3} style={{ margin: 0 }}>
          Test card check
        </Typography.Title>
        <Table
          size="small"
          pagination={false}
          rowKey="number"
          dataSource={[...TEST_CARDS]}
          columns={[
            { title: 'Test card number', dataIndex: 'number' },
            { title: 'Brand', dataIndex: 'brand' },
            { title: 'Kind', dataIndex: 'funding' },
          ]}
        />
        <Input
          aria-label="Card number"
          placeholder="Card number"
          value={number}
          maxLength={32}
          onChange={(e) => setNumber(e.target.value)}
          onPressEnter={() => void submit()}
        />
        {error && <Alert type="error" showIcon message={error} data-testid="test-age-check-error" />}
        <Space wrap>
          <Button type="primary" size="large" loading={busy} disabled={!number.trim()} onClick={submit}>
            Check card (test)
          </Button>
          <Button size="large" disabled={busy} onClick={() => navigate(AGE_CHECK_PATH)}>
            Cancel
          </Button>
        </Space>
      </Space>
    </Card>
  );
}
