import { ContentMessages, itemIdFrom, type ContentItem } from '@studio/contracts';
import { Button, Card, Form, Input, Popconfirm, Radio, Typography } from 'antd';
import { useState } from 'react';
import { apiPost, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';

/** As the server accepts (TakedownDto). */
const TAKEDOWN_REASON_MAX = 500;

type TakedownMode = 'hide' | 'delete';

interface FormValues {
  target: string;
  mode: TakedownMode;
  reason: string;
}

interface Planned {
  itemId: string;
  mode: TakedownMode;
  reason: string;
}

const MODE_OPTIONS: { value: TakedownMode; label: string }[] = [
  { value: 'hide', label: 'Hide (keep the file)' },
  { value: 'delete', label: 'Delete the file' },
];

const CONSEQUENCE: Record<TakedownMode, string> = {
  hide: 'The owner can no longer open it; the file is kept.',
  delete: 'Its file is deleted for good.',
};

/**
 * Takes any user's item down (POST /api/admin/content/{itemId}/takedown): the admin pastes the
 * item's content URL or id, chooses hide or delete and gives the reason the owner reads; a
 * confirmation comes first. The owner is told at once by the server.
 */
export function TakedownCard() {
  const toast = useToast();
  const [form] = Form.useForm<FormValues>();
  const [planned, setPlanned] = useState<Planned | null>(null);
  const [busy, setBusy] = useState(false);

  const plan = ({ target, mode, reason }: FormValues) => {
    const itemId = itemIdFrom(target);
    if (itemId) setPlanned({ itemId, mode, reason: reason.trim() });
  };

  const takeDown = async () => {
    if (!planned) return;
    setBusy(true);
    const { itemId, mode, reason } = planned;
    const result = await apiPost<ContentItem>(`/admin/content/${encodeURIComponent(itemId)}/takedown`, {
      mode,
      reason,
    });
    setBusy(false);
    setPlanned(null);
    const item = result.body?.content;
    if (result.ok && item && typeof item === 'object') {
      const title = item.title?.trim() || ContentMessages.noTitle;
      toast.success(
        `Taken down: ${title}`,
        `${mode === 'delete' ? 'The file was deleted' : 'The item is hidden'}; its owner was told why.`,
      );
      form.resetFields();
    } else {
      toast.error(errorText(result));
    }
  };

  return (
    <Card size="small" title="Take down content" data-testid="takedown-card">
      <Typography.Paragraph type="secondary">
        Hide a user&apos;s item or delete its file. The owner is told at once, with your reason.
      </Typography.Paragraph>
      <Form<FormValues>
        name="takedown"
        form={form}
        layout="vertical"
        disabled={busy}
        initialValues={{ mode: 'hide' }}
        onValuesChange={() => setPlanned(null)}
        onFinish={plan}
      >
        <Form.Item
          label="Content URL or item id"
          name="target"
          rules={[
            { required: true, whitespace: true, message: 'Paste the content URL or the item id' },
            {
              validator: async (_, value?: string) => {
                if (value?.trim() && !itemIdFrom(value))
                  throw new Error('Not a content URL (/api/content/…) or an item id');
              },
            },
          ]}
        >
          <Input placeholder="/api/content/665f1c2e9b1d4a0012345678.png" autoComplete="off" />
        </Form.Item>
        <Form.Item label="Action" name="mode">
          <Radio.Group optionType="button" options={MODE_OPTIONS} />
        </Form.Item>
        <Form.Item
          label="Reason"
          name="reason"
          extra="The owner reads this."
          rules={[{ required: true, whitespace: true, message: 'A reason is required' }]}
        >
          <Input.TextArea maxLength={TAKEDOWN_REASON_MAX} showCount autoSize={{ minRows: 2, maxRows: 4 }} />
        </Form.Item>
        <Popconfirm
          open={planned !== null}
          title="Take this item down?"
          description={planned ? `Item ${planned.itemId}. ${CONSEQUENCE[planned.mode]}` : undefined}
          okText="Take down"
          okButtonProps={{ danger: true, loading: busy }}
          placement="topLeft"
          onConfirm={() => void takeDown()}
          onCancel={() => setPlanned(null)}
          onOpenChange={(open) => {
            if (!open && !busy) setPlanned(null);
          }}
        >
          <Button danger type="primary" htmlType="submit" loading={busy}>
            Take down
          </Button>
        </Popconfirm>
      </Form>
    </Card>
  );
}
