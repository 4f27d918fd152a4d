import {
  API_KEY_LIMITS,
  API_KEY_SCOPE_LABELS,
  API_KEY_SCOPES,
  type ApiKeyScope,
  type ApiKeyUsage,
  type ApiKeyView,
  type CreatedApiKey,
  formatCount,
  plural,
} from '@studio/contracts';
import {
  Button,
  Card,
  Checkbox,
  Form,
  Input,
  InputNumber,
  List,
  Modal,
  Popconfirm,
  Space,
  Spin,
  Table,
  Tag,
  Typography,
} from 'antd';
import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { apiGet, apiPost, apiRequest, errorText } from '../../api/client';
import { formatWhen } from '../../ui/formatWhen';
import { useToast } from '../../ui/toast';
import { usageTotals, type UsageTotal } from './apiKeyUsage';
import { SecretShownOnce } from './SecretShownOnce';

// The chart library is large: loaded only when a key has been used.
const ApiKeyUsageChart = lazy(() => import('./ApiKeyUsageChart'));

interface NewKeyForm {
  name: string;
  scopes: ApiKeyScope[];
  monthlyCap?: number | null;
  revokeOnPasswordChange: boolean;
}

/** Profile → Account → API keys: make (the secret shown once), list and revoke personal keys. */
export function ApiKeysCard() {
  const [keys, setKeys] = useState<ApiKeyView[] | null>(null);
  const [creating, setCreating] = useState(false);
  const [saving, setSaving] = useState(false);
  const [made, setMade] = useState<CreatedApiKey | null>(null);
  const [form] = Form.useForm<NewKeyForm>();
  const toast = useToast();
  const load = useCallback(async () => {
    const result = await apiGet<ApiKeyView[]>('/account/api-keys');
    if (result.ok && result.body) setKeys(result.body.content);
    else toast.error(errorText(result));
  }, [toast]);
  useEffect(() => {
    void load();
  }, [load]);

  const create = async (values: NewKeyForm) => {
    setSaving(true);
    const result = await apiPost<CreatedApiKey>('/account/api-keys', {
      name: values.name,
      scopes: values.scopes,
      ...(values.monthlyCap !== undefined && values.monthlyCap !== null
        ? { monthlyCap: values.monthlyCap }
        : {}),
      revokeOnPasswordChange: values.revokeOnPasswordChange,
    });
    setSaving(false);
    if (!result.ok || !result.body) return toast.error(errorText(result));
    setCreating(false);
    form.resetFields();
    setMade(result.body.content);
    await load();
  };
  const revoke = async (key: ApiKeyView) => {
    const result = await apiRequest<ApiKeyView>('DELETE', `/account/api-keys/${encodeURIComponent(key.id)}`);
    if (result.ok) toast.success(`The key "${key.name}" was revoked`);
    else toast.error(errorText(result));
    await load();
  };
  const live = (keys ?? []).filter((key) => !key.revokedAt);
  const [usage, setUsage] = useState<ApiKeyUsage | null>(null);
  useEffect(() => {
    void apiGet<ApiKeyUsage>('/account/api-keys/usage').then((result) => {
      if (result.ok && result.body) setUsage(result.body.content);
    });
  }, [keys]);

  return (
    <Card
      title="API keys"
      extra={
        <Button onClick={() => setCreating(true)} disabled={live.length >= API_KEY_LIMITS.perAccount}>
          New key
        </Button>
      }
    >
      <Typography.Paragraph type="secondary">
        Scripts and other programs use a key instead of your password: send it as{' '}
        <Typography.Text code>Authorization: Bearer …</Typography.Text>. A key can never change your account,
        buy coins or act as staff. See the API guide (docs/api.md).
      </Typography.Paragraph>
      <List<ApiKeyView>
        loading={!keys}
        dataSource={keys ?? []}
        rowKey="id"
        locale={{ emptyText: 'No API keys yet' }}
        renderItem={(key) => (
          <List.Item
            data-testid="api-key"
            actions={
              key.revokedAt
                ? undefined
                : [
                    <Popconfirm
                      key="revoke"
                      title={`Revoke "${key.name}"?`}
                      description="Programs using it stop working at once."
                      okText="Revoke"
                      okButtonProps={{ danger: true }}
                      onConfirm={() => revoke(key)}
                    >
                      <Button size="small" danger aria-label={`Revoke ${key.name}`}>
                        Revoke
                      </Button>
                    </Popconfirm>,
                  ]
            }
          >
            <List.Item.Meta
              title={
                <Space wrap size={4}>
                  {key.name}
                  <Typography.Text code>{key.preview}…</Typography.Text>
                  {key.revokedAt && <Tag color="red">Revoked</Tag>}
                </Space>
              }
              description={
                <>
                  <div>{key.scopes.map((scope) => API_KEY_SCOPE_LABELS[scope]).join(' · ')}</div>
                  <div data-testid="api-key-spend">
                    {key.monthlyCap !== undefined
                      ? `${formatCount(key.spentThisMonth)} of ${plural(key.monthlyCap, 'coin')} spent this month`
                      : `${plural(key.spentThisMonth, 'coin')} spent this month (no cap)`}
                  </div>
                  <div>
                    Made {formatWhen(key.createdAt)} · last used {formatWhen(key.lastUsedAt, 'never')}
                    {key.revokeOnPasswordChange ? ' · ends when you change your password' : ''}
                  </div>
                </>
              }
            />
          </List.Item>
        )}
      />
      {usage && keys && <KeyUsage usage={usage} keys={keys} />}
      <Modal
        open={creating}
        title="New API key"
        okText="Make key"
        okButtonProps={{ loading: saving }}
        onOk={() => form.submit()}
        onCancel={() => setCreating(false)}
        destroyOnHidden
      >
        <Form<NewKeyForm>
          form={form}
          name="new-api-key"
          layout="vertical"
          onFinish={create}
          initialValues={{ scopes: ['read', 'tools'], revokeOnPasswordChange: false }}
        >
          <Form.Item
            name="name"
            label="Name"
            rules={[
              { required: true, whitespace: true, message: 'Give the key a name' },
              { max: API_KEY_LIMITS.nameMaxLength },
            ]}
          >
            <Input placeholder="Weekly upscales" maxLength={API_KEY_LIMITS.nameMaxLength} />
          </Form.Item>
          <Form.Item
            name="scopes"
            label="Permissions"
            rules={[{ required: true, type: 'array', min: 1, message: 'Choose at least one permission' }]}
          >
            <Checkbox.Group
              options={API_KEY_SCOPES.map((scope) => ({ value: scope, label: API_KEY_SCOPE_LABELS[scope] }))}
            />
          </Form.Item>
          <Form.Item
            name="monthlyCap"
            label="Monthly spending cap (coins)"
            extra="Leave empty for no cap beyond your balance."
          >
            <InputNumber min={0} max={API_KEY_LIMITS.monthlyCapMax} precision={0} style={{ width: 200 }} />
          </Form.Item>
          <Form.Item name="revokeOnPasswordChange" valuePropName="checked">
            <Checkbox>End this key when I change my password</Checkbox>
          </Form.Item>
        </Form>
      </Modal>
      <SecretShownOnce
        secret={made?.secret ?? null}
        title="Your new API key"
        warning="Copy it now: it is shown only this once."
        testId="api-key-secret"
        onClose={() => setMade(null)}
      />
    </Card>
  );
}

