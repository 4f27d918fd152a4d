import type { SetBadgesRequest, UserSummary } from '@studio/contracts';
import { Space, Switch, Typography } from 'antd';
import { useState } from 'react';
import { apiPut, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';

type Badge = keyof SetBadgesRequest;

const BADGES: { key: Badge; label: string }[] = [
  { key: 'verified', label: 'Verified' },
  { key: 'early', label: 'Early supporter' },
];

/** Admins switch a user's badges: PUT /api/admin/users/{username}/badges with the one changed. */
export function BadgesEditor({
  user,
  onChanged,
}: {
  user: UserSummary;
  onChanged(badges: SetBadgesRequest): void;
}) {
  const toast = useToast();
  const [busy, setBusy] = useState<Badge | null>(null);

  const set = async (badge: Badge, on: boolean) => {
    setBusy(badge);
    const payload: SetBadgesRequest = { [badge]: on };
    const result = await apiPut(`/admin/users/${encodeURIComponent(user.username)}/badges`, payload);
    setBusy(null);
    if (result.ok) {
      onChanged(payload);
      toast.success(`${user.username}: ${badge} ${on ? 'on' : 'off'}`);
    } else {
      toast.error(errorText(result));
    }
  };

  return (
    <Space size="large" wrap style={{ display: 'flex' }}>
      {BADGES.map(({ key, label }) => (
        <Space key={key}>
          <Switch
            aria-label={label}
            checked={user[key]}
            loading={busy === key}
            onChange={(on) => void set(key, on)}
          />
          <Typography.Text>{label}</Typography.Text>
        </Space>
      ))}
    </Space>
  );
}
