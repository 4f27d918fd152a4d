import { getModelToken } from '@nestjs/mongoose';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import mongoose, { Model, Types } from 'mongoose';
import { AccountsRepository } from '../accounts/accounts.repository';
import { DomainEventBus } from '../events/domain-event-bus';
import { signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { Account, AccountSchema } from '../accounts/account.schema';
import { BalanceVersion, BalanceVersionSchema } from '../accounts/balance-version.schema';
import { JobLiveness } from './job-liveness';
import { LedgerEntry, LedgerEntrySchema } from './ledger-entry.schema';
import { LedgerService } from './ledger.service';

describe('credits ledger (real FerretDB)', () => {
  let t: TestApp;
  let ledger: LedgerService;
  let accounts: AccountsRepository;
  let entries: Model<LedgerEntry>;

  beforeAll(async () => {
    t = await startTestApp();
    ledger = t.app.get(LedgerService);
    accounts = t.app.get(AccountsRepository);
    entries = t.app.get(getModelToken(LedgerEntry.name));
  });
  afterAll(() => t.close());

  async function newUser(balance: number) {
    const { username } = await signIn(t, uniqueName('led'));
    const account = (await accounts.findByUsername(username))!;
    if (balance > 0) {
      await ledger.credit({
        key: `seed-${account.id}`,
        userId: account.id,
        username,
        kind: 'grant',
        amount: balance,
        reason: 'seed',
      });
    }
    return { userId: account.id, username };
  }

  /** The invariant: nothing in flight, and the balance is the sum of the applied entries. */
  async function expectConsistent(userId: string) {
    const { balance } = await accounts.balanceOf(userId);
    expect(await entries.countDocuments({ userId: new Types.ObjectId(userId), state: 'pending' })).toBe(0);
    expect(await ledger.appliedSum(userId)).toBe(balance);
    expect(balance).toBeGreaterThanOrEqual(0);
    return balance;
  }

  it('lets exactly 100 of 1,000 concurrent 1-credit reservations through a balance of 100, over many connections', async () => {
    const user = await newUser(100);
    // Eight independent connections (each with its own pool), as several API instances would have.
    const connections = await Promise.all(
      Array.from({ length: 8 }, () =>
        mongoose.createConnection(t.config.MONGODB_URI, { maxPoolSize: 10 }).asPromise(),
      ),
    );
    try {
      const services = connections.map(
        (conn) =>
          new LedgerService(
            conn.model(LedgerEntry.name, LedgerEntrySchema) as unknown as Model<LedgerEntry>,
            new AccountsRepository(
              conn.model(Account.name, AccountSchema) as unknown as Model<Account>,
              conn.model(BalanceVersion.name, BalanceVersionSchema) as unknown as Model<BalanceVersion>,
            ),
            t.app.get(DomainEventBus),
            new JobLiveness(),
          ),
      );
      const results = await Promise.all(
        Array.from({ length: 1000 }, (_, i) =>
          services[i % services.length].reserve({
            key: `burst-${user.userId}-${i}`,
            ...user,
            amount: 1,
            reason: 'burst',
          }),
        ),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(100);
      expect(results.filter((r) => !r.ok && r.reason === 'insufficient_funds')).toHaveLength(900);
      expect(await expectConsistent(user.userId)).toBe(0);
      expect(
        await entries.countDocuments({
          userId: new Types.ObjectId(user.userId),
          kind: 'reservation',
          state: 'applied',
        }),
      ).toBe(100);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  }, 240_000);

  it('applies a key once, however often it is repeated', async () => {
    const user = await newUser(0);
    const change = {
      key: `purchase-${user.userId}`,
      ...user,
      kind: 'purchase' as const,
      amount: 400,
      reason: 'two packs',
    };
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => ledger.credit(change)));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(await expectConsistent(user.userId)).toBe(400);
    expect(await entries.countDocuments({ _id: change.key })).toBe(1);
  });

  it('never takes a balance below zero', async () => {
    const user = await newUser(5);
    const outcome = await ledger.reserve({
      key: `big-${user.userId}`,
      ...user,
      amount: 6,
      reason: 'too much',
    });
    expect(outcome).toMatchObject({ ok: false, reason: 'insufficient_funds' });
    expect(await expectConsistent(user.userId)).toBe(5);
  });

  it('settles a reservation once: captured or refunded, never both', async () => {
    const user = await newUser(50);
    await ledger.reserve({ key: `a-${user.userId}`, ...user, amount: 10, reason: 'job a', tool: 'clone' });
    expect(await ledger.capture(`a-${user.userId}`)).toBe(true);
    expect(await ledger.capture(`a-${user.userId}`)).toBe(false);
    expect(await ledger.refund(`a-${user.userId}`, 'late failure')).toBe(0);
    expect(await expectConsistent(user.userId)).toBe(40);

    await ledger.reserve({ key: `b-${user.userId}`, ...user, amount: 10, reason: 'job b' });
    const refunds = await Promise.all([
      ledger.refund(`b-${user.userId}`, 'failed'),
      ledger.refund(`b-${user.userId}`, 'failed'),
    ]);
    expect(refunds.sort()).toEqual([0, 10]);
    expect(await ledger.capture(`b-${user.userId}`)).toBe(false);
    expect(await expectConsistent(user.userId)).toBe(40);
  });

  describe('recovery after a crash between two steps', () => {
    const past = new Date(Date.now() - 60 * 60_000);
    const age = (key: string) =>
      entries.updateOne({ _id: key }, { $set: { createdAt: past, appliedAt: past } });

    it('completes a credit whose intent was recorded but not applied', async () => {
      const user = await newUser(0);
      const key = `crash-intent-${user.userId}`;
      await ledger.recordIntent({ key, ...user, kind: 'purchase', amount: 200, reason: 'one pack' });
      await age(key);
      await ledger.recover();
      expect(await expectConsistent(user.userId)).toBe(200);
    });

    it('voids a reservation whose request died before deducting', async () => {
      const user = await newUser(10);
      const key = `crash-res-intent-${user.userId}`;
      await ledger.recordIntent({ key, ...user, kind: 'reservation', amount: -4, reason: 'job' });
      await age(key);
      await ledger.recover();
      expect((await entries.findById(key).lean())?.state).toBe('rejected');
      expect(await expectConsistent(user.userId)).toBe(10);
    });

    it('finishes a deduction that reached the balance but not the ledger, without deducting twice', async () => {
      const user = await newUser(10);
      const key = `crash-applied-${user.userId}`;
      const entry = await ledger.recordIntent({
        key,
        ...user,
        kind: 'reservation',
        amount: -4,
        reason: 'job',
        expiresAt: new Date(Date.now() + 3600_000),
      });
      await accounts.applyBalanceChange(user.userId, String(entry._id), -4);
      await age(key);
      await ledger.recover();
      expect((await entries.findById(key).lean())?.state).toBe('applied');
      expect(await expectConsistent(user.userId)).toBe(6);
      await ledger.recover();
      expect(await expectConsistent(user.userId)).toBe(6);
    });

    it('announces a change that was applied but not announced', async () => {
      const user = await newUser(10);
      const key = `crash-silent-${user.userId}`;
      const entry = await ledger.recordIntent({ key, ...user, kind: 'grant', amount: 3, reason: 'gift' });
      const change = await accounts.applyBalanceChange(user.userId, String(entry._id), 3);
      await entries.updateOne(
        { _id: key },
        { $set: { state: 'applied', balanceAfter: 13, appliedAt: past } },
      );
      expect(change).toEqual({ status: 'applied', balance: 13 });
      const stats = await ledger.recover();
      expect(stats.announced).toBeGreaterThanOrEqual(1);
      expect((await entries.findById(key).lean())?.announced).toBe(true);
      expect(await expectConsistent(user.userId)).toBe(13);
    });

    it('completes a refund that was recorded but not paid', async () => {
      const user = await newUser(10);
      const key = `crash-refund-${user.userId}`;
      await ledger.reserve({ key, ...user, amount: 4, reason: 'job' });
      await ledger.recordIntent({
        key: `settle:${key}`,
        ...user,
        kind: 'refund',
        amount: 4,
        reason: 'failed',
        reservationKey: key,
      });
      await age(`settle:${key}`);
      await ledger.recover();
      expect(await expectConsistent(user.userId)).toBe(10);
      expect(await ledger.capture(key)).toBe(false);
      await ledger.recover();
      expect(await expectConsistent(user.userId)).toBe(10);
    });

    it('returns credits held for a job that was never recorded', async () => {
      const user = await newUser(10);
      const key = `crash-nojob-${user.userId}`;
      await ledger.reserve({ key, ...user, amount: 4, reason: 'job', jobId: 'never-recorded', holdMs: -1 });
      await ledger.recover();
      expect((await entries.findById(key).lean())?.settlement).toBe('refunded');
      expect(await expectConsistent(user.userId)).toBe(10);
    });

    it('keeps holding credits for a job that is still alive', async () => {
      const user = await newUser(10);
      const key = `crash-alive-${user.userId}`;
      const liveness = t.app.get(JobLiveness);
      liveness.use(async (jobId) => jobId === 'alive-job');
      try {
        await ledger.reserve({ key, ...user, amount: 4, reason: 'job', jobId: 'alive-job', holdMs: -1 });
        await ledger.recover();
        expect((await entries.findById(key).lean())?.settlement).toBeUndefined();
        expect(await expectConsistent(user.userId)).toBe(6);
      } finally {
        liveness.use(async () => false);
      }
    });

    it('survives a real SIGKILL in the middle of ledger work', async () => {
      const user = await newUser(30);
      const child = spawn(
        process.execPath,
        [
          '-r',
          'ts-node/register',
          join(__dirname, '../../../test/ledger-crash-child.ts'),
          user.userId,
          user.username,
        ],
        {
          env: {
            ...process.env,
            TS_NODE_TRANSPILE_ONLY: 'true',
            TS_NODE_PROJECT: join(__dirname, '../../../tsconfig.json'),
            MONGODB_URI: t.config.MONGODB_URI,
            REDIS_URL: t.config.REDIS_URL,
            REDIS_PREFIX: t.config.REDIS_PREFIX,
            PORT: '0',
            LOG_LEVEL: 'silent',
            NODE_ENV: 'test',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<NodeJS.Signals | null>((resolve) =>
        child.on('exit', (_code, signal) => resolve(signal)),
      );
      // Let it run 30+ operations, then kill it mid-flight (a random point within an operation).
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => {
          if (/ops (3\d|[4-9]\d|\d{3,})/.test(d.toString())) resolve();
        });
        child.on('exit', () => reject(new Error(`child exited early: ${stderr}`)));
      });
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 50)));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      await ledger.recover(0);
      await expectConsistent(user.userId);
      const reservations = await entries
        .find({ userId: new Types.ObjectId(user.userId), kind: 'reservation', state: 'applied' })
        .lean();
      // Every reservation is settled or still held (the last one, with its hold running).
      expect(reservations.filter((r) => r.settlement === undefined).length).toBeLessThanOrEqual(1);
      // The child boots the whole app with ts-node first (models included): slow on a busy machine.
    }, 180_000);
  });
});
