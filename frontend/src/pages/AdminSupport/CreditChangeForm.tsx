import { CREDIT_AMOUNT_MAX, REASON_MAX, type ReimburseRequest, plural } from '@studio/contracts';
import { Button, Form, Input, InputNumber } from 'antd';
import { useRef, useState } from 'react';
import { apiPost, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';
import { newRequestId } from './requestId';

interface CreditChangeAnswer {
  username: string;
  amount: number;
  balance: number;
}

interface FormValues {
  amount: number;
  reason: string;
}

/**
 * Gives one user credits with a reason: POST /api/support/reimburse (support) or
 * /api/admin/credits/grant (admins). Each submission carries a request id, renewed after a
 * success, so a retried click never pays twice.
 */
export function CreditChangeForm({
  username,
  path,
  action,
  onDone,
}: {
  username: string;
  path: '/support/reimburse' | '/admin/credits/grant';
  action: string;
  onDone(balance: number): void;
}) {
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
      toast.success(`${action}: ${plural(amount, 'credit')} to ${username}`);
      onDone(content.balance);
    } else {
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
      <Form.Item label="Credits" name="amount" rules={[{ required: true, message: 'How many credits?' }]}>
        <InputNumber min={1} max={CREDIT_AMOUNT_MAX} precision={0} style={{ width: '100%' }} />
      </Form.Item>
      <Form.Item
        label="Reason"
        name="reason"
        rules={[{ required: true, whitespace: true, message: 'A reason is required' }]}
      >
        <Input.TextArea maxLength={REASON_MAX} showCount autoSize={{ minRows: 2, maxRows: 4 }} />
      </Form.Item>
      <Button type="primary" htmlType="submit" loading={busy}>
        {action}
      </Button>
    </Form>
  );
}
