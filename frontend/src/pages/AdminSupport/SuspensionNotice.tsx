import type { UserSummary } from '@studio/contracts';
import { Alert, Button } from 'antd';
import { useState } from 'react';
import { apiDelete, errorText } from '../../api/client';
import { formatLocalDateTime } from '../../admin/format';
import { useToast } from '../../ui/toast';

/**
 * A suspended account (repeated confirmed removals, docs/takedown.md): when, why, by which report;
 * admins lift it by hand with DELETE /api/admin/users/{username}/suspension (audited).
 */
export function SuspensionNotice({
  user,
  isAdmin,
  onLifted,
}: {
  user: UserSummary;
  isAdmin: boolean;
  onLifted(): void;
}) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const suspended = user.suspended;
  if (!suspended) return null;

  const lift = async () => {
    setBusy(true);
    const result = await apiDelete(`/admin/users/${encodeURIComponent(user.username)}/suspension`);
    setBusy(false);
    if (result.ok) {
      onLifted();
      toast.success(`${user.username} can log in again`);
    } else {
      toast.error(errorText(result));
    }
  };

  return (
    <Alert
      style={{ marginTop: 12 }}
      type="warning"
      showIcon
      message={`Suspended since ${formatLocalDateTime(suspended.at)}`}
      description={`After ${suspended.removals ?? 'repeated'} confirmed removals of reported content${
        suspended.reportId ? ` (the last by report ${suspended.reportId})` : ''
      }. Login, sessions and API keys are refused.`}
      action={
        isAdmin && (
          <Button size="small" loading={busy} onClick={() => void lift()}>
            Lift suspension
          </Button>
        )
      }
    />
  );
}
