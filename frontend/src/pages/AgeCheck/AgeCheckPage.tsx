import {
  AGE_ASSURANCE_METHOD_LABELS,
  type AgeAssuranceStatus,
  type CardCheckStart,
  type ProviderCheckStart,
} from '@studio/contracts';
import { Alert, Button, Card, Result, Space, Spin, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { apiGet, apiPost, errorText } from '../../api/client';
import { formatLocalDateTime } from '../../admin/format';
import { useRequireLogin } from '../../session/useRequireLogin';

/**
 * /age-check: the credit card check (Stripe, setup mode: nothing charged, the card not kept), and,
 * where the operator set one up, the provider's check (Persona's hosted flow). Stripe sends the user
 * back here with ?session=..., Persona with ?inquiry-id=...; the server then reads the result from
 * the provider itself.
 */
export function AgeCheckPage() {
  const loggedIn = useRequireLogin({ explain: true });
  const [params, setParams] = useSearchParams();
  const [status, setStatus] = useState<AgeAssuranceStatus | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const session = params.get('session');
  const inquiry = params.get('inquiry-id');

  useEffect(() => {
    if (!loggedIn) return;
    void (async () => {
      if (session) {
        const done = await apiPost<AgeAssuranceStatus>(
          `/age-assurance/card/${encodeURIComponent(session)}/complete`,
        );
        if (!done.ok && done.status !== 409) setError(errorText(done));
        setParams({}, { replace: true });
      }
      if (inquiry) {
        // 409: not decided yet (the provider's webhook settles it); said as it is
        const done = await apiPost<AgeAssuranceStatus>(
          `/age-assurance/provider/${encodeURIComponent(inquiry)}/complete`,
        );
        if (!done.ok) setError(errorText(done));
        setParams({}, { replace: true });
      }
      const result = await apiGet<AgeAssuranceStatus>('/age-assurance');
      if (result.ok && result.body) setStatus(result.body.content);
    })();
  }, [loggedIn, session, inquiry, setParams]);

  if (!loggedIn) return null;
  if (!status) return <Spin style={{ display: 'block', margin: '120px auto' }} />;

  if (status.assured) {
    // antd's Result does not pass data-* attributes on.
    return (
      <div data-testid="age-assured">
        <Result
          status="success"
          title="Your age is checked"
          subTitle={`Checked on ${formatLocalDateTime(status.assuredAt ?? '')}${status.method ? ` (${AGE_ASSURANCE_METHOD_LABELS[status.method]})` : ''}.`}
        />
      </div>
    );
  }

  const start = async (path: '/age-assurance/card' | '/age-assurance/provider') => {
    setBusy(true);
    setError(null);
    const result = await apiPost<CardCheckStart | ProviderCheckStart>(path);
    if (result.ok && result.body) {
      window.location.assign(result.body.content.url);
      return;
    }
    setBusy(false);
    setError(errorText(result));
  };

  return (
    <Card style={{ maxWidth: 620, margin: '32px auto' }} data-testid="age-check">
      <Space direction="vertical" size="middle" style={{ width: '100%' }}>
        <Typography.Title level={3} style={{ margin: 0 }}>
          Check your age
        </Typography.Title>
        <Typography.Paragraph>
          Magic Brush, face swap and adult Generate tags are for adults only. The law (the UK Online Safety
          Act, and similar laws elsewhere) asks us to check your age in a way that really works: ticking a box
          is not enough.
        </Typography.Paragraph>
        <Typography.Paragraph>
          <strong>Credit card check:</strong> you enter a credit card on Stripe&apos;s page; your bank
          confirms the card, <strong>nothing is charged</strong>, and the card is removed right after. Only
          credit cards count: debit and prepaid cards can belong to under-18s. We keep only that the check
          passed, when, and Stripe&apos;s reference: no card number, no date of birth.
        </Typography.Paragraph>
        {error && <Alert type="error" showIcon message={error} data-testid="age-check-error" />}
        <Button type="primary" size="large" loading={busy} onClick={() => start('/age-assurance/card')}>
          Check with a credit card
        </Button>
        {status.provider === 'persona' ? (
          <>
            <Typography.Paragraph style={{ margin: 0 }}>
              <strong>No credit card?</strong> Check with Persona, an identity-check service: a photo of an ID
              document with a selfie, or an estimate of your age from your face, on Persona&apos;s own pages.
              We keep only that the check passed, when, and Persona&apos;s reference: no ID image, no date of
              birth.
            </Typography.Paragraph>
            <Button size="large" loading={busy} onClick={() => start('/age-assurance/provider')}>
              Check with Persona (ID or face)
            </Button>
          </>
        ) : (
          <Typography.Text type="secondary">
            No credit card? Write to support: our staff can check your age another way.
          </Typography.Text>
        )}
      </Space>
    </Card>
  );
}
