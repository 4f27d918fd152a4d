import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import type { LogEntry } from '@studio/contracts';
import { eventually, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AuditService } from '../audit/audit.service';
import { DomainEventBus } from './domain-event-bus';
import { OutboxEvent } from './outbox-event.schema';

describe('domain event bus', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('hands a published event to the queue (the outbox row goes) and its consumers run', async () => {
    const username = uniqueName('pub');
    const envelope = await t.app
      .get(DomainEventBus)
      .publish('account.logged_out', { userId: '000000000000000000000001', username });
    const outbox = t.app.get<Model<OutboxEvent>>(getModelToken(OutboxEvent.name));
    expect(await outbox.findById(envelope.id).lean()).toBeNull();
    await eventually(async () => {
      const entries: LogEntry[] = await t.app.get(AuditService).latest(50);
      expect(entries.some((e) => e.author?.username === username)).toBe(true);
    });
  });

  it('sends a stranded event again (the process died between the outbox write and the queue)', async () => {
    const username = uniqueName('stranded');
    const outbox = t.app.get<Model<OutboxEvent>>(getModelToken(OutboxEvent.name));
    // What a crash right after the outbox write leaves behind.
    await outbox.create({
      _id: `stranded-${username}`,
      name: 'account.logged_out',
      payload: { userId: '000000000000000000000002', username },
      occurredAt: new Date(Date.now() - 60_000),
    });
    const relayed = await t.app.get(DomainEventBus).relayStranded();
    expect(relayed).toBeGreaterThanOrEqual(1);
    await eventually(async () => {
      const entries: LogEntry[] = await t.app.get(AuditService).latest(50);
      expect(entries.filter((e) => e.author?.username === username)).toHaveLength(1);
    });
    expect(await outbox.findById(`stranded-${username}`).lean()).toBeNull();
    // A second relay finds nothing left to send.
    expect(await t.app.get(DomainEventBus).relayStranded()).toBe(0);
  });
});
