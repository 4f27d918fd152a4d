import {
  AGE_ASSURANCE_METHOD_LABELS,
  type AgeAssuranceStatus,
  type ManualAgeCheckRequest,
  type UserSummary,
} from '@studio/contracts';
import { Button, Input, Space, Tag, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { apiGet, apiPost, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';

/**
 * Support records an age check made outside the studio (an ID seen on a call, say): the reason goes
 * to the activity log with the staff member's name; the document itself is never kept.
 */
export function AgeCheckEditor({ user }: { user: UserSummary }) {
  const toast = useToast();
  const [status, setStatus] = useState<AgeAssuranceStatus | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const path = `/support/users/${encodeURIComponent(user.username)}/age-assurance`;

  useEffect(() => {
    void apiGet<AgeAssuranceStatus>(path).then((result) => {
      if (result.ok && result.body) setStatus(result.body.content);
    });
  }, [path]);

  const record = async () => {
    setBusy(true);
    const payload: ManualAgeCheckRequest = { reason };
    const result = await apiPost<AgeAssuranceStatus>(path, payload);
    setBusy(false);
    if (result.ok && result.body) {
      setStatus(result.body.content);
      toast.success(`${user.username} is now age-checked`);
    } else {
      toast.error(errorText(result));
    }
  };

  if (!status) return null;
  return (
    <Space direction="vertical" style={{ marginTop: 12, display: 'flex' }} data-testid="age-check-editor">
      <Space>
        <Typography.Text>Age check</Typography.Text>
        {status.assured ? (
          <Tag color="green">{status.method ? AGE_ASSURANCE_METHOD_LABELS[status.method] : 'checked'}</Tag>
        ) : (
          <Tag>not checked</Tag>
        )}
      </Space>
      {!status.assured && (
        <Space.Compact style={{ width: '100%' }}>
          <Input
            aria-label="What was checked"
            placeholder="What you checked, e.g. passport seen on a video call, ticket 123"
            maxLength={500}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
          <Button loading={busy} disabled={reason.trim().length < 10} onClick={record}>
            Record age check
          </Button>
        </Space.Compact>
      )}
    </Space>
  );
}
