import { getModelToken } from '@nestjs/mongoose';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoNetworkError } from 'mongodb';
import type { Model } from 'mongoose';
import request from 'supertest';
import { JobSocketEvents, Messages, type JobView } from '@studio/contracts';
import {
  balanceOf,
  connectSocket,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
} from '../../test/clients';
import { fixture } from '../../test/fixtures';
import { startPrivateFerretDb, startPrivateRedis, type PrivateService } from '../../test/private-services';
import { startTestApp, type TestApp } from '../../test/test-app';
import { LedgerService } from '../modules/billing';
import { LedgerEntry } from '../modules/billing/ledger-entry.schema';
import { Job } from '../modules/generation';
import { QueuePositions } from '../modules/generation/queue-positions';
import { CopyFinder } from '../modules/takedown';

/**
 * Redis or the database really killed (SIGKILL) or frozen (SIGSTOP) under a running app, on
 * services of this file's own: requests that need the missing part are answered 503 with
 * Retry-After and the plain message, nothing is reserved or charged meanwhile, and once the part
 * is back the next clone succeeds without a restart. Answers that never come fail the request's
 * own timeout (a hang), not a timing figure.
 */
const NO_HANG = { response: 5_000, deadline: 8_000 };
/** A clone that runs (the first loads the engine's models on a busy machine): a bound, not a goal. */
const RUNS = { response: 60_000, deadline: 90_000 };

/** OUTAGE_REPORT=file: each answer's status and time, and the time to the first job after the return. */
function report(line: object): void {
  if (process.env.OUTAGE_REPORT) appendFileSync(process.env.OUTAGE_REPORT, `${JSON.stringify(line)}\n`);
}

