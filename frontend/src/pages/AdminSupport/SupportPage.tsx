import { CheckCircleFilled, StarFilled } from '@ant-design/icons';
import { formatCount, type SetBadgesRequest, type UserSummary } from '@studio/contracts';
import { Alert, Card, Col, Descriptions, Empty, Input, List, Row, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { creditsAsDollars, formatLocalDateTime } from '../../admin/format';
import { RequireRole, SUPPORT_STAFF } from '../../admin/RequireRole';
import { useSession } from '../../session/useSession';
import { AgeCheckEditor } from './AgeCheckEditor';
import { ApprovalsCard } from './ApprovalsCard';
import { BadgesEditor } from './BadgesEditor';
import { BulkReimburseCard } from './BulkReimburseCard';
import { CreditChangeForm } from './CreditChangeForm';
import { CreditHistoryTable } from './CreditHistoryTable';
import { PatreonSecretCard } from './PatreonSecretCard';
import { RoleEditor } from './RoleEditor';
import { SuspensionNotice } from './SuspensionNotice';
import { supportHistoryPath, useCreditHistory } from './useCreditHistory';
import { useUserSearch } from './useUserSearch';

/** /admin/support: find a user, see their credits, reimburse; admins also badges, grants, Patreon. */
export function SupportPage() {
  return (
    <RequireRole roles={SUPPORT_STAFF}>
      <Support />
    </RequireRole>
  );
}

function Support() {
  const { isAdmin, account } = useSession();
  const lookup = useUserSearch();
  const [selected, setSelected] = useState<UserSummary | null>(null);
  // Bumped when a grant becomes an approval request, so the list shows it.
  const [approvalsKey, setApprovalsKey] = useState(0);

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Support
      </Typography.Title>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={8}>
          <Card size="small" title="Find a user">
            <Input.Search
              aria-label="Find a user"
              placeholder="Start of a username"
              maxLength={32}
              enterButton
              allowClear
              loading={lookup.searching}
              onSearch={(query) => void lookup.search(query)}
            />
            {lookup.error && <Alert style={{ marginTop: 12 }} type="error" showIcon message={lookup.error} />}
            <List
              style={{ marginTop: 12 }}
              size="small"
              dataSource={lookup.users}
              locale={{ emptyText: 'No users found' }}
              renderItem={(user) => (
                <List.Item
                  role="button"
                  tabIndex={0}
                  style={{ cursor: 'pointer' }}
                  onClick={() => setSelected(user)}
                  onKeyDown={(event) => {
                    if (event.key === 'Enter') setSelected(user);
                  }}
                  aria-selected={selected?.username === user.username}
                  data-testid={`user-${user.username}`}
                >
                  <Space>
                    <Typography.Text strong={selected?.username === user.username}>
                      {user.username}
                    </Typography.Text>
                    {user.role !== 'user' && <Tag>{user.role}</Tag>}
                    {(selected?.username === user.username ? selected : user).suspended && (
                      <Tag color="red">suspended</Tag>
                    )}
                  </Space>
                  {/* The picked user's balance follows the changes made in the panel. */}
                  <Typography.Text type="secondary">
                    {formatCount(selected?.username === user.username ? selected.balance : user.balance)}{' '}
                    credits
                  </Typography.Text>
                </List.Item>
              )}
            />
          </Card>
        </Col>
        <Col xs={24} lg={16}>
          {selected ? (
            <UserPanel
              key={selected.username}
              user={selected}
              isAdmin={isAdmin}
              self={account}
              onChange={setSelected}
              onPending={() => setApprovalsKey((k) => k + 1)}
            />
          ) : (
            <Card size="small">
              <Empty description="Pick a user to see their credits" />
            </Card>
          )}
        </Col>
      </Row>
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={isAdmin ? 14 : 24}>
          <BulkReimburseCard />
        </Col>
        {isAdmin && (
          <Col xs={24} lg={10}>
            <PatreonSecretCard />
          </Col>
        )}
      </Row>
      {isAdmin && <ApprovalsCard self={account} reloadKey={approvalsKey} />}
    </Space>
  );
}

function UserPanel({
  user,
  isAdmin,
  self,
  onChange,
  onPending,
}: {
  user: UserSummary;
  isAdmin: boolean;
  self: string | null;
  onChange(user: UserSummary): void;
  onPending(): void;
}) {
  const history = useCreditHistory(supportHistoryPath(user.username));
  const creditsChanged = (balance: number) => {
    onChange({ ...user, balance });
    history.reload();
  };
  const badgesChanged = (badges: SetBadgesRequest) => onChange({ ...user, ...badges });

  return (
    <Space direction="vertical" size="middle" style={{ width: '100%' }}>
      <Card size="small" title={user.username} extra={<BadgeTags user={user} />}>
        <Descriptions size="small" column={{ xs: 1, sm: 3 }}>
          <Descriptions.Item label="Balance">
            <span data-testid="user-balance">{formatCount(user.balance)}</span>&nbsp;credits (
            {creditsAsDollars(user.balance)})
          </Descriptions.Item>
          <Descriptions.Item label="Role">{user.role}</Descriptions.Item>
          {user.createdAt && (
            <Descriptions.Item label="Joined">{formatLocalDateTime(user.createdAt)}</Descriptions.Item>
          )}
        </Descriptions>
        <SuspensionNotice
          user={user}
          isAdmin={isAdmin}
          onLifted={() => onChange({ ...user, suspended: undefined })}
        />
        {isAdmin && <BadgesEditor user={user} onChanged={badgesChanged} />}
        <AgeCheckEditor user={user} />
        {isAdmin && <RoleEditor user={user} self={self} onChanged={(role) => onChange({ ...user, role })} />}
      </Card>
      <Row gutter={[16, 16]}>
        <Col xs={24} md={isAdmin ? 12 : 24}>
          <Card size="small" title="Reimburse">
            <CreditChangeForm
              username={user.username}
              path="/support/reimburse"
              action="Reimburse"
              isAdmin={isAdmin}
              onDone={creditsChanged}
            />
          </Card>
        </Col>
        {isAdmin && (
          <Col xs={24} md={12}>
            <Card size="small" title="Grant credits">
              <CreditChangeForm
                username={user.username}
                path="/admin/credits/grant"
                action="Grant"
                isAdmin={isAdmin}
                onDone={creditsChanged}
                onPending={onPending}
              />
            </Card>
          </Col>
        )}
      </Row>
      <Card size="small" title="Credit history">
        <CreditHistoryTable data={history.data} loading={history.loading} onPageChange={history.changePage} />
      </Card>
    </Space>
  );
}

/** Both badges as the user has them (the public profile shows only one). */
function BadgeTags({ user }: { user: UserSummary }) {
  if (!user.verified && !user.early) return <Tag>No badges</Tag>;
  return (
    <Space size={4}>
      {user.verified && (
        <Tag color="blue" icon={<CheckCircleFilled />}>
          Verified
        </Tag>
      )}
      {user.early && (
        <Tag color="gold" icon={<StarFilled />}>
          Early supporter
        </Tag>
      )}
    </Space>
  );
}