/** The usage page's part: coins per day per key (chart) and totals per key and tool (30 days). */
function KeyUsage({ usage, keys }: { usage: ApiKeyUsage; keys: ApiKeyView[] }) {
  const totals = useMemo(() => usageTotals(usage, keys), [usage, keys]);
  return (
    <div data-testid="api-key-usage" style={{ marginTop: 16 }}>
      <Typography.Title level={5}>Use in the last {usage.days.length} days</Typography.Title>
      {totals.length === 0 ? (
        <Typography.Text type="secondary">
          No key has run a job in the last {usage.days.length} days.
        </Typography.Text>
      ) : (
        <>
          <Suspense fallback={<Spin style={{ display: 'block', margin: '80px auto' }} />}>
            <ApiKeyUsageChart usage={usage} keys={keys} />
          </Suspense>
          <Table<UsageTotal>
            rowKey="id"
            size="small"
            pagination={false}
            dataSource={totals}
            scroll={{ x: true }}
            columns={[
              { title: 'Key', dataIndex: 'key' },
              { title: 'Tool', dataIndex: 'tool' },
              { title: 'Jobs', dataIndex: 'jobs', align: 'right' },
              { title: 'Coins', dataIndex: 'coins', align: 'right' },
            ]}
          />
        </>
      )}
    </div>
  );
}
