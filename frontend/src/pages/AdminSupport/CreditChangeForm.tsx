import {
  CREDIT_APPROVAL_THRESHOLD,
  Messages,
  REASON_MAX,
  STAFF_CREDIT_LIMITS,
  formatCount,
  nameProblem,
  plural,
  type CreditChangeAnswer,
  type ReimburseRequest,
} from '@studio/contracts';
import { Button, Form, Input, InputNumber } from 'antd';
import { useRef, useState } from 'react';
import { apiPost, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';
import { newRequestId } from './requestId';

interface FormValues {
  amount: number;
  reason: string;
}

/**
 * Gives one user credits with a reason: POST /api/support/reimburse (support) or
 * /api/admin/credits/grant (admins). Each submission carries a request id, renewed after a
 * success, so a retried click never pays twice. At most the role's per-call limit; an admin
 * grant above CREDIT_APPROVAL_THRESHOLD waits for another admin (the server answers 202).
 */
export function CreditChangeForm({
  username,
  path,
  action,
  isAdmin,
  onDone,
  onPending,
}: {
  username: string;
  path: '/support/reimburse' | '/admin/credits/grant';
  action: string;
  isAdmin: boolean;
  onDone(balance: number): void;
  onPending?(): void;
}) {
  const perCall = STAFF_CREDIT_LIMITS[isAdmin ? 'admin' : 'support'].perCall;
  const toast = useToast();
  const [form] = Form.useForm<FormValues>();
  const [busy, setBusy] = useState(false);
  const requestId = useRef(newRequestId());

  const submit = async ({ amount, reason }: FormValues) => {
    setBusy(true);
    const payload: ReimburseRequest & { requestId: string } = {
      username,
      amount,
      reason: reason.trim(),
      requestId: requestId.current,
    };
    const result = await apiPost<CreditChangeAnswer>(path, payload);
    setBusy(false);
    const content = result.body?.content;
    if (result.ok && content && typeof content === 'object') {
      requestId.current = newRequestId();
      form.resetFields();
      if (content.pending) {
        toast.success(`${plural(amount, 'credit')} to ${username}: waiting for another admin to approve`);
        onPending?.();
      } else {
        toast.success(`${action}: ${plural(amount, 'credit')} to ${username}`);
        onDone(content.balance);
      }
    } else {
      // A refusal (4xx) decided this request for good: a corrected amount is a new request. With
      // no answer or a server error the id stays, so sending again cannot credit twice.
      if (result.status >= 400 && result.status < 500) requestId.current = newRequestId();
      toast.error(errorText(result));
    }
  };

  return (
    <Form<FormValues>
      name={path === '/support/reimburse' ? 'reimburse' : 'grant'}
      form={form}
      layout="vertical"
      onFinish={(values) => void submit(values)}
      disabled={busy}
    >
      <Form.Item
        label="Credits"
        name="amount"
        extra={
          path === '/admin/credits/grant'
            ? `At most ${formatCount(perCall)}; above ${formatCount(CREDIT_APPROVAL_THRESHOLD)} another admin approves`
            : `At most ${formatCount(perCall)} at once`
        }
        rules={[{ required: true, message: 'How many credits?' }]}
      >
        <InputNumber min={1} max={perCall} precision={0} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item
        label="Reason"
        name="reason"
        rules={[
          { required: true, whitespace: true, message: 'A reason is required' },
          {
            validator: (_rule, value: unknown) =>
              typeof value === 'string' && nameProblem(value)
                ? Promise.reject(new Error(Messages.unsafeCharacters))
                : Promise.resolve(),
          },
        ]}
      >
        <Input.TextArea maxLength={REASON_MAX} showCount autoSize={{ minRows: 2, maxRows: 4 }} />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={busy}>
        {action}
      </Button>
    </Form>
  );
}