describe('outage: Redis or the database down, and back', () => {
  let redis: PrivateService;
  let db: PrivateService;
  let t: TestApp;
  let alice: Client;
  /** Submits only while a part is down: never charged. */
  let bob: Client;
  let ledger: Model<LedgerEntry>;
  /** A built frontend of one page: served whatever is down. */
  const frontend = mkdtempSync(join(tmpdir(), 'outage-frontend-'));

  beforeAll(async () => {
    [redis, db] = await Promise.all([startPrivateRedis(), startPrivateFerretDb()]);
    writeFileSync(join(frontend, 'index.html'), '<!doctype html><title>studio</title>');
    t = await startTestApp({
      MONGODB_URI: `${db.url}/outage`,
      REDIS_URL: redis.url,
      JOB_WAIT_MS: '30000',
      JOB_BACKOFF_MS: '100',
      FRONTEND_DIST: frontend,
    });
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    await Promise.all([grantCredits(t, alice.username, 40), grantCredits(t, bob.username, 40)]);
    ledger = t.app.get(getModelToken(LedgerEntry.name));
  }, 120_000);

  afterAll(async () => {
    redis?.thaw();
    db?.thaw();
    await t?.close();
    await Promise.all([redis?.stop(), db?.stop()]);
    rmSync(frontend, { recursive: true, force: true });
  });

  const clone = (timeout = NO_HANG, client = alice) =>
    client.agent
      .post('/api/generateNoise')
      .timeout(timeout)
      .field('author', client.username)
      .field('amount', '1')
      .attach('original', fixture('cgi-model-1.jpg'), 'model.jpg');
  const balanceRead = () => alice.agent.get(`/api/getProfile/${alice.username}`).timeout(NO_HANG);
  const sessionRead = () => alice.agent.get('/api/session').timeout(NO_HANG);

  /** The studio's outage answer: 503, when to retry, and the plain words. */
  async function expectOutageAnswer(what: string, sent: Promise<request.Response>): Promise<void> {
    const start = Date.now();
    const test = expect.getState().currentTestName;
    const res = await sent.catch((err: Error) => {
      report({ test, what, status: err.message, ms: Date.now() - start });
      throw err;
    });
    report({ test, what, status: res.status, ms: Date.now() - start });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 503,
      body: { message: 'error', content: Messages.briefOutage },
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  }

  const openHolds = () => ledger.countDocuments({ hold: 'open' });

  /** Once the part is back: a clone succeeds (polled, as reconnecting takes a moment). */
  async function cloneSucceedsAgain(): Promise<JobView> {
    return eventually(async () => {
      const sent = Date.now();
      const res = await clone(RUNS);
      report({
        test: expect.getState().currentTestName,
        what: 'clone after the return',
        status: res.status,
        ms: Date.now() - sent,
      });
      if (res.status !== 200 || res.body.message !== 'success') {
        throw new Error(`clone answered ${res.status} ${JSON.stringify(res.body)}`);
      }
      return res.body.content.job as JobView;
    }, 60_000);
  }

  /** Runs `during` with the part down, brings it back, and checks the money and the next clone. */
  async function survives(
    down: () => Promise<void> | void,
    up: () => Promise<void> | void,
    during: () => Promise<void>,
  ): Promise<void> {
    await eventually(async () => expect(await openHolds()).toBe(0), 30_000);
    const before = await balanceOf(alice);
    await down();
    try {
      await during();
    } finally {
      await up();
    }
    const back = Date.now();
    const job = await cloneSucceedsAgain();
    report({
      test: expect.getState().currentTestName,
      what: 'first clone after the return',
      ms: Date.now() - back,
    });
    expect(job).toMatchObject({ state: 'succeeded', cost: 1 });
    // That clone is the only charge: nothing was charged or left reserved while the part was down.
    expect(await balanceOf(alice)).toBe(before - 1);
    expect(await balanceOf(bob)).toBe(40);
    await eventually(async () => expect(await openHolds()).toBe(0), 30_000);
  }

  it('the app starts with both parts up: a clone runs', async () => {
    const res = await clone(RUNS);
    expect(res.status).toBe(200);
    expect(res.body.content.job).toMatchObject({ state: 'succeeded' });
  });

  it('Redis killed: submissions, sessions and balances answer 503 with Retry-After; health and liveness still answer', async () => {
    // A socket connected before: once Redis is back, pushes from the job runner (published to
    // Redis) reach it again through the adapter's resubscribed connection.
    const socket = await connectSocket(t, alice.cookie);
    let completed = 0;
    socket.on(JobSocketEvents.completed, () => (completed += 1));
    try {
      await survives(
        () => redis.kill(),
        () => redis.restart(),
        async () => {
          // A new socket cannot be authenticated: refused, not left hanging.
          const refused = new Promise((_resolve, reject) =>
            setTimeout(() => reject(new Error('hung')), 5_000),
          );
          await expect(Promise.race([connectSocket(t, alice.cookie), refused])).rejects.not.toThrow('hung');
          await during();
        },
      );
      await eventually(async () => expect(completed).toBe(1), 30_000);
    } finally {
      socket.close();
    }

    async function during(): Promise<void> {
      await expectOutageAnswer('clone', clone());
      await expectOutageAnswer('clone', clone(NO_HANG, bob));
      await expectOutageAnswer('session', sessionRead());
      await expectOutageAnswer('balance', balanceRead());
      // Requests that need neither the session nor Redis are still answered: liveness, and the
      // pages of the built frontend, even for a browser that sends its session cookie.
      expect((await request(t.url).get('/api/health/live').timeout(NO_HANG)).status).toBe(200);
      const page = await alice.agent.get('/studio').timeout(NO_HANG);
      expect({ status: page.status, html: page.text }).toEqual({
        status: 200,
        html: expect.stringContaining('<title>studio'),
      });
    }
  });

  it('Redis frozen (SIGSTOP, connections stay open): 503 instead of a hang, and work resumes on SIGCONT', async () => {
    await survives(
      () => redis.freeze(),
      () => redis.thaw(),
      async () => {
        await expectOutageAnswer('clone', clone());
        await expectOutageAnswer('clone', clone(NO_HANG, bob));
        await expectOutageAnswer('session', sessionRead());
        await expectOutageAnswer('balance', balanceRead());
      },
    );
  });

  it('Redis dies after the credits are reserved, before the job is queued: 503, credits given back, no job left', async () => {
    // The fault at the one moment that matters: the reservation and the job's record are written,
    // and Redis is killed just as the job is handed to the queue.
    const positions = t.app.get(QueuePositions, { strict: false });
    const enqueue = positions.enqueue.bind(positions);
    const handOff = jest.spyOn(positions, 'enqueue').mockImplementationOnce(async (job) => {
      await redis.kill();
      return enqueue(job);
    });
    const jobs = t.app.get<Model<Job>>(getModelToken(Job.name));
    const jobsBefore = await jobs.countDocuments();
    try {
      await survives(
        () => undefined,
        () => redis.restart(),
        async () => {
          await expectOutageAnswer('clone', clone());
          expect(handOff).toHaveBeenCalledTimes(1);
          // The job the answer refused is not left to run later (the sweep would queue it again).
          expect(await jobs.countDocuments()).toBe(jobsBefore);
        },
      );
    } finally {
      handOff.mockRestore();
    }
  });

  it('the database dies while a submission waits for its accepted job: the answer is the job, processing, not a 503 saying nothing was charged', async () => {
    await eventually(async () => expect(await openHolds()).toBe(0), 30_000);
    const before = await balanceOf(alice);
    // The fault once the job is reserved and queued, while the request waits for it (JOB_WAIT_MS).
    const positions = t.app.get(QueuePositions, { strict: false });
    const enqueue = positions.enqueue.bind(positions);
    const handOff = jest.spyOn(positions, 'enqueue').mockImplementationOnce(async (job) => {
      const placed = await enqueue(job);
      await db.kill();
      return placed;
    });
    let jobId: string;
    try {
      const res = await clone(RUNS);
      expect(handOff).toHaveBeenCalledTimes(1);
      expect({ status: res.status, message: res.body.message }).toEqual({
        status: 200,
        message: 'processing',
      });
      jobId = res.body.content.job._id;
    } finally {
      handOff.mockRestore();
      await db.restart();
    }
    // The accepted job runs once the database is back, and is charged once: the answer was true.
    await eventually(async () => {
      const res = await alice.agent.get(`/api/jobs/${jobId}`).timeout(NO_HANG);
      expect(res.body.content).toMatchObject({ state: 'succeeded', cost: 1 });
    }, 90_000);
    expect(await balanceOf(alice)).toBe(before - 1);
    await eventually(async () => expect(await openHolds()).toBe(0), 30_000);
  });

  it('the database lost right after the reservation reached the balance: 503, and the credits are back at once', async () => {
    await eventually(async () => expect(await openHolds()).toBe(0), 30_000);
    const before = await balanceOf(alice);
    // The step after the reservation fails as it would with the database gone mid-request.
    const copies = t.app.get(CopyFinder, { strict: false });
    const lost = jest
      .spyOn(copies, 'recordInputs')
      .mockRejectedValueOnce(new MongoNetworkError('connection 7 to 127.0.0.1:27017 closed'));
    try {
      await expectOutageAnswer('clone', clone());
      expect(lost).toHaveBeenCalledTimes(1);
    } finally {
      lost.mockRestore();
    }
    // given back now, not when the ledger's recovery finds the hold 15 minutes later
    expect(await balanceOf(alice)).toBe(before);
    expect(await openHolds()).toBe(0);
  });

  it('the undo itself fails too: the answer does not say nothing was charged, and the credits come back by themselves', async () => {
    await eventually(async () => expect(await openHolds()).toBe(0), 30_000);
    const before = await balanceOf(alice);
    const copies = t.app.get(CopyFinder, { strict: false });
    const books = t.app.get(LedgerService, { strict: false });
    const lost = jest
      .spyOn(copies, 'recordInputs')
      .mockRejectedValueOnce(new MongoNetworkError('connection 7 to 127.0.0.1:27017 closed'));
    // The database still away when the submission gives its credits back.
    const undo = jest
      .spyOn(books, 'refund')
      .mockRejectedValueOnce(new MongoNetworkError('connection 8 to 127.0.0.1:27017 closed'));
    try {
      const res = await clone();
      expect({ status: res.status, body: res.body }).toEqual({
        status: 503,
        body: { message: 'error', content: Messages.briefOutageCreditsReturning },
      });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      expect(undo).toHaveBeenCalledTimes(1);
    } finally {
      lost.mockRestore();
    }
    // Given back by the retry, not when the ledger's recovery finds the hold 15 minutes later.
    await eventually(async () => expect(await balanceOf(alice)).toBe(before), 30_000);
    expect(undo.mock.calls.length).toBeGreaterThan(1);
    undo.mockRestore();
    expect(await openHolds()).toBe(0);
  });

  it('the database killed: submissions, sessions and balances answer 503 with Retry-After', async () => {
    await survives(
      () => db.kill(),
      () => db.restart(),
      async () => {
        await expectOutageAnswer('clone', clone());
        await expectOutageAnswer('clone', clone(NO_HANG, bob));
        await expectOutageAnswer('session', sessionRead());
        await expectOutageAnswer('balance', balanceRead());
        expect((await request(t.url).get('/api/health/live').timeout(NO_HANG)).status).toBe(200);
      },
    );
  });

  it('the database frozen (SIGSTOP): 503 instead of a hang, and work resumes on SIGCONT', async () => {
    await survives(
      () => db.freeze(),
      () => db.thaw(),
      async () => {
        await expectOutageAnswer('clone', clone());
        await expectOutageAnswer('session', sessionRead());
        await expectOutageAnswer('balance', balanceRead());
      },
    );
  });
});
