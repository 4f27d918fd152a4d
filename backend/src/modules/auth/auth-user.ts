import { ForbiddenException } from '@nestjs/common';
import { Messages, type Role } from '@studio/contracts';

/** Who is calling, as the server knows it from the session (never from the request body). */
export interface AuthUser {
  id: string;
  username: string;
  role: Role;
  /** Set when the request came with a personal API key (always with the role `user`). */
  apiKey?: { id: string; monthlyCap?: number };
}

/**
 * The spec's client sends its user name in bodies and paths. We keep those fields but only accept
 * the session's own name there (case-insensitively); anything else is refused.
 */
export function assertActingAs(user: AuthUser, claimed: string | undefined | null): void {
  if (claimed === undefined || claimed === null || claimed === '') return;
  if (claimed.toLowerCase() !== user.username.toLowerCase()) {
    throw new ForbiddenException(Messages.notYourAccount);
  }
}
