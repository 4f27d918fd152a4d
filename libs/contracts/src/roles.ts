export const ROLES = ['user', 'moderator', 'support', 'admin'] as const;
export type Role = (typeof ROLES)[number];

/** Whether a role may use the support tools (support staff and admins). */
export function canSupport(role: Role): boolean {
  return role === 'support' || role === 'admin';
}

/**
 * Whether a role may see and decide the moderation queue (held outputs). A role of its own, not a
 * support permission: looking at possibly-minor or sexual pictures is a duty staff take on by
 * choice, and a moderator gets none of support's powers over credits and accounts.
 */
export function canModerate(role: Role): boolean {
  return role === 'moderator' || role === 'admin';
}

/**
 * Roles an admin may give or take with PUT /api/admin/users/{username}/role. Admins are made
 * only by configuration (ADMIN_USERNAME), so no request can make or unmake one.
 */
export const ASSIGNABLE_ROLES = ['user', 'moderator', 'support'] as const;
export type AssignableRole = (typeof ASSIGNABLE_ROLES)[number];

export interface SetRoleRequest {
  role: AssignableRole;
}

export const RoleMessages = {
  ownRole: 'You cannot change your own role',
  adminRole: "An admin's role cannot be changed here",
  unknownRole: `role must be one of: ${ASSIGNABLE_ROLES.join(', ')}`,
  changedMeanwhile: 'The role changed meanwhile: look the user up again',
} as const;
