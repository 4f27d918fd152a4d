import { EyeInvisibleOutlined, EyeOutlined } from '@ant-design/icons';
import {
  API_PREFIX,
  ModerationMessages,
  plural,
  sexualScore,
  type ContentScores,
  type HeldItem,
  type ModerationDecision,
  type ModerationDecisionRequest,
  type ModerationOutcome,
} from '@studio/contracts';
import { Alert, Button, Card, Descriptions, Input, Space, Tag, Typography } from 'antd';
import { useState } from 'react';
import { formatLocalDateTime } from '../../admin/format';
import { apiPost, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';

/** A reason in words, as the server asks (ModerationDecisionDto). */
export const MIN_REASON_LENGTH = 10;

const SCORE_LABELS: Record<keyof ContentScores, string> = {
  porn: 'Porn',
  hentai: 'Hentai',
  sexy: 'Suggestive',
  neutral: 'Neutral',
  drawing: 'Drawing',
};

const percent = (score: number) => `${(score * 100).toFixed(1)}%`;

/**
 * One held output: why it was held in plain words, nsfwjs' class scores, each face's estimated
 * age, a preview blurred until the moderator reveals it on purpose, and release or remove with a
 * reason (required; audited and shown to the owner). Nobody decides on their own outputs.
 */
export function HeldItemCard({
  item,
  own,
  onDecided,
}: {
  item: HeldItem;
  own: boolean;
  onDecided(itemId: string): void;
}) {
  const toast = useToast();
  const [revealed, setRevealed] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<ModerationDecision | null>(null);
  const ready = reason.trim().length >= MIN_REASON_LENGTH;

  const decide = async (decision: ModerationDecision) => {
    setBusy(decision);
    const payload: ModerationDecisionRequest = { reason: reason.trim() };
    const action = decision === 'released' ? 'release' : 'remove';
    const result = await apiPost<ModerationOutcome>(
      `/moderation/held/${encodeURIComponent(item.itemId)}/${action}`,
      payload,
    );
    setBusy(null);
    if (result.ok) {
      const refunded = result.body?.content.refunded ?? 0;
      toast.success(
        decision === 'released'
          ? `Released: ${item.owner} can see it now`
          : `Removed: ${item.owner} is told why`,
        refunded > 0 ? `${plural(refunded, 'credit')} refunded to ${item.owner}` : undefined,
      );
      onDecided(item.itemId);
    } else {
      toast.error(errorText(result));
      // Decided by someone else meanwhile: it leaves the list.
      if (result.status === 409) onDecided(item.itemId);
    }
  };

  const scores = item.scores;
  return (
    <Card
      size="small"
      data-testid="held-item"
      title={
        <Space wrap size={4}>
          <Typography.Text strong>{item.title || 'Untitled output'}</Typography.Text>
          <Typography.Text type="secondary">by {item.owner}</Typography.Text>
        </Space>
      }
    >
      <Space direction="vertical" style={{ width: '100%' }}>
        {/* One's own held output is not shown to oneself: that would skip the hold. */}
        {!own && (
          <div
            style={{
              position: 'relative',
              overflow: 'hidden',
              borderRadius: 6,
              background: '#000',
              textAlign: 'center',
            }}
          >
            <img
              src={`${API_PREFIX}/moderation/held/${encodeURIComponent(item.itemId)}/file`}
              alt={revealed ? `Held output of ${item.owner}` : 'Held output (blurred)'}
              data-testid="held-preview"
              data-revealed={revealed ? 'true' : 'false'}
              style={{
                display: 'block',
                width: '100%',
                maxHeight: 320,
                objectFit: 'contain',
                filter: revealed ? 'none' : 'blur(28px)',
                transform: revealed ? 'none' : 'scale(1.1)',
              }}
            />
          </div>
        )}
        {!own && (
          <Button
            block
            icon={revealed ? <EyeInvisibleOutlined /> : <EyeOutlined />}
            onClick={() => setRevealed((value) => !value)}
          >
            {revealed ? 'Blur again' : 'Reveal picture'}
          </Button>
        )}
        <Alert type="warning" showIcon message={item.reasonText} description={<Tag>{item.reason}</Tag>} />
        <Descriptions size="small" column={1} bordered>
          <Descriptions.Item label="Held">{formatLocalDateTime(item.heldAt)}</Descriptions.Item>
          <Descriptions.Item label="Faces">
            {item.faces.length === 0 ? (
              'No face found'
            ) : (
              <Space direction="vertical" size={0} data-testid="held-faces">
                {item.faces.map((face, i) => (
                  <span key={i}>
                    Face {i + 1}: estimated age {face.age}
                  </span>
                ))}
              </Space>
            )}
          </Descriptions.Item>
          <Descriptions.Item label="Sexual (porn + hentai)">
            {scores ? percent(sexualScore(scores)) : 'Not checked'}
          </Descriptions.Item>
          {scores && (
            <Descriptions.Item label="Class scores">
              <Space wrap size={4} data-testid="held-scores">
                {(Object.keys(SCORE_LABELS) as (keyof ContentScores)[]).map((key) => (
                  <Tag key={key}>
                    {SCORE_LABELS[key]} {percent(scores[key])}
                  </Tag>
                ))}
              </Space>
            </Descriptions.Item>
          )}
        </Descriptions>
        {own ? (
          <Alert type="info" showIcon message={ModerationMessages.ownItem} />
        ) : (
          <>
            <Input.TextArea
              aria-label="Reason for the decision"
              placeholder="Why (shown to the owner and kept in the activity log)"
              autoSize={{ minRows: 2, maxRows: 4 }}
              maxLength={500}
              value={reason}
              onChange={(e) => setReason(e.target.value)}
            />
            {!ready && reason.length > 0 && (
              <Typography.Text type="secondary">{ModerationMessages.reasonRequired}</Typography.Text>
            )}
            <Space wrap style={{ width: '100%' }}>
              <Button
                type="primary"
                disabled={!ready || busy !== null}
                loading={busy === 'released'}
                onClick={() => void decide('released')}
              >
                Release
              </Button>
              <Button
                danger
                disabled={!ready || busy !== null}
                loading={busy === 'removed'}
                onClick={() => void decide('removed')}
              >
                Remove
              </Button>
            </Space>
          </>
        )}
      </Space>
    </Card>
  );
}
