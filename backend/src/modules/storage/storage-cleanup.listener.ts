import { Injectable } from '@nestjs/common';
import { DomainEvents, type DomainEventEnvelope } from '@studio/contracts';
import { OnDomainEvent } from '../events';
import { StoragePort } from './storage.port';

/** Removes the file of a deleted item again, durably: if the inline removal failed, this retries. */
@Injectable()
export class StorageCleanupListener {
  constructor(private readonly storage: StoragePort) {}

  @OnDomainEvent(DomainEvents.contentDeleted)
  async onContentDeleted({ payload }: DomainEventEnvelope<'content.deleted'>): Promise<void> {
    await this.storage.delete(payload.storageKey);
  }
}
