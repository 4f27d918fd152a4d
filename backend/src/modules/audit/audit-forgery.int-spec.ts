import type Redis from 'ioredis';
import sharp from 'sharp';
import type { AdminStats, FolderContents, JobView, LogEntry, LogPage } from '@studio/contracts';
import {
  balanceOf,
  eventually,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { REDIS } from '../../infrastructure/redis.module';
import { AuditCounters } from './audit-counters';

/**
 * Issue 13, point 1: the admin totals once summed 'N credits.' wherever it appeared in a log
 * message, and messages quote user-written names. Both attacks run through the real API; the
 * totals may move only by what the ledger really captured.
 */
describe('admin statistics cannot be forged with user-written names', () => {
  let t: TestApp;
  let admin: Client;
  let user: Client;
  const adminName = uniqueName('boss');
  const adminPassword = 'admin-password-1';

  beforeAll(async () => {
    t = await startTestApp({
      JOB_WAIT_MS: '60000',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: adminPassword,
    });
    admin = await signIn(t, adminName, adminPassword);
    user = await signIn(t, uniqueName('forger'));
    await grantCredits(t, user.username, 10);
  }, 120_000);
  afterAll(() => t?.close());

  const stats = async (): Promise<AdminStats> => {
    const res = await admin.agent.get('/api/admin/stats').query({ tz: 'UTC' });
    expect(res.status).toBe(200);
    return res.body.content as AdminStats;
  };
  const userLog = async (): Promise<LogEntry[]> => {
    const res = await admin.agent.get('/api/admin/logs').query({ user: user.username, pageSize: 200 });
    expect(res.status).toBe(200);
    return (res.body.content as LogPage).items;
  };
  /** Today's credits and face swaps, by every path the statistics can take. */
  const figuresEverywhere = async () => {
    const counted = await stats();
    // Redis lost: answered from a scan of the log.
    const redis = t.app.get<Redis>(REDIS);
    const keys = await redis.keys(`${t.config.REDIS_PREFIX}:{audit-stats}:*`);
    if (keys.length) await redis.del(...keys);
    const scanned = await stats();
    // Then recounted from the log into new counters.
    await t.app.get(AuditCounters).recount();
    const recounted = await stats();
    return [counted, scanned, recounted].map((s) => ({
      credits: s.totals.today.credits,
      swaps: s.faceSwapsPerDay.at(-1)!.faceSwaps,
    }));
  };

  it("a folder named '999999 credits.' and downloads of a batch named '777 credits.' add nothing", async () => {
    const before = await stats();
    const balanceBefore = await balanceOf(user);

    // Attack 1: a folder whose name reads as a spend.
    await makeFolder(user, '999999 credits.');

    // Attack 2: a bulk inpaint named like a spend, whose items are then downloaded (each download
    // writes 'Downloaded <item title>.').
    const folderId = await makeFolder(user, 'Batch');
    const image = await sharp(fixture('ai-face.jpg')).resize(64, 64).png().toBuffer();
    const mask = await sharp({
      create: { width: 64, height: 64, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } },
    })
      .png()
      .toBuffer();
    const res = await user.agent
      .post('/api/bulkInpaintImage')
      .field('prompt', 'freckles')
      .field('amount', '2')
      .field('folder', folderId)
      .field('inpaintName', '777 credits.')
      .attach('original', image, 'a.png')
      .attach('mask', mask, 'mask.png');
    expect(res.status).toBe(200);
    const items = await eventually(async () => {
      const body = (await user.agent.get(`/api/getBulkInpaints/${folderId}`)).body.content as FolderContents;
      expect(body.inpaint).toEqual([expect.objectContaining({ title: '777 credits.' })]);
      expect(body.inpaints).toHaveLength(2);
      return body.inpaints;
    }, 60_000);
    for (const item of items) {
      expect(item.title).toContain('777 credits.');
      for (let i = 0; i < 2; i += 1) {
        const download = await user.agent.post('/api/downloadContent').send({ url: item.url });
        expect(download.status).toBe(200);
      }
    }

    // Everything the attacks write is in the log, and what the ledger really took is known.
    const spent = balanceBefore - (await balanceOf(user));
    expect(spent).toBe(2); // two inpaint outputs, 1 credit each
    await eventually(async () => {
      const log = await userLog();
      expect(log.filter((e) => e.message.includes('777 credits.'))).toHaveLength(4);
      expect(log.filter((e) => e.message.includes('999999 credits.'))).toHaveLength(1);
      expect(log.filter((e) => /^Spent \d+ credits\.$/.test(e.message))).toHaveLength(2);
    }, 30_000);

    // The totals moved by the real spend only, read from the counters, a scan and a recount.
    const expected = {
      credits: before.totals.today.credits + spent,
      swaps: before.faceSwapsPerDay.at(-1)!.faceSwaps,
    };
    expect(await figuresEverywhere()).toEqual([expected, expected, expected]);
  }, 180_000);

  it('counts a finished face swap (its cost and image) and nothing of a refused one', async () => {
    const swapper = await signIn(t, uniqueName('swapper'));
    await grantCredits(t, swapper.username, 5);
    const folderId = await makeFolder(swapper, 'Swaps');
    const before = await stats();
    const swap = (face: Buffer) =>
      swapper.agent
        .post('/api/faceSwap')
        .field('folder', folderId)
        .field('consent', 'true')
        .attach('Swap0', face, 'face.png')
        .attach('Swap1', fixture('cgi-model-3.jpg'), 'target.jpg');
    const jobState = async (jobId: string) =>
      ((await swapper.agent.get(`/api/jobs/${jobId}`)).body.content as JobView).state;

    // No face in the source: refused by the face check before any reservation (nothing to count).
    const blank = await sharp({
      create: { width: 300, height: 300, channels: 3, background: { r: 90, g: 140, b: 200 } },
    })
      .png()
      .toBuffer();
    const refused = await swap(blank);
    expect(refused.status).toBe(400);
    expect(await balanceOf(swapper)).toBe(5);
    // A real face: captured and swapped.
    const done = await swap(fixture('ai-face.jpg'));
    expect(done.status).toBe(200);
    await eventually(async () => expect(await jobState(done.body.content.job._id)).toBe('succeeded'), 90_000);
    const spent = 5 - (await balanceOf(swapper));
    expect(spent).toBeGreaterThan(0);

    const expected = {
      credits: before.totals.today.credits + spent,
      swaps: before.faceSwapsPerDay.at(-1)!.faceSwaps + 1,
    };
    await eventually(async () => {
      const now = await stats();
      expect({ credits: now.totals.today.credits, swaps: now.faceSwapsPerDay.at(-1)!.faceSwaps }).toEqual(
        expected,
      );
    }, 30_000);
    expect(await figuresEverywhere()).toEqual([expected, expected, expected]);
  }, 240_000);
});
