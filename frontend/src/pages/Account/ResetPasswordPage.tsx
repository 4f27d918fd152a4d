import { Button, Form, Input, Result } from 'antd';
import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { apiPost, errorText } from '../../api/client';
import { Paths } from '../../paths';
import { AuthCard } from '../../ui/AuthCard';
import { useToast } from '../../ui/toast';
import { NEW_PASSWORD_RULE } from './newPasswordRule';

/** The page a reset mail links to: a new password for the token in the address. */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [saving, setSaving] = useState(false);
  const toast = useToast();
  const navigate = useNavigate();
  if (!token) {
    return (
      <Result
        status="warning"
        title="This link is incomplete"
        extra={<Link to={Paths.forgotPassword}>Ask for a new one</Link>}
      />
    );
  }
  const onFinish = async ({ password = '' }: { password?: string }) => {
    setSaving(true);
    const result = await apiPost<string>('/password/reset', { token, password });
    setSaving(false);
    if (!result.ok || !result.body) return toast.error(errorText(result));
    toast.success(result.body.content);
    navigate(Paths.login, { replace: true });
  };
  return (
    <AuthCard
      title="Choose a new password"
      footer={<Link to={Paths.forgotPassword}>Ask for a new link</Link>}
    >
      <Form layout="vertical" onFinish={onFinish} requiredMark={false}>
        <Form.Item label="New password" name="password" rules={[NEW_PASSWORD_RULE]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" block size="large" loading={saving}>
            Set password
          </Button>
        </Form.Item>
      </Form>
    </AuthCard>
  );
}
