import { getModelToken } from '@nestjs/mongoose';
import { Types, type Model } from 'mongoose';
import request from 'supertest';
import type { JobHistoryPage, JobTool, JobState } from '@studio/contracts';
import { grantCredits, signIn, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { Job } from './job.schema';

const DAY = 24 * 3600 * 1000;

describe('GET /api/jobs/history: the caller’s jobs, keyset pages, filters (real database)', () => {
  let t: TestApp;
  let alice: Client;
  let bob: Client;
  let jobs: Model<Job>;
  /** Alice's job ids, newest first. */
  const aliceIds: string[] = [];
  const start = Date.parse('2026-10-01T12:00:00Z');

  /** A finished job record made at `at` (its _id carries the time, as a real one's does). */
  async function record(owner: Client & { id: string }, at: number, tool: JobTool, state: JobState) {
    const _id = Types.ObjectId.createFromTime(Math.floor(at / 1000));
    // createFromTime leaves the rest zero: make ids of one second unique.
    const id = new Types.ObjectId(
      `${_id.toHexString().slice(0, 8)}${new Types.ObjectId().toHexString().slice(8)}`,
    );
    await jobs.create({
      _id: id,
      owner: new Types.ObjectId(owner.id),
      username: owner.username,
      tool,
      state,
      progress: state === 'succeeded' ? 100 : 0,
      cost: 1,
      folder: new Types.ObjectId(),
      inputs: [],
      params: {},
      outputs: [],
      attempts: 1,
      settled: true,
      createdAt: new Date(at),
    });
    return String(id);
  }

  const history = (client: Client, query: string) => client.agent.get(`/api/jobs/history${query}`);
  const ids = (body: { content: JobHistoryPage }) => body.content.items.map((job) => job._id);

  beforeAll(async () => {
    t = await startTestApp();
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    jobs = t.app.get(getModelToken(Job.name));
    // Granting returns the account id the job records name as owner.
    const idOf = (client: Client) => grantCredits(t, client.username, 1);
    const a = { ...alice, id: await idOf(alice) };
    const b = { ...bob, id: await idOf(bob) };
    // 25 of Alice's jobs, one a day going back from `start`: tools and states in turn.
    const tools: JobTool[] = ['clone', 'superResolution', 'faceSwap', 'inpaint', 'faceSwapVideo'];
    for (let i = 0; i < 25; i++) {
      aliceIds.push(await record(a, start - i * DAY, tools[i % 5], i % 3 === 0 ? 'failed' : 'succeeded'));
    }
    // Bob's jobs sit between Alice's in time: none may show on her pages.
    for (let i = 0; i < 5; i++) await record(b, start - i * DAY - 3600_000, 'clone', 'succeeded');
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('pages all of the owner’s jobs newest first by cursor, and nobody else’s', async () => {
    const seen: string[] = [];
    let before = '';
    for (;;) {
      const res = await history(alice, `?pageSize=10${before ? `&before=${before}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...ids(res.body));
      if (!res.body.content.next) break;
      before = res.body.content.next;
    }
    expect(seen).toEqual(aliceIds);
    // Bob sees only his five.
    const bobs = await history(bob, '');
    expect(bobs.body.content.items).toHaveLength(5);
    expect(bobs.body.content.items.every((job: { _id: string }) => !aliceIds.includes(job._id))).toBe(true);
    // Logged out: 401, nothing listed.
    const anonymous = await request(t.url).get('/api/jobs/history');
    expect(anonymous.status).toBe(401);
  });

  it('filters by tool, state and days (UTC, both ends included)', async () => {
    const faceSwaps = await history(alice, '?tool=faceSwap');
    expect(ids(faceSwaps.body)).toEqual(aliceIds.filter((_, i) => i % 5 === 2));
    const failedClones = await history(alice, '?tool=clone&state=failed');
    expect(ids(failedClones.body)).toEqual(aliceIds.filter((_, i) => i % 5 === 0 && i % 3 === 0));
    // Days: 2026-09-28 .. 2026-09-30 are jobs 1..3 (start is 2026-10-01 12:00).
    const days = await history(alice, '?from=2026-09-28&to=2026-09-30');
    expect(ids(days.body)).toEqual(aliceIds.slice(1, 4));
    const oneDay = await history(alice, '?from=2026-10-01&to=2026-10-01&state=failed');
    expect(ids(oneDay.body)).toEqual([aliceIds[0]]);
  });

  it.each([
    ['?tool=paint', 'tool must be one of'],
    ['?state=done', 'state must be one of'],
    ['?before=123', 'before must be a cursor'],
    ['?from=yesterday', 'from must be a day'],
    ['?from=2026-13-45', 'from must be a day'],
    ['?to=2026-10-01T00:00:00Z', 'to must be a day'],
    ['?from=2026-10-02&to=2026-10-01', 'from must not be after to'],
    ['?pageSize=0', 'pageSize must be a whole number'],
    ['?pageSize=1e2', 'pageSize must be a whole number'],
    ['?pageSize=101', 'pageSize must be a whole number'],
  ])('refuses %s with 400 and a message', async (query, message) => {
    const res = await history(alice, query);
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain(message);
  });
});
