import {
  WEBHOOK_EVENT_LABELS,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_LIMITS,
  type CreatedWebhookEndpoint,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookSettings,
  type WebhookEventType,
} from '@studio/contracts';
import {
  Button,
  Card,
  Checkbox,
  Form,
  Input,
  List,
  Modal,
  Popconfirm,
  Space,
  Switch,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { apiDelete, apiGet, apiPatch, apiPost, errorText } from '../../api/client';
import { formatWhen } from '../../ui/formatWhen';
import { useToast } from '../../ui/toast';
import { SecretShownOnce } from './SecretShownOnce';

interface NewEndpointForm {
  url: string;
  events: WebhookEventType[];
}

const STATUS_COLORS: Record<WebhookDeliveryView['status'], string> = {
  pending: 'gold',
  delivered: 'green',
  failed: 'red',
};

/**
 * Profile → Account → Webhooks: register endpoints (the signing secret shown once), switch them on
 * and off, delete them, and see and replay recent deliveries.
 */
export function WebhooksCard() {
  const [endpoints, setEndpoints] = useState<WebhookEndpointView[] | null>(null);
  const [deliveries, setDeliveries] = useState<WebhookDeliveryView[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [saving, setSaving] = useState(false);
  const [made, setMade] = useState<CreatedWebhookEndpoint | null>(null);
  const [localReceivers, setLocalReceivers] = useState(false);
  const [form] = Form.useForm<NewEndpointForm>();
  const toast = useToast();

  const load = useCallback(async () => {
    const [list, recent] = await Promise.all([
      apiGet<WebhookEndpointView[]>('/account/webhooks'),
      apiGet<WebhookDeliveryView[]>('/account/webhooks/deliveries'),
    ]);
    if (list.ok && list.body) setEndpoints(list.body.content);
    else toast.error(errorText(list));
    if (recent.ok && recent.body) setDeliveries(recent.body.content);
  }, [toast]);
  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    void apiGet<WebhookSettings>('/account/webhooks/settings').then((result) => {
      if (result.ok && result.body) setLocalReceivers(result.body.content.localReceivers);
    });
  }, []);

  const create = async (values: NewEndpointForm) => {
    setSaving(true);
    const result = await apiPost<CreatedWebhookEndpoint>('/account/webhooks', {
      url: values.url.trim(),
      events: values.events,
    });
    setSaving(false);
    if (!result.ok || !result.body) return toast.error(errorText(result));
    setCreating(false);
    form.resetFields();
    setMade(result.body.content);
    await load();
  };
  const setEnabled = async (endpoint: WebhookEndpointView, enabled: boolean) => {
    const result = await apiPatch<WebhookEndpointView>(
      `/account/webhooks/${encodeURIComponent(endpoint.id)}`,
      { enabled },
    );
    if (result.ok) toast.success(enabled ? 'Webhook switched on' : 'Webhook switched off');
    else toast.error(errorText(result));
    await load();
  };
  const remove = async (endpoint: WebhookEndpointView) => {
    const result = await apiDelete<null>(`/account/webhooks/${encodeURIComponent(endpoint.id)}`);
    if (result.ok) toast.success('Webhook deleted');
    else toast.error(errorText(result));
    await load();
  };
  const replay = async (delivery: WebhookDeliveryView) => {
    const result = await apiPost<WebhookDeliveryView>(
      `/account/webhooks/deliveries/${encodeURIComponent(delivery.id)}/replay`,
    );
    if (result.ok) toast.success('Sent again');
    else toast.error(errorText(result));
    await load();
  };
  const urlOf = (endpointId: string) => endpoints?.find((e) => e.id === endpointId)?.url ?? '';

  return (
    <Card
      title="Webhooks"
      extra={
        <Button
          onClick={() => setCreating(true)}
          disabled={(endpoints?.length ?? 0) >= WEBHOOK_LIMITS.perAccount}
        >
          New webhook
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">
        Your server hears when a job ends or your balance changes. Each delivery is signed (Standard Webhooks)
        with the endpoint&apos;s secret, retried for 24 hours, and sent in order per job. See the API guide
        (docs/api.md).
      </Typography.Paragraph>
      <List<WebhookEndpointView>
        loading={!endpoints}
        dataSource={endpoints ?? []}
        rowKey="id"
        locale={{ emptyText: 'No webhooks yet' }}
        renderItem={(endpoint) => (
          <List.Item
            data-testid="webhook"
            actions={[
              <Switch
                key="enabled"
                checked={endpoint.enabled}
                aria-label={`${endpoint.enabled ? 'Switch off' : 'Switch on'} ${endpoint.url}`}
                onChange={(on) => setEnabled(endpoint, on)}
              />,
              <Popconfirm
                key="delete"
                title="Delete this webhook?"
                description="Its deliveries are deleted with it."
                okText="Delete"
                okButtonProps={{ danger: true }}
                onConfirm={() => remove(endpoint)}
              >
                <Button size="small" danger aria-label={`Delete ${endpoint.url}`}>
                  Delete
                </Button>
              </Popconfirm>,
            ]}
          >
            <List.Item.Meta
              title={
                <Space wrap size={4}>
                  <Typography.Text style={{ wordBreak: 'break-all' }}>{endpoint.url}</Typography.Text>
                  {!endpoint.enabled && <Tag color="red">Off</Tag>}
                </Space>
              }
              description={
                <>
                  <div>{endpoint.events.map((type) => WEBHOOK_EVENT_LABELS[type]).join(' · ')}</div>
                  <div>
                    Secret <Typography.Text code>{endpoint.secretPreview}…</Typography.Text> · made{' '}
                    {formatWhen(endpoint.createdAt)}
                  </div>
                  {endpoint.disabledReason && (
                    <Typography.Text type="danger" data-testid="webhook-disabled-reason">
                      {endpoint.disabledReason}
                    </Typography.Text>
                  )}
                  {endpoint.enabled && endpoint.failingSince && (
                    <Typography.Text type="warning">
                      Failing since {formatWhen(endpoint.failingSince)}
                    </Typography.Text>
                  )}
                </>
              }
            />
          </List.Item>
        )}
      />
      {deliveries && deliveries.length > 0 && (
        <div data-testid="webhook-deliveries" style={{ marginTop: 16 }}>
          <Typography.Title level={5}>Recent deliveries</Typography.Title>
          <Table<WebhookDeliveryView>
            rowKey="id"
            size="small"
            pagination={false}
            dataSource={deliveries}
            scroll={{ x: true }}
            columns={[
              { title: 'Event', dataIndex: 'type' },
              {
                title: 'Status',
                dataIndex: 'status',
                render: (status: WebhookDeliveryView['status']) => (
                  <Tag color={STATUS_COLORS[status]}>{status}</Tag>
                ),
              },
              { title: 'Attempts', dataIndex: 'attempts', align: 'right' },
              {
                title: 'Last answer',
                key: 'answer',
                render: (_, d) => d.lastStatusCode ?? d.lastError ?? '—',
              },
              { title: 'When', dataIndex: 'createdAt', render: (at: string) => formatWhen(at) },
              {
                title: 'Endpoint',
                dataIndex: 'endpointId',
                render: (id: string) => (
                  <Typography.Text ellipsis style={{ maxWidth: 180 }}>
                    {urlOf(id)}
                  </Typography.Text>
                ),
              },
              {
                title: '',
                key: 'replay',
                render: (_, d) =>
                  d.status === 'pending' ? null : (
                    <Button size="small" onClick={() => replay(d)} aria-label={`Send ${d.id} again`}>
                      Send again
                    </Button>
                  ),
              },
            ]}
          />
        </div>
      )}
      <Modal
        open={creating}
        title="New webhook"
        okText="Add webhook"
        okButtonProps={{ loading: saving }}
        onOk={() => form.submit()}
        onCancel={() => setCreating(false)}
        destroyOnHidden
      >
        <Form<NewEndpointForm>
          form={form}
          name="new-webhook"
          layout="vertical"
          onFinish={create}
          initialValues={{ events: ['job.succeeded', 'job.failed', 'job.cancelled'] }}
        >
          <Form.Item
            name="url"
            label="Address of your receiver"
            extra={
              localReceivers
                ? 'https:// and reachable from the internet, or, on this local install, a receiver on this machine: http://127.0.0.1:PORT/… or http://localhost:PORT/… (docs/examples/clone-with-webhook.mjs is one).'
                : 'https:// and reachable from the internet.'
            }
            rules={[
              { required: true, whitespace: true, message: 'Give the address of your receiver' },
              { max: WEBHOOK_LIMITS.urlMaxLength },
            ]}
          >
            <Input placeholder="https://example.com/studio-webhook" inputMode="url" autoComplete="off" />
          </Form.Item>
          <Form.Item
            name="events"
            label="Events"
            rules={[{ required: true, type: 'array', min: 1, message: 'Choose at least one event' }]}
          >
            <Checkbox.Group
              style={{ display: 'flex', flexDirection: 'column', gap: 4 }}
              options={WEBHOOK_EVENT_TYPES.map((type) => ({
                value: type,
                label: WEBHOOK_EVENT_LABELS[type],
              }))}
            />
          </Form.Item>
        </Form>
      </Modal>
      <SecretShownOnce
        secret={made?.secret ?? null}
        title="Your webhook's signing secret"
        warning="Copy it now: it is shown only this once. Your receiver verifies each delivery with it."
        testId="webhook-secret"
        onClose={() => setMade(null)}
      />
    </Card>
  );
}
