export const ROLES = ['user', 'support', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Whether a role may use the support tools (support staff and admins). */
export function canSupport(role: Role): boolean {
  return role === 'support' || role === 'admin';
}
