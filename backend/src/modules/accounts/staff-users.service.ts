import { Injectable, NotFoundException } from '@nestjs/common';
import { DomainEvents, Messages, type SetBadgesRequest, type UserSummary } from '@studio/contracts';
import type { AuthUser } from '../auth/auth-user';
import { DomainEventBus } from '../events/domain-event-bus';
import { AccountsRepository, type AccountRecord } from './accounts.repository';

const SEARCH_LIMIT = 20;

/** What support and admins do with other people's accounts: look them up, set their badges. */
@Injectable()
export class StaffUsersService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly events: DomainEventBus,
  ) {}

  async search(_staff: AuthUser, query: string): Promise<UserSummary[]> {
    const rows = await this.accounts.searchByName(query.trim(), SEARCH_LIMIT);
    return Promise.all(rows.map((row) => this.summary(row, row.createdAt)));
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

  private async summary(account: AccountRecord, createdAt?: Date): Promise<UserSummary> {
    const { balance } = await this.accounts.balanceOf(account.id);
    return {
      username: account.username,
      role: account.role,
      verified: account.verified,
      early: account.early,
      balance,
      ...(createdAt ? { createdAt: new Date(createdAt).toISOString() } : {}),
    };
  }
}

const stripUndefined = (badges: SetBadgesRequest) =>
  Object.fromEntries(Object.entries(badges).filter(([, v]) => v !== undefined)) as SetBadgesRequest;
