/**
 * Ledger benchmark: reservations per second and latency under 200 concurrent clients, side by side
 * with a raw insert of one small document under a unique _id (the ledger entry's own first step),
 * run the same way against the same database. Run with `npm run bench` (starts the services).
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import { performance } from 'node:perf_hooks';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { Account } from '../src/modules/accounts/account.schema';
import { LedgerService } from '../src/modules/billing/ledger.service';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 200);
const OPS = Number(process.env.BENCH_OPS ?? 1000);

interface Result {
  name: string;
  ops: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** Runs `ops` calls of `op` from `clients` concurrent loops; latencies in ms. */
async function drive(
  name: string,
  clients: number,
  ops: number,
  op: (client: number, i: number) => Promise<unknown>,
): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, client) => {
      for (let i = next++; i < ops; i = next++) {
        const t0 = performance.now();
        await op(client, i);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  return { name, ops, seconds, p50: pct(50), p99: pct(99) };
}

function table(rows: Result[], baseline: Result): void {
  const fmt = (n: number, d = 1) => n.toFixed(d).padStart(9);
  console.log(
    `\n${'case'.padEnd(44)} ${'ops/s'.padStart(9)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'vs raw'.padStart(9)}`,
  );
  for (const r of rows) {
    const rate = r.ops / r.seconds;
    const ratio = rate / (baseline.ops / baseline.seconds);
    console.log(`${r.name.padEnd(44)} ${fmt(rate)} ${fmt(r.p50)} ${fmt(r.p99)} ${fmt(ratio, 2)}x`);
  }
}

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn', WORKER_INLINE: 'true' });
  const app = await createApp(config);
  const ledger = app.get(LedgerService);
  const accounts = app.get<Model<Account>>(getModelToken(Account.name));
  const runId = Date.now().toString(36);

  // One account per client, funded so no reservation is refused.
  const users = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, i) => {
      const username = `bench${runId}${i}`;
      const doc = await accounts.create({
        username,
        usernameKey: username,
        email: `${username}@bench.invalid`,
        passwordHash: 'x',
        adultConfirmedAt: new Date(),
      });
      const userId = String(doc._id);
      await ledger.credit({
        key: `bench-seed-${userId}`,
        userId,
        username,
        kind: 'grant',
        amount: 1_000_000,
        reason: 'bench',
      });
      return { userId, username };
    }),
  );

  console.log(
    `ledger benchmark: ${CLIENTS} concurrent clients, ${OPS} operations per case, database ${config.MONGODB_URI.replace(/\/\/[^@]*@/, '//')}`,
  );

  // Baseline: a raw insert under a unique _id, from the same pool.
  const scratch = accounts.db.collection(`bench_raw_${runId}`);
  const raw = await drive('raw: insertOne under a unique _id', CLIENTS, OPS, async (client, i) => {
    await scratch.insertOne({
      _id: `raw-${runId}-${i}` as never,
      userId: new Types.ObjectId(users[client].userId),
      amount: -1,
      reason: 'bench',
      createdAt: new Date(),
    });
  });

  const reserve = await drive('ledger.reserve (entry, guarded $inc, event)', CLIENTS, OPS, (client, i) =>
    ledger.reserve({ key: `bench-${runId}-${i}`, ...users[client], amount: 1, reason: 'bench' }),
  );

  const hot = users[0];
  const hotAccount = await drive(
    'ledger.reserve, all clients on one account',
    CLIENTS,
    Math.min(OPS, 500),
    (_client, i) => ledger.reserve({ key: `bench-hot-${runId}-${i}`, ...hot, amount: 1, reason: 'bench' }),
  );

  table([raw, reserve, hotAccount], raw);
  await scratch.drop().catch(() => undefined);
  await app.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
