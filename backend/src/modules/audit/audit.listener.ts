import { Injectable } from '@nestjs/common';
import { AuditCategory, DomainEvents, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events/domain-event-bus';
import { AuditService } from './audit.service';

/** Records account events in the activity log. */
@Injectable()
export class AuditListener {
  constructor(private readonly audit: AuditService) {}

  @OnDomainEvent(DomainEvents.accountRegistered)
  async onRegistered({ id, payload }: DomainEventEnvelope<'account.registered'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: `Registered account ${payload.username}.`,
      detail: payload.role === 'user' ? undefined : `Role: ${payload.role}`,
    });
  }

  @OnDomainEvent(DomainEvents.accountLoggedIn)
  async onLoggedIn({ id, payload }: DomainEventEnvelope<'account.logged_in'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: 'Logged in.',
      detail: payload.ip ? `From ${payload.ip}` : undefined,
    });
  }

  @OnDomainEvent(DomainEvents.accountLoginFailed)
  async onLoginFailed({ id, payload }: DomainEventEnvelope<'account.login_failed'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { username: payload.username },
      message:
        payload.reason === 'unknown_user' ? 'Failed login: unknown user.' : 'Failed login: wrong password.',
      detail: payload.ip ? `From ${payload.ip}` : undefined,
    });
  }

  @OnDomainEvent(DomainEvents.accountLoggedOut)
  async onLoggedOut({ id, payload }: DomainEventEnvelope<'account.logged_out'>): Promise<void> {
    await this.audit.append({
      eventId: id,
      category: AuditCategory.account,
      author: { userId: payload.userId, username: payload.username },
      message: 'Logged out.',
    });
  }
}
