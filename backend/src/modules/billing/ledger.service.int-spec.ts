import { getQueueToken } from '@nestjs/bull';
import { getModelToken } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import mongoose, { Model, Types } from 'mongoose';
import { DomainEvents } from '@studio/contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import { DOMAIN_EVENTS_QUEUE, DomainEventBus } from '../events/domain-event-bus';
import { eventually, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { Account, AccountSchema } from '../accounts/account.schema';
import { AccountBalances, KEEP_RECENT, TRIM_EVERY } from './account-balances';
import { JobLiveness } from './job-liveness';
import { LedgerEntry, LedgerEntrySchema } from './ledger-entry.schema';
import { LedgerService } from './ledger.service';

describe('credits ledger (real FerretDB)', () => {
  let t: TestApp;
  let ledger: LedgerService;
  let accounts: AccountsRepository;
  let balances: AccountBalances;
  let entries: Model<LedgerEntry>;
  let accountModel: Model<Account>;

  beforeAll(async () => {
    t = await startTestApp();
    ledger = t.app.get(LedgerService);
    accounts = t.app.get(AccountsRepository);
    balances = t.app.get(AccountBalances);
    entries = t.app.get(getModelToken(LedgerEntry.name));
    accountModel = t.app.get(getModelToken(Account.name));
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
      const services = connections.map((conn) => {
        const entryModel = conn.model(LedgerEntry.name, LedgerEntrySchema) as unknown as Model<LedgerEntry>;
        return new LedgerService(
          entryModel,
          new AccountBalances(
            conn.model(Account.name, AccountSchema) as unknown as Model<Account>,
            entryModel,
          ),
          t.app.get(DomainEventBus),
          new JobLiveness(),
        );
      });
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

  it('refunds a reservation whose announcement Redis could not take (the entry still pending)', async () => {
    // Redis down: the balance moves, the entries stay 'pending' until recovery announces them.
    // A submission undone meanwhile (its answer a 503, "nothing was charged") must still get its
    // credits back at once, not when recovery finds the hold expired 15 minutes later.
    const user = await newUser(20);
    const key = `unannounced-${user.userId}`;
    const bus = t.app.get(DomainEventBus);
    const down = jest.spyOn(bus, 'publishDirect').mockRejectedValue(new Error('Connection is closed.'));
    try {
      await ledger.reserve({ key, ...user, amount: 5, reason: 'job', tool: 'clone' });
      expect((await entries.findById(key).lean())?.state).toBe('pending');
      expect(await ledger.refund(key, 'Job not started')).toBe(5);
      expect((await accounts.balanceOf(user.userId)).balance).toBe(20);
    } finally {
      down.mockRestore();
    }
    expect(await ledger.refund(key, 'Job not started')).toBe(0);
    await ledger.recover(0);
    expect(await expectConsistent(user.userId)).toBe(20);
  });

  it("gives back a captured job's outputs' shares once each, adding up to the cost; nothing for a job not captured", async () => {
    const user = await newUser(20);
    const actor = { username: 'mod' };
    const key = `shares-${user.userId}`;
    await ledger.reserve({ key, ...user, amount: 5, reason: 'three outputs', tool: 'generate' });
    expect(await ledger.capture(key)).toBe(true);
    expect(await expectConsistent(user.userId)).toBe(15);
    const share = (part: number) =>
      ledger.refundCapturedShare({
        key: `${key}-out${part}`,
        reservationKey: key,
        part,
        parts: 3,
        reason: 'removed',
        actor,
      });
    expect(await share(0)).toEqual({ credits: 2, appliedNow: true });
    expect(await share(0)).toEqual({ credits: 2, appliedNow: false });
    expect(await share(1)).toEqual({ credits: 2, appliedNow: true });
    expect(await share(2)).toEqual({ credits: 1, appliedNow: true });
    expect(await expectConsistent(user.userId)).toBe(20);

    // Refunded (the job failed) or still open: nothing was paid, so nothing is given back.
    const failed = `failed-${user.userId}`;
    await ledger.reserve({ key: failed, ...user, amount: 3, reason: 'failed job', tool: 'generate' });
    expect(
      await ledger.refundCapturedShare({
        key: `${failed}-out0`,
        reservationKey: failed,
        part: 0,
        parts: 1,
        reason: 'removed',
        actor,
      }),
    ).toBeNull();
    await ledger.refund(failed, 'failed');
    expect(
      await ledger.refundCapturedShare({
        key: `${failed}-out0`,
        reservationKey: failed,
        part: 0,
        parts: 1,
        reason: 'removed',
        actor,
      }),
    ).toBeNull();
    expect(await expectConsistent(user.userId)).toBe(20);
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

    it('voids a reservation whose request died before deducting, and a late deduction cannot land', async () => {
      const user = await newUser(10);
      const key = `crash-res-intent-${user.userId}`;
      const entry = await ledger.recordIntent({
        key,
        ...user,
        kind: 'reservation',
        amount: -4,
        reason: 'job',
      });
      await age(key);
      await ledger.recover();
      expect((await entries.findById(key).lean())?.state).toBe('rejected');
      expect(await expectConsistent(user.userId)).toBe(10);
      // The request that wrote the intent wakes up (a long pause, not dead) and runs its step 2:
      // the account has recorded the void, so the deduction is refused and nothing changes.
      expect(await balances.apply(user.userId, key, -4)).toEqual({ status: 'voided' });
      expect(await ledger.complete(entry)).toMatchObject({ ok: false });
      expect((await entries.findById(key).lean())?.state).toBe('rejected');
      expect(await expectConsistent(user.userId)).toBe(10);
    });

    it('finishes a deduction that reached the balance but not the ledger, without deducting twice', async () => {
      const user = await newUser(10);
      const key = `crash-applied-${user.userId}`;
      await ledger.recordIntent({
        key,
        ...user,
        kind: 'reservation',
        amount: -4,
        reason: 'job',
        expiresAt: new Date(Date.now() + 3600_000),
      });
      expect(await balances.apply(user.userId, key, -4)).toMatchObject({ status: 'applied', balance: 6 });
      await age(key);
      await ledger.recover();
      expect((await entries.findById(key).lean())?.state).toBe('applied');
      expect(await expectConsistent(user.userId)).toBe(6);
      // Anyone running step 2 again (a replay, another recovery) finds it taken.
      expect(await balances.apply(user.userId, key, -4)).toEqual({ status: 'already', balance: 6 });
      await ledger.recover();
      expect(await expectConsistent(user.userId)).toBe(6);
    });

    it('announces a change that reached the balance before the process died', async () => {
      const user = await newUser(10);
      const key = `crash-silent-${user.userId}`;
      await ledger.recordIntent({ key, ...user, kind: 'grant', amount: 3, reason: 'gift' });
      expect(await balances.apply(user.userId, key, 3)).toMatchObject({ status: 'applied', balance: 13 });
      await age(key);
      const events = t.app.get<Queue>(getQueueToken(DOMAIN_EVENTS_QUEUE));
      expect(await events.getJob(`ledger:${key}`)).toBeNull();
      const stats = await ledger.recover();
      expect(stats.completed).toBeGreaterThanOrEqual(1);
      expect((await events.getJob(`ledger:${key}`))?.data).toMatchObject({
        name: DomainEvents.balanceChanged,
        payload: { userId: user.userId, delta: 3, balance: 13, entryId: key },
      });
      expect((await entries.findById(key).lean())?.state).toBe('applied');
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

  describe('the account keeps the keys of its latest entries', () => {
    it('trims them, but never the key of an entry still pending', async () => {
      const user = await newUser(10);
      const stuck = `trim-stuck-${user.userId}`;
      await ledger.recordIntent({ key: stuck, ...user, kind: 'grant', amount: 1, reason: 'stuck' });
      expect(await balances.apply(user.userId, stuck, 1)).toMatchObject({ status: 'applied' });
      // 150 later changes that move nothing (no ledger entries of their own: final as far as
      // trimming is concerned), one after another.
      for (let i = 0; i < 150; i += 1) {
        expect(await balances.apply(user.userId, `trim-${user.userId}-${i}`, 0)).toMatchObject({
          status: 'applied',
        });
      }
      await balances.trim(user.userId);
      const account = await accountModel.findById(user.userId).select({ ledgerRecent: 1 }).lean();
      expect(account!.ledgerRecent.length).toBeLessThanOrEqual(KEEP_RECENT + 1);
      expect(account!.ledgerRecent).toContain(stuck);
      expect(account!.ledgerRecent).toContain(`trim-${user.userId}-149`);
      expect(account!.ledgerRecent).not.toContain(`trim-${user.userId}-0`);
      // Still exactly once: the stuck entry is finished by recovery, not applied again.
      expect(await balances.apply(user.userId, stuck, 1)).toMatchObject({ status: 'already' });
      await entries.updateOne({ _id: stuck }, { $set: { createdAt: new Date(0) } });
      await ledger.recover();
      expect(await expectConsistent(user.userId)).toBe(11);
    }, 240_000);

    it('trims the marks of refused reservations too: an empty account does not grow with each refusal', async () => {
      const user = await newUser(0);
      // Every refusal voids its key on the account (`!key`); none of them applies anything.
      for (let i = 0; i < 230; i += 1) {
        const outcome = await ledger.reserve({
          key: `refused-${user.userId}-${i}`,
          ...user,
          amount: 1,
          reason: 'x',
        });
        expect(outcome).toMatchObject({ ok: false, reason: 'insufficient_funds' });
      }
      await eventually(async () => {
        const account = await accountModel.findById(user.userId).select({ ledgerRecent: 1 }).lean();
        expect(account!.ledgerRecent.length).toBeLessThanOrEqual(KEEP_RECENT + TRIM_EVERY);
        expect(account!.ledgerRecent).toContain(`!refused-${user.userId}-229`);
      });
      expect(await expectConsistent(user.userId)).toBe(0);
    }, 240_000);
  });

  it('drops the ledger indexes of earlier releases that no query uses, and keeps the others', async () => {
    await entries.collection.createIndex({ userId: 1 });
    await entries.collection.createIndex({ createdAt: 1 });
    await ledger.dropRetiredIndexes();
    const names = (await entries.collection.indexes()).map((index) => index.name);
    expect(names).not.toEqual(expect.arrayContaining(['userId_1']));
    expect(names).not.toEqual(expect.arrayContaining(['createdAt_1']));
    expect(names).toEqual(expect.arrayContaining(['_id_', 'userId_1_createdAt_-1', 'state_1', 'hold_1']));
  });

  describe('migration from the balance-version chains of earlier releases', () => {
    it('seeds the balance field once from the newest version and finishes entries a version applied', async () => {
      const { username } = await signIn(t, uniqueName('mig'));
      const account = (await accounts.findByUsername(username))!;
      const id = new Types.ObjectId(account.id);
      // The account as the previous release left it: no balance field, a chain of versions, and a
      // purchase whose version was written but whose entry is still pending.
      await accountModel.collection.updateOne(
        { _id: id },
        { $unset: { balance: 1, ledgerVersion: 1, ledgerRecent: 1 } },
      );
      const versions = accountModel.db.collection('balance_versions');
      await versions.insertMany([
        {
          _id: `${account.id}:1` as never,
          accountId: id,
          version: 1,
          balance: 200,
          entryId: `old-buy-${account.id}`,
        },
        {
          _id: `${account.id}:2` as never,
          accountId: id,
          version: 2,
          balance: 197,
          entryId: `old-res-${account.id}`,
        },
      ]);
      await entries.collection.insertMany([
        {
          _id: `old-buy-${account.id}` as never,
          userId: id,
          username,
          kind: 'purchase',
          amount: 200,
          reason: 'pack',
          state: 'applied',
          createdAt: new Date(),
        },
        {
          _id: `old-res-${account.id}` as never,
          userId: id,
          username,
          kind: 'reservation',
          amount: -3,
          reason: 'job',
          state: 'pending',
          createdAt: new Date(0),
        },
      ]);

      expect(await balances.migrateFromVersionChains()).toBe(1);
      expect(await balances.migrateFromVersionChains()).toBe(0);
      expect((await accounts.balanceOf(account.id)).balance).toBe(197);
      expect((await entries.findById(`old-res-${account.id}`).lean())?.state).toBe('applied');
      // The entry a version applied is not applied again by anyone.
      expect(await balances.apply(account.id, `old-res-${account.id}`, -3)).toMatchObject({
        status: 'already',
      });
      await ledger.recover();
      expect(await ledger.appliedSum(account.id)).toBe(197);
      expect((await accounts.balanceOf(account.id)).balance).toBe(197);
    });
  });
});
