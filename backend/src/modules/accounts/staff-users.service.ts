import { ConflictException, ForbiddenException, Injectable, NotFoundException } from '@nestjs/common';
import {
  AccountMessages,
  ASSIGNABLE_ROLES,
  DomainEvents,
  Messages,
  RoleMessages,
  type AssignableRole,
  type SetBadgesRequest,
  type UserSummary,
} from '@studio/contracts';
import type { AuthUser } from '../auth';
import { DomainEventBus } from '../events';
import { AccountSuspensions } from './account-suspensions';
import { AccountsRepository, type AccountRecord } from './accounts.repository';

const SEARCH_LIMIT = 20;

/** What support and admins do with other people's accounts: look them up, set badges and roles. */
@Injectable()
export class StaffUsersService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly events: DomainEventBus,
    private readonly suspensions: AccountSuspensions,
  ) {}

  async search(_staff: AuthUser, query: string): Promise<UserSummary[]> {
    const rows = await this.accounts.searchByName(query.trim(), SEARCH_LIMIT);
    return rows.map((row) => this.summary(row, row.createdAt));
  }

  async setBadges(admin: AuthUser, username: string, badges: SetBadgesRequest): Promise<UserSummary> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException(Messages.notFound);
    await this.accounts.setBadges(account.id, badges);
    await this.events.publish(DomainEvents.badgesChanged, {
      userId: account.id,
      username: account.username,
      verified: badges.verified,
      early: badges.early,
      by: admin.username,
    });
    return this.summary({ ...account, ...stripUndefined(badges) });
  }

  /**
   * Gives or takes the support role. Admins are made by configuration only, so an admin's role
   * is never changed here, nor the caller's own. The write is a compare and set on the role read,
   * so a concurrent change of the same account cannot slip an admin through.
   */
  async setRole(admin: AuthUser, username: string, role: AssignableRole): Promise<UserSummary> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException(Messages.notFound);
    if (account.id === admin.id) throw new ForbiddenException(RoleMessages.ownRole);
    const previousRole = account.role;
    if (!(ASSIGNABLE_ROLES as readonly string[]).includes(previousRole)) {
      throw new ForbiddenException(RoleMessages.adminRole);
    }
    if (!(await this.accounts.changeRole(account.id, previousRole, role, admin.id))) {
      throw new ConflictException(RoleMessages.changedMeanwhile);
    }
    if (previousRole !== role) {
      await this.events.publish(DomainEvents.roleChanged, {
        userId: account.id,
        username: account.username,
        role,
        previousRole,
        actor: { userId: admin.id, username: admin.username },
      });
    }
    return this.summary({ ...account, role });
  }

  /**
   * An admin lifts a suspension by hand (audited through the event); 409 when there is none.
   * A later removal that stands brings it back while the count is still reached.
   */
  async liftSuspension(admin: AuthUser, username: string): Promise<UserSummary> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException(Messages.notFound);
    const lifted = await this.suspensions.lift(account.id, 'admin', {
      userId: admin.id,
      username: admin.username,
    });
    if (!lifted) throw new ConflictException(AccountMessages.notSuspended);
    return this.summary({ ...account, suspended: false, suspension: undefined });
  }

  private summary(account: AccountRecord, createdAt?: Date): UserSummary {
    return {
      username: account.username,
      role: account.role,
      verified: account.verified,
      early: account.early,
      balance: account.balance,
      ...(account.suspension
        ? {
            suspended: {
              at: new Date(account.suspension.at).toISOString(),
              reason: account.suspension.reason,
              reportId: account.suspension.reportId,
              removals: account.suspension.removals,
            },
          }
        : {}),
      ...(createdAt ? { createdAt: new Date(createdAt).toISOString() } : {}),
    };
  }
}

const stripUndefined = (badges: SetBadgesRequest) =>
  Object.fromEntries(Object.entries(badges).filter(([, v]) => v !== undefined)) as SetBadgesRequest;
