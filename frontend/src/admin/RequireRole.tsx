import type { Role } from '@studio/contracts';
import { Spin } from 'antd';
import type { ReactNode } from 'react';
import { NotFoundPage } from '../pages/NotFound/NotFoundPage';
import { useSession } from '../session/useSession';

/**
 * Shows children only to the given roles, as the server reports them (GET /api/session). While a
 * remembered account is being confirmed it waits; anyone else sees Not Found, so the console's
 * screens are not advertised. The server enforces the same roles on every call.
 */
export function RequireRole({ roles, children }: { roles: readonly Role[]; children: ReactNode }) {
  const { role, checking, loggedIn } = useSession();
  if (loggedIn && checking) {
    return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
  }
  if (!role || !roles.includes(role)) return <NotFoundPage />;
  return <>{children}</>;
}

export const ADMIN_ONLY: readonly Role[] = ['admin'];
export const SUPPORT_STAFF: readonly Role[] = ['support', 'admin'];
export const MODERATORS: readonly Role[] = ['moderator', 'admin'];
