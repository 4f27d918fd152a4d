import {
  JobTools,
  REASON_MAX,
  TOOL_LABELS,
  type BulkReimbursePreview,
  type BulkReimburseRequest,
  plural,
} from '@studio/contracts';
import { Alert, Button, Card, DatePicker, Form, Input, Popconfirm, Space, Table, Typography } from 'antd';
import { useState } from 'react';
import { apiPost, errorText } from '../../api/client';
import { FormSelect } from '../../ui/FormSelect';
import { useToast } from '../../ui/toast';

const TOOL_OPTIONS = JobTools.map((tool) => ({ value: tool, label: TOOL_LABELS[tool] }));

interface RangeValue {
  toISOString(): string;
}

interface FormValues {
  tool: string;
  window: [RangeValue, RangeValue];
  reason: string;
}

function toRequest({ tool, window, reason }: FormValues): BulkReimburseRequest {
  return { tool, from: window[0].toISOString(), to: window[1].toISOString(), reason: reason.trim() };
}

/**
 * Reimburses everyone who spent on a tool in a time window: a preview of who gets what first
 * (POST /api/support/reimburse/tool/preview), then the confirmed payout (POST .../reimburse/tool).
 * The server pays each spend at most once, so repeating it is harmless.
 */
export function BulkReimburseCard({ onDone }: { onDone?(): void }) {
  const toast = useToast();
  const [form] = Form.useForm<FormValues>();
  const [preview, setPreview] = useState<{
    request: BulkReimburseRequest;
    answer: BulkReimbursePreview;
  } | null>(null);
  const [busy, setBusy] = useState(false);

  const showPreview = async (values: FormValues) => {
    const request = toRequest(values);
    setBusy(true);
    const result = await apiPost<BulkReimbursePreview>('/support/reimburse/tool/preview', request);
    setBusy(false);
    const answer = result.body?.content;
    if (result.ok && answer && typeof answer === 'object') setPreview({ request, answer });
    else toast.error(errorText(result));
  };

  const confirm = async () => {
    if (!preview) return;
    setBusy(true);
    const result = await apiPost<BulkReimbursePreview>('/support/reimburse/tool', preview.request);
    setBusy(false);
    const answer = result.body?.content;
    if (result.ok && answer && typeof answer === 'object') {
      toast.success(
        `Reimbursed ${plural(answer.totalCredits, 'credit')} to ${plural(answer.users.length, 'user')}`,
      );
      setPreview(null);
      form.resetFields();
      onDone?.();
    } else {
      toast.error(errorText(result));
    }
  };

  return (
    <Card size="small" title="Reimburse a tool outage">
      <Form<FormValues>
        name="bulkReimburse"
        form={form}
        layout="vertical"
        disabled={busy}
        onValuesChange={() => setPreview(null)}
        onFinish={(values) => void showPreview(values)}
      >
        <Form.Item label="Tool" name="tool" rules={[{ required: true, message: 'Which tool?' }]}>
          <FormSelect options={TOOL_OPTIONS} placeholder="Tool" />
        </Form.Item>
        <Form.Item label="Window" name="window" rules={[{ required: true, message: 'When?' }]}>
          <DatePicker.RangePicker showTime style={{ width: '100%' }} />
        </Form.Item>
        <Form.Item
          label="Reason"
          name="reason"
          rules={[{ required: true, whitespace: true, message: 'A reason is required' }]}
        >
          <Input maxLength={REASON_MAX} />
        </Form.Item>
        <Button htmlType="submit" loading={busy && !preview}>
          Preview
        </Button>
      </Form>
      {preview && <PreviewList preview={preview.answer} busy={busy} onConfirm={() => void confirm()} />}
    </Card>
  );
}

function PreviewList({
  preview,
  busy,
  onConfirm,
}: {
  preview: BulkReimbursePreview;
  busy: boolean;
  onConfirm(): void;
}) {
  if (preview.users.length === 0) {
    return (
      <Alert style={{ marginTop: 16 }} type="info" showIcon message="Nobody to reimburse in that window." />
    );
  }
  return (
    <Space direction="vertical" style={{ width: '100%', marginTop: 16 }}>
      <Typography.Text data-testid="bulk-total">
        {plural(preview.users.length, 'user')}, {plural(preview.totalCredits, 'credit')} in total
      </Typography.Text>
      <Table
        rowKey="username"
        size="small"
        pagination={{ pageSize: 10, hideOnSinglePage: true }}
        dataSource={preview.users}
        columns={[
          { title: 'Username', dataIndex: 'username' },
          { title: 'Credits', dataIndex: 'amount', align: 'right' },
        ]}
      />
      <Popconfirm
        title="Reimburse everyone listed?"
        description={`${plural(preview.totalCredits, 'credit')} to ${plural(preview.users.length, 'user')}`}
        okText="Reimburse"
        onConfirm={onConfirm}
      >
        <Button type="primary" loading={busy}>
          Reimburse {plural(preview.users.length, 'user')}
        </Button>
      </Popconfirm>
    </Space>
  );
}
