import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import request from 'supertest';
import { AuditCategory, type AdminStats, type LogEntry, type LogPage } from '@studio/contracts';
import { signIn, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import type Redis from 'ioredis';
import { REDIS } from '../../infrastructure/redis.module';
import { AuditCounters } from './audit-counters';
import { AuditEntry } from './audit-entry.schema';
import { buildStats, statsWindow, type StatsRow } from './audit-stats';
import { AuditService } from './audit.service';

/**
 * The seeded log, around Sunday 2026-11-01 in Berlin. Berlin left summer time (UTC+2) for winter
 * time (UTC+1) on Sunday 2026-10-25 at 03:00, so days up to 10-25 start at 22:00Z the day before
 * and days from 10-26 at 23:00Z.
 */
const alice = uniqueName('Alice');
const bob = uniqueName('bob');
const carol = uniqueName('carol'); // writes during the recount test, outside the seeded log
/** Seeded as the listener writes them: spends and face swaps carry their figure beside the text. */
const seed: {
  id: string;
  at: string;
  who: string;
  category: string;
  message: string;
  credits?: number;
  swaps?: number;
}[] = [
  // Credits (Alice): Berlin date in the comment.
  {
    id: 'B',
    at: '2026-11-01T09:00:00.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 4 credits.',
    credits: 4,
  }, // 11-01
  {
    id: 'A',
    at: '2026-10-31T23:30:00.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 3 credits.',
    credits: 3,
  }, // 11-01 00:30
  {
    id: 'D',
    at: '2026-10-31T22:59:59.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 5 credits.',
    credits: 5,
  }, // 10-31 23:59:59
  {
    id: 'E',
    at: '2026-10-25T23:00:00.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 7 credits.',
    credits: 7,
  }, // Mon 10-26 00:00
  {
    id: 'F',
    at: '2026-10-25T22:59:59.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 11 credits.',
    credits: 11,
  }, // Sun 10-25 23:59:59
  { id: 'G', at: '2026-10-20T12:00:00.000Z', who: alice, category: 'Credits', message: 'Bought 200 coins.' }, // not a spend
  {
    id: 'M',
    at: '2026-09-30T22:30:00.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 13 credits.',
    credits: 13,
  }, // 10-01 00:30
  {
    id: 'N',
    at: '2026-09-30T21:59:00.000Z',
    who: alice,
    category: 'Credits',
    message: 'Spent 17 credits.',
    credits: 17,
  }, // 09-30 23:59
  // Face swaps (Bob).
  {
    id: 'S1',
    at: '2026-11-01T09:30:00.000Z',
    who: bob,
    category: 'FaceSwap',
    message: 'Swapped 3 images.',
    swaps: 3,
  }, // 11-01
  {
    id: 'S2',
    at: '2026-10-31T23:10:00.000Z',
    who: bob,
    category: 'FaceSwap',
    message: 'Swapped 1 image.',
    swaps: 1,
  }, // 11-01 00:10
  {
    id: 'S5',
    at: '2026-10-25T10:00:00.000Z',
    who: bob,
    category: 'FaceSwap',
    message: 'Swapped 1 image.',
    swaps: 1,
  }, // 10-25
  {
    id: 'S3',
    at: '2026-10-02T22:00:00.000Z',
    who: bob,
    category: 'FaceSwap',
    message: 'Swapped 2 images.',
    swaps: 2,
  }, // 10-03 00:00
  {
    id: 'S4',
    at: '2026-10-02T21:59:59.000Z',
    who: bob,
    category: 'FaceSwap',
    message: 'Swapped 5 images.',
    swaps: 5,
  }, // 10-02 23:59:59
  {
    id: 'S6',
    at: '2026-11-01T08:00:00.000Z',
    who: bob,
    category: 'FaceSwap',
    message: 'Face swap failed; refunded 1 coins.',
  },
  // No figure: counts nothing, whatever it says.
  { id: 'X', at: '2026-11-01T08:00:00.000Z', who: bob, category: 'Generation', message: 'Swapped 9 images.' },
  { id: 'Y', at: '2026-11-01T08:00:00.000Z', who: bob, category: 'FaceSwap', message: 'Spent 50 credits.' },
];

const SUNDAY = '2026-11-01T10:00:00.000Z'; // 11:00 in Berlin
const SATURDAY = '2026-10-31T12:00:00.000Z'; // 13:00 in Berlin

const money = (credits: number, dollars: number) => ({ credits, dollars });

describe('admin activity log: statistics and paging', () => {
  let t: TestApp;
  let admin: Client;
  let user: Client;
  let support: Client;
  const adminName = uniqueName('boss');
  const adminPassword = 'admin-password-1';

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: adminPassword });
    const audit = t.app.get(AuditService);
    for (const e of seed) {
      await audit.append({
        category: e.category,
        author: { username: e.who },
        message: e.message,
        credits: e.credits,
        swaps: e.swaps,
        detail: `seed ${e.id}`,
        createdOn: new Date(e.at),
      });
    }
    admin = await signIn(t, adminName, adminPassword);
    user = await signIn(t);
    const supportName = uniqueName('help');
    await signIn(t, supportName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(supportName))!.id, 'support');
    support = await signIn(t, supportName);
  });
  afterAll(() => t.close());

  const stats = async (query: Record<string, string>): Promise<AdminStats> => {
    const res = await admin.agent.get('/api/admin/stats').query(query);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    return res.body.content as AdminStats;
  };
  const logs = async (query: Record<string, string | number>): Promise<LogPage> => {
    const res = await admin.agent.get('/api/admin/logs').query(query);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('success');
    return res.body.content as LogPage;
  };
  const seedIds = (entries: LogEntry[]) => entries.map((e) => e.detail?.replace('seed ', ''));
  /** What Redis losing its data does to the statistics' counters. */
  const dropCounters = async () => {
    const redis = t.app.get<Redis>(REDIS);
    const keys = await redis.keys(`${t.config.REDIS_PREFIX}:{audit-stats}:*`);
    expect(keys.length).toBeGreaterThan(1);
    await redis.del(...keys);
  };
  /** The statistics straight from the log, for comparison with the counters. */
  const scanStats = async (timeZone: string, now: Date) => {
    const window = statsWindow(timeZone, now);
    const collection = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name)).collection;
    const rows = await collection.find<StatsRow>({}).toArray();
    return buildStats(window, rows);
  };

  describe('roles', () => {
    it.each(['/api/admin/stats', '/api/admin/logs'])(
      '%s: 401 signed out, 403 user and support, 200 admin',
      async (path) => {
        expect((await request(t.url).get(path)).status).toBe(401);
        expect((await user.agent.get(path)).status).toBe(403);
        expect((await support.agent.get(path)).status).toBe(403);
        expect((await admin.agent.get(path)).status).toBe(200);
      },
    );
  });

  describe('GET /api/admin/stats', () => {
    it('sums the week across a month boundary and a DST change, by the Berlin calendar', async () => {
      const s = await stats({ tz: 'Europe/Berlin', now: SUNDAY });
      expect(s.timeZone).toBe('Europe/Berlin');
      expect(s.totals).toEqual({
        today: money(7, 0.35), // A 3 + B 4
        yesterday: money(5, 0.25), // D 5
        week: money(19, 0.95), // Mon 10-26..Sun 11-01: E 7 + D 5 + A 3 + B 4 (not F, 1 s earlier)
        month: money(7, 0.35), // November: A + B
      });
    });

    it('charts 30 days including today, oldest first, counting FaceSwap images only', async () => {
      const s = await stats({ tz: 'Europe/Berlin', now: SUNDAY });
      const chart = s.faceSwapsPerDay;
      expect(chart).toHaveLength(30);
      expect(chart[0]).toEqual({ day: '03-10', date: '2026-10-03', faceSwaps: 2, dollars: 0.1 }); // S3; not S4
      expect(chart[22]).toEqual({ day: '25-10', date: '2026-10-25', faceSwaps: 1, dollars: 0.05 }); // S5
      expect(chart[28]).toEqual({ day: '31-10', date: '2026-10-31', faceSwaps: 0, dollars: 0 });
      expect(chart[29]).toEqual({ day: '01-11', date: '2026-11-01', faceSwaps: 4, dollars: 0.2 }); // S1 3 + S2 1
      expect(chart.reduce((sum, d) => sum + d.faceSwaps, 0)).toBe(7);
      expect(new Set(chart.map((d) => d.date)).size).toBe(30);
    });

    it('reaches back to the 1st for the month when it is before the chart window', async () => {
      const s = await stats({ tz: 'Europe/Berlin', now: SATURDAY });
      expect(s.totals).toEqual({
        today: money(5, 0.25), // D (10-31 23:59:59)
        yesterday: money(0, 0),
        week: money(12, 0.6), // Mon 10-26..Sat 10-31: E 7 + D 5
        month: money(36, 1.8), // October: M 13 + F 11 + E 7 + D 5 (not N, on 09-30)
      });
      const chart = s.faceSwapsPerDay;
      expect(chart[0]).toEqual({ day: '02-10', date: '2026-10-02', faceSwaps: 5, dollars: 0.25 }); // S4
      expect(chart[29].date).toBe('2026-10-31');
      expect(chart.reduce((sum, d) => sum + d.faceSwaps, 0)).toBe(8); // S4 5 + S3 2 + S5 1
    });

    it('uses UTC days by default', async () => {
      const s = await stats({ now: SUNDAY });
      expect(s.timeZone).toBe('UTC');
      expect(s.totals).toEqual({
        today: money(4, 0.2), // B
        yesterday: money(8, 0.4), // A 3 + D 5 (both 10-31 in UTC)
        week: money(12, 0.6), // Mon 10-26..: B + A + D; E (10-25 23:00Z) is Sunday in UTC
        month: money(4, 0.2),
      });
      expect(s.faceSwapsPerDay.map((d) => d.faceSwaps).slice(-2)).toEqual([1, 3]); // S2 10-31, S1 11-01
      expect(s.faceSwapsPerDay[0].date).toBe('2026-10-03'); // S3 (10-02 22:00Z) is outside
    });

    it('reads the write-time counters, not the log', async () => {
      const collection = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name)).collection;
      const scans = jest.spyOn(collection, 'aggregate');
      const s = await stats({ tz: 'Europe/Berlin', now: SUNDAY });
      expect(s.totals.week).toEqual(money(19, 0.95));
      expect(scans).not.toHaveBeenCalled();
      scans.mockRestore();
    });

    it('without counters (Redis lost) answers from one shared scan, and a recount restores them', async () => {
      const audit = t.app.get(AuditService);
      const counted = await audit.stats('Europe/Berlin', new Date(SUNDAY));
      await dropCounters();
      const collection = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name)).collection;
      const scans = jest.spyOn(collection, 'aggregate');
      const [a, b, c] = await Promise.all([
        audit.stats('Europe/Berlin', new Date(SUNDAY)),
        audit.stats('Europe/Berlin', new Date('2026-11-01T20:00:00.000Z')),
        audit.stats('UTC', new Date(SUNDAY)),
      ]);
      expect(scans).toHaveBeenCalledTimes(2); // Berlin's day shared one scan; UTC had its own
      expect(a).toEqual(counted);
      expect(b).toEqual(a);
      expect(c.totals.today.credits).toBe(4);

      await t.app.get(AuditCounters).recount();
      scans.mockClear();
      // The recount reads the last 100 days of the log; compare at a date inside them.
      const now = new Date();
      const scanned = await scanStats('Europe/Berlin', now);
      expect(await audit.stats('Europe/Berlin', now)).toEqual(scanned);
      expect(scans).not.toHaveBeenCalled(); // counted again
      scans.mockRestore();
    });

    it('counts a line written during a recount once, and answers from the old counters meanwhile', async () => {
      const audit = t.app.get(AuditService);
      const now = new Date();
      const before = await audit.stats('UTC', now);
      const recount = t.app.get(AuditCounters).recount();
      await new Promise((resolve) => setTimeout(resolve, 200)); // inside the recount's settle time
      const later = new Date(now.getTime() + 1);
      await audit.append({
        category: 'Credits',
        author: { username: carol },
        message: 'Spent 6 credits.',
        credits: 6,
        createdOn: later,
      });
      const during = await audit.stats('UTC', later);
      expect(during.totals.today.credits).toBe(before.totals.today.credits + 6);
      await recount;
      const after = await audit.stats('UTC', later);
      expect(after.totals.today.credits).toBe(before.totals.today.credits + 6);
      expect(after).toEqual(await scanStats('UTC', later));
    });

    it('refuses an unknown zone and a bad now with 400', async () => {
      for (const query of [{ tz: 'Mars/Olympus' }, { tz: 'Europe/Berlin', now: 'yesterday' }]) {
        const res = await admin.agent.get('/api/admin/stats').query(query);
        expect(res.status).toBe(400);
        expect(res.body.message).toBe('error');
      }
    });
  });

  describe('GET /api/admin/logs', () => {
    /** Every page of a query, following the cursors from the first. */
    const allPages = async (query: Record<string, string | number>) => {
      const pages: LogPage[] = [await logs(query)];
      while (pages.at(-1)!.next) pages.push(await logs({ ...query, before: pages.at(-1)!.next! }));
      return pages;
    };

    it('pages newest first, each next page after the cursor of the one before', async () => {
      const first = await logs({ user: alice, pageSize: 3 });
      expect(first).toMatchObject({ page: 1, pageSize: 3, next: first.items[2]._id });
      expect(seedIds(first.items)).toEqual(['B', 'A', 'D']);
      const second = await logs({ user: alice, pageSize: 3, before: first.next! });
      expect(second).toMatchObject({ pageSize: 3, next: second.items[2]._id });
      expect(second.page).toBeUndefined();
      expect(seedIds(second.items)).toEqual(['E', 'F', 'G']);
      const third = await logs({ user: alice, pageSize: 3, before: second.next! });
      expect(seedIds(third.items)).toEqual(['M', 'N']);
      expect(third.next).toBeNull();
      expect(first.items[0]).toEqual({
        _id: expect.any(String),
        category: 'Credits',
        author: { username: alice },
        createdOn: '2026-11-01T09:00:00.000Z',
        message: 'Spent 4 credits.',
        detail: 'seed B',
      });
      // A full last page says so without another read: no next.
      const exact = await logs({ user: alice, pageSize: 4, before: first.items[0]._id });
      expect(seedIds(exact.items)).toEqual(['A', 'D', 'E', 'F']);
      expect((await logs({ user: alice, pageSize: 4, before: exact.next! })).next).toBeNull();
    });

    it('still answers the offset page of old clients', async () => {
      expect(seedIds((await logs({ user: alice, pageSize: 3, page: 2 })).items)).toEqual(['E', 'F', 'G']);
      const last = await logs({ user: alice, pageSize: 3, page: 3 });
      expect(last).toMatchObject({ page: 3, next: null });
      expect((await logs({ user: alice, pageSize: 3, page: 4 })).items).toEqual([]);
    });

    it('defaults to 50 a page, newest first', async () => {
      const page = await logs({});
      expect(page.pageSize).toBe(50);
      expect(page.page).toBe(1);
      expect(page.items.length).toBeGreaterThanOrEqual(seed.length);
      const ids = page.items.map((e) => e._id);
      expect([...ids].sort().reverse()).toEqual(ids);
    });

    it('neither repeats nor skips an entry while new ones arrive between pages', async () => {
      const audit = t.app.get(AuditService);
      const dave = uniqueName('dave');
      const write = async (n: number, from: number) => {
        for (let i = from; i < from + n; i += 1) {
          await audit.append({
            category: i % 2 ? 'Account' : 'Folders',
            author: { username: dave },
            message: `#${i}`,
          });
        }
      };
      await write(7, 0);
      const pages: LogPage[] = [await logs({ user: dave, pageSize: 2 })];
      while (pages.at(-1)!.next) {
        await write(2, 100 + pages.length * 2); // newer than every page already read
        pages.push(await logs({ user: dave, pageSize: 2, before: pages.at(-1)!.next! }));
      }
      const read = pages.flatMap((p) => p.items.map((e) => e.message));
      expect(read).toEqual(['#6', '#5', '#4', '#3', '#2', '#1', '#0']);
      // The new ones are on a fresh first page, newest on top.
      const fresh = (await allPages({ user: dave, pageSize: 4 })).flatMap((p) =>
        p.items.map((e) => e.message),
      );
      expect(fresh).toHaveLength(7 + 2 * (pages.length - 1));
      expect(new Set(fresh).size).toBe(fresh.length);
      expect(fresh.slice(-7)).toEqual(read);
      expect(fresh[0]).toBe(`#${100 + (pages.length - 1) * 2 + 1}`);
      // Within one category, across pages.
      const folders = (await allPages({ user: dave, category: 'Folders', pageSize: 1 })).flatMap((p) =>
        p.items.map((e) => e.message),
      );
      expect(folders.slice(-4)).toEqual(['#6', '#4', '#2', '#0']);
    });

    it('filters by exact user name, ignoring case', async () => {
      expect((await logs({ user: alice.toUpperCase() })).items).toHaveLength(8);
      expect((await logs({ user: alice.slice(0, -1) })).items).toHaveLength(0);
      expect((await logs({ user: '.*' })).items).toHaveLength(0);
    });

    it('filters by category', async () => {
      const page = await logs({ category: AuditCategory.faceSwap, user: bob });
      expect(seedIds(page.items)).toEqual(['S1', 'Y', 'S6', 'S2', 'S5', 'S3', 'S4']);
      const paged = await allPages({ category: AuditCategory.faceSwap, user: bob, pageSize: 2 });
      expect(paged.flatMap((p) => seedIds(p.items))).toEqual(seedIds(page.items));
      expect((await logs({ category: 'Generation', user: bob })).items).toHaveLength(1);
    });

    it('filters by date range, both ends included, to the millisecond', async () => {
      const page = await logs({ from: '2026-10-25T22:59:59.000Z', to: '2026-10-31T23:30:00.000Z' });
      expect(seedIds(page.items)).toEqual(['A', 'S2', 'D', 'E', 'F']);
      const inner = await logs({ from: '2026-10-25T22:59:59.001Z', to: '2026-10-31T23:29:59.999Z' });
      expect(seedIds(inner.items)).toEqual(['S2', 'D', 'E']);
      expect((await logs({ from: '2026-11-01T00:00:00.000Z', user: alice })).items).toHaveLength(1);
      // Dates beyond what an ObjectId's clock holds are still dates.
      const wide = await logs({
        from: '1900-01-01T00:00:00.000Z',
        to: '9999-12-31T23:59:59.000Z',
        user: alice,
      });
      expect(wide.items).toHaveLength(8);
      expect((await logs({ to: '2026-10-01T00:00:00.000Z', user: alice })).items).toHaveLength(2);
      const paged = await allPages({
        from: '2026-10-25T22:59:59.000Z',
        to: '2026-10-31T23:30:00.000Z',
        pageSize: 2,
      });
      expect(paged.flatMap((p) => seedIds(p.items))).toEqual(['A', 'S2', 'D', 'E', 'F']);
    });

    it('refuses bad paging, cursors and dates with 400', async () => {
      for (const query of [
        { page: 0 },
        { page: 'two' },
        { pageSize: 201 },
        { pageSize: 0 },
        { before: 'not-a-cursor' },
        { before: '{"$gt":""}' },
        { from: 'not-a-date' },
        { to: '2026-13-01' },
        { from: '2026-11-02T00:00:00Z', to: '2026-11-01T00:00:00Z' },
      ]) {
        const res = await admin.agent.get('/api/admin/logs').query(query);
        expect([query, res.status]).toEqual([query, 400]);
        expect(res.body.message).toBe('error');
      }
    });
  });
});
