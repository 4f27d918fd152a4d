/**
 * Ledger benchmark: reservations per second and latency under 200 concurrent clients, side by side
 * with the raw operation the ledger is built on (one unique-_id insert of a balance version),
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
import { BalanceVersion } from '../src/modules/accounts/balance-version.schema';
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
  const versions = app.get<Model<BalanceVersion>>(getModelToken(BalanceVersion.name));
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

  // Baseline: the raw compare-and-set the ledger's apply step is built on.
  const rawAccounts = Array.from({ length: CLIENTS }, () => ({ id: new Types.ObjectId(), version: 0 }));
  const raw = await drive(
    'raw: insert next balance version (unique _id)',
    CLIENTS,
    OPS,
    async (client, i) => {
      const account = rawAccounts[client];
      account.version += 1;
      await versions.create({
        _id: `${account.id}:${account.version}`,
        accountId: account.id,
        version: account.version,
        balance: 1_000_000 - account.version,
        entryId: `raw-${runId}-${i}`,
      });
    },
  );

  const reserve = await drive('ledger.reserve (intent, apply, finalize, event)', CLIENTS, OPS, (client, i) =>
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
  await app.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
