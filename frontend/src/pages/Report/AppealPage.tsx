import { REPORT_LIMITS } from '@studio/contracts';
import { Alert, Button, Form, Input, Result, Space, Typography } from 'antd';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { apiPost, errorText } from '../../api/client';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';

/**
 * An owner appeals, once, against the removal of one of their items after a report (EU DSA
 * Art. 20); the statement of reasons mail links here with the item's id. Staff review it.
 */
export function AppealPage() {
  const [params] = useSearchParams();
  const itemId = params.get('item') ?? '';
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  // A logged-in owner is not asked to log in (the mail's link opens this page either way).
  const { account } = useSession();

  const send = async ({ text }: { text: string }) => {
    setSending(true);
    setError(null);
    const answer = await apiPost(`/reports/appeals/${encodeURIComponent(itemId)}`, { text });
    setSending(false);
    if (answer.ok) setDone(true);
    else if (answer.status === 401)
      setError('Log in with the account the item was removed from, then come back.');
    else setError(errorText(answer));
  };

  if (done) {
    return (
      <Result
        status="success"
        title="Appeal received"
        subTitle="A member of staff reviews it and emails you the result."
      />
    );
  }
  return (
    <Space direction="vertical" size="large" style={{ width: '100%', maxWidth: 640, margin: '0 auto' }}>
      <Typography.Title level={2}>Appeal a removal</Typography.Title>
      <Typography.Paragraph type="secondary">
        Item {itemId || '(none)'}. Tell us why the removal was wrong. You can appeal once; you may also use an
        out-of-court dispute settlement body or a court.
        {!account && (
          <>
            {' '}
            <Link to={Paths.login}>Log in</Link> first, with the account the item was removed from.
          </>
        )}
      </Typography.Paragraph>
      <Form layout="vertical" onFinish={(values: { text: string }) => void send(values)}>
        <Form.Item name="text" label="Your appeal" rules={[{ required: true, whitespace: true }]}>
          <Input.TextArea rows={5} maxLength={REPORT_LIMITS.explanationChars} showCount />
        </Form.Item>
        {error && <Alert type="error" showIcon message={error} style={{ marginBottom: 16 }} />}
        <Button type="primary" htmlType="submit" loading={sending} disabled={!itemId}>
          Send appeal
        </Button>
      </Form>
    </Space>
  );
}
