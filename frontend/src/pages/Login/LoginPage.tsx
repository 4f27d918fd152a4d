import { Button, Form, Input } from 'antd';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';
import { AuthCard } from '../../ui/AuthCard';

interface LoginFormValues {
  username?: string;
  password?: string;
}

/** Login (spec section 2). No client-side validation: the server answers every case. */
export function LoginPage() {
  const { login } = useSession();
  const navigate = useNavigate();
  const [submitting, setSubmitting] = useState(false);

  const onFinish = async ({ username = '', password = '' }: LoginFormValues) => {
    setSubmitting(true);
    const success = await login({ username: username.trim(), password });
    setSubmitting(false);
    if (success) navigate(Paths.home);
  };

  return (
    <AuthCard
      title="Log In"
      footer={
        <>
          No account yet? <Link to={Paths.register}>Register</Link>
        </>
      }
    >
      <Form layout="vertical" onFinish={onFinish} requiredMark={false}>
        <Form.Item label="Username" name="username">
          <Input autoComplete="username" />
        </Form.Item>
        <Form.Item
          label="Password"
          name="password"
          extra={<Link to={Paths.forgotPassword}>Forgot password?</Link>}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" block size="large" loading={submitting}>
            Log In
          </Button>
        </Form.Item>
      </Form>
    </AuthCard>
  );
}
