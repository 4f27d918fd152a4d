import { AccountMessages, API_PREFIX, type AccountOverview, type SessionView } from '@studio/contracts';
import {
  Alert,
  Button,
  Card,
  Flex,
  Form,
  Grid,
  Input,
  List,
  Modal,
  Space,
  Spin,
  Table,
  Tag,
  Typography,
} from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiGet, apiPost, apiRequest, errorText, type ApiResult } from '../../api/client';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';
import { useToast } from '../../ui/toast';
import { ApiKeysCard } from './ApiKeysCard';
import { WebhooksCard } from './WebhooksCard';
import { NEW_PASSWORD_RULE } from './newPasswordRule';
import { formatWhen } from '../../ui/formatWhen';

/** Profile → Account: email, password, sessions, export and deletion. */
export function AccountPage() {
  return useRequireLogin() ? <AccountScreen /> : null;
}

function AccountScreen() {
  const [overview, setOverview] = useState<AccountOverview | null>(null);
  const toast = useToast();
  const load = useCallback(async () => {
    const result = await apiGet<AccountOverview>('/account');
    if (result.ok && result.body) setOverview(result.body.content);
    else toast.error(errorText(result));
  }, [toast]);
  useEffect(() => {
    void load();
  }, [load]);

  if (!overview) return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
  return (
    <Space direction="vertical" size="large" style={{ width: '100%', maxWidth: 760 }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Account
      </Typography.Title>
      <EmailCard overview={overview} />
      <PasswordCard />
      <SessionsCard />
      <ApiKeysCard />
      <WebhooksCard />
      <DataCard username={overview.username} />
    </Space>
  );
}

/** Says what the answer said: a success toast, or the server's error text. */
function useReport() {
  const toast = useToast();
  return useCallback(
    (result: ApiResult<string>) => {
      if (result.ok && result.body) toast.success(result.body.content);
      else toast.error(errorText(result));
      return result.ok;
    },
    [toast],
  );
}

function EmailCard({ overview }: { overview: AccountOverview }) {
  const report = useReport();
  const [sending, setSending] = useState(false);
  const resend = async () => {
    setSending(true);
    report(await apiPost<string>('/account/verification'));
    setSending(false);
  };
  return (
    <Card title="Email">
      <Flex align="center" gap="middle" wrap>
        <Typography.Text strong>{overview.email}</Typography.Text>
        {overview.emailVerified ? <Tag color="green">Verified</Tag> : <Tag color="orange">Not verified</Tag>}
      </Flex>
      {!overview.emailVerified && (
        <Alert
          style={{ marginTop: 16 }}
          type="warning"
          showIcon
          message="Verify your address to buy coins"
          description="Open the link we mailed you when you registered. No mail? Send a new link."
          action={
            <Button onClick={resend} loading={sending}>
              Send a new link
            </Button>
          }
        />
      )}
    </Card>
  );
}

interface PasswordValues {
  currentPassword: string;
  password: string;
  confirm: string;
}

function PasswordCard() {
  const [form] = Form.useForm<PasswordValues>();
  const report = useReport();
  const [saving, setSaving] = useState(false);
  const onFinish = async ({ currentPassword, password }: PasswordValues) => {
    setSaving(true);
    if (report(await apiPost<string>('/account/password', { currentPassword, password }))) form.resetFields();
    setSaving(false);
  };
  return (
    <Card title="Change password">
      <Form form={form} layout="vertical" onFinish={onFinish} requiredMark={false} style={{ maxWidth: 380 }}>
        <Form.Item
          label="Current password"
          name="currentPassword"
          rules={[{ required: true, message: 'Enter your current password' }]}
        >
          <Input.Password autoComplete="current-password" />
        </Form.Item>
        <Form.Item label="New password" name="password" rules={[NEW_PASSWORD_RULE]}>
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Form.Item
          label="Repeat the new password"
          name="confirm"
          dependencies={['password']}
          rules={[
            { required: true, message: 'Repeat the new password' },
            ({ getFieldValue }) => ({
              validator: (_, value) =>
                !value || value === getFieldValue('password')
                  ? Promise.resolve()
                  : Promise.reject(new Error('The two passwords differ')),
            }),
          ]}
        >
          <Input.Password autoComplete="new-password" />
        </Form.Item>
        <Typography.Paragraph type="secondary">
          Your other sessions are logged out when it changes.
        </Typography.Paragraph>
        <Button type="primary" htmlType="submit" loading={saving}>
          Change password
        </Button>
      </Form>
    </Card>
  );
}

function SessionsCard() {
  const [sessions, setSessions] = useState<SessionView[] | null>(null);
  const report = useReport();
  const load = useCallback(async () => {
    const result = await apiGet<SessionView[]>('/account/sessions');
    if (result.ok && result.body) setSessions(result.body.content);
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  const endOne = async (id: string) => {
    report(await apiRequest<string>('DELETE', `/account/sessions/${encodeURIComponent(id)}`));
    await load();
  };
  const endOthers = async () => {
    report(await apiPost<string>('/account/sessions/logout-others'));
    await load();
  };
  const others = (sessions ?? []).filter((s) => !s.current).length;
  // A phone has no room for four columns: each session is a short block there instead.
  const wide = Grid.useBreakpoint().sm !== false;
  const deviceOf = (row: SessionView) => (
    <Space wrap size={4}>
      {row.device}
      {row.current && <Tag color="blue">This device</Tag>}
    </Space>
  );
  const endButton = (row: SessionView) =>
    row.current ? null : (
      <Button size="small" onClick={() => endOne(row.id)} aria-label={`Log out ${row.device}`}>
        Log out
      </Button>
    );
  const endOthersButton = (
    <Button danger onClick={endOthers} disabled={others === 0}>
      Log out everywhere else
    </Button>
  );
  return (
    <Card title="Sessions" extra={wide ? endOthersButton : undefined}>
      {wide ? (
        <Table<SessionView>
          rowKey="id"
          size="small"
          loading={!sessions}
          dataSource={sessions ?? []}
          pagination={false}
          columns={[
            { title: 'Device', dataIndex: 'device', render: (_: string, row) => deviceOf(row) },
            { title: 'Signed in', dataIndex: 'signedInAt', render: (iso?: string) => formatWhen(iso) },
            { title: 'Last used', dataIndex: 'lastUsedAt', render: (iso?: string) => formatWhen(iso) },
            { title: '', key: 'end', render: (_, row) => endButton(row) },
          ]}
        />
      ) : (
        <Space direction="vertical" size="middle" style={{ width: '100%' }}>
          <List<SessionView>
            loading={!sessions}
            dataSource={sessions ?? []}
            rowKey="id"
            renderItem={(row) => (
              <List.Item data-testid="session" actions={row.current ? undefined : [endButton(row)]}>
                <List.Item.Meta
                  title={deviceOf(row)}
                  description={
                    <>
                      <div>Signed in {formatWhen(row.signedInAt)}</div>
                      <div>Last used {formatWhen(row.lastUsedAt)}</div>
                    </>
                  }
                />
              </List.Item>
            )}
          />
          {endOthersButton}
        </Space>
      )}
    </Card>
  );
}

function DataCard({ username }: { username: string }) {
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState('');
  const [deleting, setDeleting] = useState(false);
  const toast = useToast();
  const { refresh } = useSession();
  const navigate = useNavigate();
  const remove = async () => {
    setDeleting(true);
    const result = await apiRequest<string>('DELETE', '/account', { password });
    setDeleting(false);
    if (!result.ok) return toast.error(errorText(result));
    setOpen(false);
    toast.success(result.body?.content ?? AccountMessages.accountDeleted);
    await refresh();
    navigate(Paths.home, { replace: true });
  };
  return (
    <Card title="Your data">
      <Space direction="vertical" size="middle">
        <Typography.Paragraph style={{ margin: 0 }}>
          Download everything in your folders, with your credit history and jobs as CSV, in one zip.
        </Typography.Paragraph>
        <Button href={`${API_PREFIX}/account/export`} download={`studio-export-${username}.zip`}>
          Export my data
        </Button>
        <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
          Deleting your account removes your folders and files for good. Credit records are kept, without your
          name, for the books.
        </Typography.Paragraph>
        <Button danger onClick={() => setOpen(true)}>
          Delete my account
        </Button>
      </Space>
      <Modal
        open={open}
        title="Delete your account?"
        okText="Delete for good"
        okButtonProps={{ danger: true, disabled: !password, loading: deleting }}
        onOk={remove}
        onCancel={() => setOpen(false)}
        destroyOnClose
      >
        <Typography.Paragraph>This cannot be undone. Enter your password to confirm.</Typography.Paragraph>
        <Input.Password
          aria-label="Password to confirm"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </Modal>
    </Card>
  );
}
