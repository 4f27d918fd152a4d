import { Button, Checkbox, Form, Input } from 'antd';
import { Link } from 'react-router-dom';
import { Paths } from '../../paths';
import { AuthCard } from '../../ui/AuthCard';
import { useRegister, type RegisterFormValues } from './useRegister';

/**
 * Register (spec section 2) with the 18+ gate. Checks run in useRegister and answer with
 * the spec's toasts, so the form itself declares no antd rules.
 */
export function RegisterPage() {
  const { register, submitting } = useRegister();
  return (
    <AuthCard
      title="Register"
      footer={
        <>
          Already have an account? <Link to={Paths.login}>Log In</Link>
        </>
      }
    >
      <Form<RegisterFormValues> layout="vertical" onFinish={register} initialValues={{ adult: false }}>
        <Form.Item label="Username" name="username">
          <Input autoComplete="username" />
        </Form.Item>
        <Form.Item label="Email" name="email">
          <Input type="email" autoComplete="email" />
        </Form.Item>
        <Form.Item label="Password" name="password">
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item name="adult" valuePropName="checked">
          <Checkbox aria-required>I confirm that I am 18 or older</Checkbox>
        </Form.Item>
        <Form.Item>
          <Button type="primary" htmlType="submit" block size="large" loading={submitting}>
            Register
          </Button>
        </Form.Item>
      </Form>
    </AuthCard>
  );
}
