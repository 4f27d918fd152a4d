import { Alert, Button, Form, Input } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { apiPost, errorText } from '../../api/client';
import { Paths } from '../../paths';
import { AuthCard } from '../../ui/AuthCard';
import { useToast } from '../../ui/toast';

/** Asks for a reset link. The answer is the same whether or not the address has an account. */
export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const toast = useToast();
  const onFinish = async ({ email = '' }: { email?: string }) => {
    setSending(true);
    const result = await apiPost<string>('/password/forgot', { email: email.trim() });
    setSending(false);
    if (result.ok && result.body) setSent(result.body.content);
    else toast.error(errorText(result));
  };
  return (
    <AuthCard title="Forgot password" footer={<Link to={Paths.login}>Back to Log In</Link>}>
      {sent ? (
        <Alert type="success" showIcon message={sent} style={{ marginBottom: 16 }} />
      ) : (
        <Form layout="vertical" onFinish={onFinish} requiredMark={false}>
          <Form.Item label="Email" name="email">
            <Input type="email" autoComplete="email" />
          </Form.Item>
          <Form.Item>
            <Button type="primary" htmlType="submit" block size="large" loading={sending}>
              Send reset link
            </Button>
          </Form.Item>
        </Form>
      )}
    </AuthCard>
  );
}
