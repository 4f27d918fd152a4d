import { getModelToken } from '@nestjs/mongoose';
import type Redis from 'ioredis';
import type { Model } from 'mongoose';
import type { AdminStats, LogPage } from '@studio/contracts';
import { eventually, signIn, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { REDIS } from '../../infrastructure/redis.module';
import { AuditCounters, QUARTER_MS } from './audit-counters';
import { AuditEntry } from './audit-entry.schema';
import { statsWindow } from './audit-stats';
import { AuditUpgrade } from './audit-upgrade';
import { AuditService } from './audit.service';

/**
 * An install upgraded from the version that read figures out of message text: its counters
 * (built from text, so possibly forged) are dropped and recounted once from the entries' figures;
 * its entries without a figure count nothing, and get the author key the user filter reads.
 */
describe('activity log: upgrade of an existing install', () => {
  let t: TestApp;
  let admin: Client;
  let redis: Redis;
  let tag: string;
  const adminName = uniqueName('boss');
  const adminPassword = 'admin-password-1';
  const oldUser = uniqueName('OldTimer');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: adminPassword });
    admin = await signIn(t, adminName, adminPassword);
    redis = t.app.get<Redis>(REDIS);
    tag = `${t.config.REDIS_PREFIX}:{audit-stats}`;
  });
  afterAll(() => t.close());

  const stats = async (): Promise<AdminStats> => {
    const res = await admin.agent.get('/api/admin/stats').query({ tz: 'UTC' });
    expect(res.status).toBe(200);
    return res.body.content as AdminStats;
  };

  it('drops the text-built counters and recounts from the figures alone', async () => {
    const now = Date.now();
    const before = (await stats()).totals.today.credits;
    // Lines as the old version wrote them: a real spend and a forged one, both text only.
    const collection = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name)).collection;
    await collection.insertMany([
      {
        category: 'Credits',
        author: { username: oldUser },
        createdOn: new Date(now - 1000),
        message: 'Spent 40 credits.',
      },
      {
        category: 'Folders',
        author: { username: oldUser },
        createdOn: new Date(now - 1000),
        message: 'Created folder 999999 credits..',
      },
    ]);
    // A line of the new version, with its figure.
    await t.app.get(AuditService).append({
      category: 'Credits',
      author: { username: oldUser },
      message: 'Spent 5 credits.',
      credits: 5,
    });
    // The old version's counters, as its recount left them: 40 + 999,999 today.
    const day = Math.floor(now / 86_400_000);
    const quarter = Math.floor((now - day * 86_400_000) / QUARTER_MS);
    await redis.set(`${tag}:gseq`, '1');
    await redis.hset(`${tag}:g1:${day}`, `c${quarter}`, String(before + 40 + 999_999));
    await redis.hset(`${tag}:state`, { ready: '1', countedAt: String(now) });
    // The first boot of this version: no counters of its own yet.
    for (const key of await redis.keys(`${tag}:v2:*`)) await redis.del(key);

    const counters = t.app.get(AuditCounters);
    await counters.onApplicationShutdown();
    await counters.onApplicationBootstrap(); // starts the recount in the background

    expect(await redis.keys(`${tag}:g*`)).toEqual([]);
    expect(await redis.exists(`${tag}:state`)).toBe(0);
    // Meanwhile answered from a scan of the figures, then from the recounted counters.
    expect((await stats()).totals.today.credits).toBe(before + 5);
    await eventually(
      async () => expect(await counters.read(statsWindow('UTC', new Date()))).not.toBeNull(),
      20_000,
    );
    expect((await stats()).totals.today.credits).toBe(before + 5);
  });

  it('gives old entries the author key, so the user filter finds them', async () => {
    const collection = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name)).collection;
    await collection.insertOne({
      category: 'Account',
      author: { username: oldUser },
      createdOn: new Date(),
      message: 'Logged in.',
    });
    const mine = async () => {
      const res = await admin.agent.get('/api/admin/logs').query({ user: oldUser.toLowerCase() });
      expect(res.status).toBe(200);
      return (res.body.content as LogPage).items.map((e) => e.message);
    };
    expect(await mine()).toEqual(['Spent 5 credits.']); // only the line written by this version

    await redis.del(`${t.config.REDIS_PREFIX}:{audit-upgrade}:author-keys`);
    await t.app.get(AuditUpgrade).run();
    // Newest first by _id: the order they were written in.
    expect(await mine()).toEqual([
      'Logged in.',
      'Spent 5 credits.',
      'Created folder 999999 credits..',
      'Spent 40 credits.',
    ]);
  });
});
