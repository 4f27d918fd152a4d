import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { IdempotencyMessages } from '@studio/contracts';
import { balanceOf, grantCredits, signIn, uniqueName, type Client } from '../../test/clients';
import { startTestApp, type TestApp } from '../../test/test-app';
import { Job } from '../modules/generation/job.schema';

/** Issue 41: Idempotency-Key on job submissions and folder writes, after Stripe's rules. */
describe('Idempotency-Key', () => {
  let t: TestApp;
  let jobs: Model<Job>;
  let image: Buffer;
  let other: Buffer;

  beforeAll(async () => {
    t = await startTestApp({ JOB_WAIT_MS: '0', JOB_RATE_LIMIT_PER_MINUTE: '1000' });
    jobs = t.app.get<Model<Job>>(getModelToken(Job.name));
    const square = (background: string) =>
      sharp({ create: { width: 32, height: 32, channels: 3, background } })
        .png()
        .toBuffer();
    [image, other] = await Promise.all([square('#579'), square('#975')]);
  });
  afterAll(async () => {
    await t?.close();
  });

  const clone = (client: Client, key: string | undefined, file = image, amount = '1') => {
    const req = client.agent.post('/api/generateNoise');
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.field('author', client.username).field('amount', amount).attach('original', file, 'in.png');
  };
  const jobsOf = (client: Client) => jobs.countDocuments({ username: client.username });

  it('does a repeated submission once: the same answer again, one job, one charge', async () => {
    const user = await signIn(t, uniqueName('idem'));
    await grantCredits(t, user.username, 10);
    const first = await clone(user, 'retry-1');
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await clone(user, 'retry-1');
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(await jobsOf(user)).toBe(1);
    expect(await balanceOf(user)).toBe(9);
    // Without a key, or with a new one, it is a new request.
    expect((await clone(user, undefined)).status).toBe(200);
    expect((await clone(user, 'retry-2')).status).toBe(200);
    expect(await jobsOf(user)).toBe(3);
    expect(await balanceOf(user)).toBe(7);
  });

  it('answers 409 for the same key with another request, and changes nothing', async () => {
    const user = await signIn(t, uniqueName('idemreuse'));
    await grantCredits(t, user.username, 10);
    expect((await clone(user, 'k')).status).toBe(200);
    for (const changed of [clone(user, 'k', other), clone(user, 'k', image, '2')]) {
      const res = await changed;
      expect(res.status).toBe(409);
      expect(res.body.content).toBe(IdempotencyMessages.reused);
    }
    const folder = await user.agent
      .post('/api/makeFolder')
      .set('Idempotency-Key', 'k')
      .send({ author: user.username, title: 'x' });
    expect(folder.status).toBe(409);
    expect(await jobsOf(user)).toBe(1);
    expect(await balanceOf(user)).toBe(9);
  });

  it('runs one of 20 parallel duplicates: one job, one charge, the others 409 or the same answer', async () => {
    const user = await signIn(t, uniqueName('idempar'));
    await grantCredits(t, user.username, 20);
    const first = await clone(user, undefined);
    const jobId = first.body.content.job._id as string;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        user.agent
          .post(`/api/jobs/${jobId}/retry`)
          .set('Idempotency-Key', 'parallel')
          .send({ expectedCost: 1 }),
      ),
    );
    const made = answers.filter((res) => res.status === 200);
    expect(made.length).toBeGreaterThanOrEqual(1);
    expect(new Set(made.map((res) => res.body.content._id)).size).toBe(1);
    for (const res of answers.filter((r) => r.status !== 200)) {
      expect({ status: res.status, content: res.body.content }).toEqual({
        status: 409,
        content: IdempotencyMessages.inProgress,
      });
    }
    expect(await jobsOf(user)).toBe(2);
    expect(await balanceOf(user)).toBe(18);
    // Once the first has answered, a late duplicate gets its answer.
    const late = await user.agent
      .post(`/api/jobs/${jobId}/retry`)
      .set('Idempotency-Key', 'parallel')
      .send({ expectedCost: 1 });
    expect(late.status).toBe(200);
    expect(late.body.content._id).toBe(made[0].body.content._id);
    expect(await balanceOf(user)).toBe(18);
  });

  it('keeps a refusal made by the work (402) but not one of bad input (400), like Stripe', async () => {
    const user = await signIn(t, uniqueName('idemfail'));
    await grantCredits(t, user.username, 1);
    const jobId = (await clone(user, undefined)).body.content.job._id as string;
    const retry = () =>
      user.agent.post(`/api/jobs/${jobId}/retry`).set('Idempotency-Key', 'pay').send({ expectedCost: 1 });
    const broke = await retry();
    expect(broke.status).toBe(402);
    await grantCredits(t, user.username, 5);
    const replayed = await retry();
    expect(replayed.status).toBe(402);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toEqual(broke.body);
    expect(await balanceOf(user)).toBe(5);
    // A request refused for its input did not start: the key stays free for the corrected one.
    const bad = await clone(user, 'fix', image, '0');
    expect(bad.status).toBe(400);
    expect((await clone(user, 'fix')).status).toBe(200);
    expect(await balanceOf(user)).toBe(4);
  });

  it('keeps keys per account, and refuses a malformed key with 400', async () => {
    const a = await signIn(t, uniqueName('idema'));
    const b = await signIn(t, uniqueName('idemb'));
    await grantCredits(t, a.username, 5);
    await grantCredits(t, b.username, 5);
    expect((await clone(a, 'shared')).status).toBe(200);
    const byB = await clone(b, 'shared');
    expect(byB.status).toBe(200);
    expect(byB.headers['idempotent-replayed']).toBeUndefined();
    expect(await balanceOf(b)).toBe(4);
    for (const key of ['', 'x'.repeat(256), 'with space']) {
      const res = await b.agent
        .post('/api/makeFolder')
        .set('Idempotency-Key', key)
        .send({ author: b.username, title: 'y' });
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(IdempotencyMessages.badKey);
    }
  });

  it('makes a folder once for a repeated write', async () => {
    const user = await signIn(t, uniqueName('idemfolder'));
    const make = () =>
      user.agent
        .post('/api/makeFolder')
        .set('Idempotency-Key', 'folder-1')
        .send({ author: user.username, title: 'Once' });
    const [first, second] = [await make(), await make()];
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    const profile = await user.agent.get(`/api/getProfile/${user.username}`);
    const titles = (profile.body.content.folders as { title: string }[]).map((f) => f.title);
    expect(titles.filter((title) => title === 'Once')).toHaveLength(1);
  });
});
