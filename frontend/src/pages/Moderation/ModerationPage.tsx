import { Alert, Col, Empty, Row, Space, Spin, Typography } from 'antd';
import { MODERATORS, RequireRole } from '../../admin/RequireRole';
import { useSession } from '../../session/useSession';
import { HeldItemCard } from './HeldItemCard';
import { useHeldItems } from './useHeldItems';

/** /admin/moderation: outputs held for review, live; moderators and admins release or remove them. */
export function ModerationPage() {
  return (
    <RequireRole roles={MODERATORS}>
      <Moderation />
    </RequireRole>
  );
}

function Moderation() {
  const { account } = useSession();
  const queue = useHeldItems();
  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Typography.Title level={2} style={{ margin: 0 }}>
        Moderation
      </Typography.Title>
      <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
        Outputs held for review, oldest first. Pictures stay blurred until you reveal them. Every decision
        needs a reason: it is kept in the activity log and shown to the owner.
      </Typography.Paragraph>
      {queue.error && <Alert type="error" showIcon message={queue.error} />}
      {queue.loading ? (
        <Spin style={{ display: 'block', margin: '48px auto' }} />
      ) : queue.items.length === 0 ? (
        <Empty description="Nothing is waiting for review" />
      ) : (
        <Row gutter={[16, 16]}>
          {queue.items.map((item) => (
            <Col key={item.itemId} xs={24} md={12} xl={8}>
              <HeldItemCard
                item={item}
                own={item.owner.toLowerCase() === account?.toLowerCase()}
                onDecided={queue.drop}
              />
            </Col>
          ))}
        </Row>
      )}
    </Space>
  );
}
