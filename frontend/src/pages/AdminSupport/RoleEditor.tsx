import {
  ASSIGNABLE_ROLES,
  type AssignableRole,
  type SetRoleRequest,
  type UserSummary,
} from '@studio/contracts';
import { Segmented, Space, Typography } from 'antd';
import { useState } from 'react';
import { apiPut, errorText } from '../../api/client';
import { useToast } from '../../ui/toast';

const ROLE_WORDS: Record<AssignableRole, string> = {
  user: 'a user',
  moderator: 'a moderator',
  support: 'support staff',
};

/**
 * Admins give or take the support or moderator role: PUT /api/admin/users/{username}/role. Admins
 * are made by configuration only, so an admin's role (and one's own) is shown but not editable.
 */
export function RoleEditor({
  user,
  self,
  onChanged,
}: {
  user: UserSummary;
  self: string | null;
  onChanged(role: AssignableRole): void;
}) {
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  const fixed = user.role === 'admin' || user.username.toLowerCase() === self?.toLowerCase();

  const set = async (role: AssignableRole) => {
    setBusy(true);
    const payload: SetRoleRequest = { role };
    const result = await apiPut(`/admin/users/${encodeURIComponent(user.username)}/role`, payload);
    setBusy(false);
    if (result.ok) {
      onChanged(role);
      toast.success(`${user.username} is now ${ROLE_WORDS[role]}`);
    } else {
      toast.error(errorText(result));
    }
  };

  if (fixed) return null;
  return (
    // A line of its own: inline beside the badges it read "Early supporter Role".
    <Space style={{ marginTop: 12, display: 'flex' }}>
      <Typography.Text>Role</Typography.Text>
      <Segmented<AssignableRole>
        aria-label="Role"
        options={[...ASSIGNABLE_ROLES]}
        value={user.role as AssignableRole}
        disabled={busy}
        onChange={(role) => void set(role)}
      />
    </Space>
  );
}
