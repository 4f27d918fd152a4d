/**
 * Admin statistics benchmark: GET /api/admin/stats (write-time counters) over a log of
 * BENCH_LOG_ENTRIES entries (default 1,000,000) spread over the last 60 days, side by side with the
 * same aggregation run directly through the driver; the one-off recount of that log into the
 * counters; what counting adds to writing a line; the first and a deep page of GET
 * /api/admin/logs. Prints how long seeding took (insertMany in batches).
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Model } from 'mongoose';
import { AuditCategory } from '@studio/contracts';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { AuditEntry } from '../src/modules/audit/audit-entry.schema';
import type Redis from 'ioredis';
import { REDIS } from '../src/infrastructure/redis.module';
import { AuditCounters, RECOUNT_SETTLE_MS } from '../src/modules/audit/audit-counters';
import { AuditService } from '../src/modules/audit/audit.service';
import {
  buildStats,
  CREDITS_PATTERN,
  statsWindow,
  SWAPPED_PATTERN,
  type StatsRow,
} from '../src/modules/audit/audit-stats';
import { logIn } from './bench-client';
import { time } from './timing';

const ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
/** The direct aggregation and the log pages scan the whole log on FerretDB: a few runs say enough. */
const SCAN_RUNS = Number(process.env.BENCH_SCAN_RUNS ?? 3);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 500);
const DAYS = 60;
const TZ = 'Europe/Berlin';

/** The i-th seeded entry: 40% spends, 20% face swaps, the rest other wording; newest first. */
function entry(i: number, now: number) {
  const createdOn = new Date(now - Math.floor((i / ENTRIES) * DAYS * 86_400_000));
  const author = { username: `user${i % 500}` };
  switch (i % 5) {
    case 0:
    case 1:
      return { category: AuditCategory.credits, author, createdOn, message: `Spent ${1 + (i % 7)} credits.` };
    case 2: {
      const n = 1 + (i % 3);
      return {
        category: AuditCategory.faceSwap,
        author,
        createdOn,
        message: `Swapped ${n} image${n === 1 ? '' : 's'}.`,
        detail: `Job bench-${i} · cost ${n}`,
      };
    }
    case 3:
      return { category: AuditCategory.credits, author, createdOn, message: 'Bought 200 coins.' };
    default:
      return {
        category: AuditCategory.account,
        author,
        createdOn,
        message: 'Logged in.',
        detail: 'From 127.0.0.1',
      };
  }
}

async function main(): Promise<void> {
  const adminName = `benchadmin${Date.now().toString(36)}`;
  const adminPassword = 'bench-admin-password';
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    ADMIN_USERNAME: adminName,
    ADMIN_PASSWORD: adminPassword,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const cookie = await logIn(base, adminName, adminPassword);

  const log = app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name)).collection;
  const now = Date.now();
  const seedStart = performance.now();
  for (let from = 0; from < ENTRIES; from += BATCH) {
    const docs = [];
    for (let i = from; i < Math.min(ENTRIES, from + BATCH); i += 1) docs.push(entry(i, now));
    await log.insertMany(docs, { ordered: false });
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const total = await log.countDocuments();

  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { cookie } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return (await res.arrayBuffer()).byteLength;
  };
  const window = statsWindow(TZ, new Date());
  const pipeline = [
    {
      $match: {
        createdOn: {
          $gte: new Date(window.starts[0]),
          $lt: new Date(window.starts[window.starts.length - 1]),
        },
        $or: [
          { message: { $regex: CREDITS_PATTERN } },
          { category: AuditCategory.faceSwap, message: { $regex: SWAPPED_PATTERN } },
        ],
      },
    },
    { $project: { _id: 0, createdOn: 1, category: 1, message: 1 } },
  ];
  let matched = 0;
  const statsRaw = await time(SCAN_RUNS, async () => {
    const rows = await log.aggregate(pipeline).toArray();
    matched = rows.length;
    return Buffer.byteLength(JSON.stringify(rows));
  });
  // The seeded lines went around the service, as an existing log would: recount them, once.
  const counters = app.get(AuditCounters);
  const redis = app.get<Redis>(REDIS);
  const counterKeys = await redis.keys(`${config.REDIS_PREFIX}:{audit-stats}:*`);
  if (counterKeys.length) await redis.del(...counterKeys);
  const recountStart = performance.now();
  await counters.recount();
  const recountSeconds = (performance.now() - recountStart) / 1000 - RECOUNT_SETTLE_MS / 1000;
  const statsHttp = await time(RUNS, () => get(`/api/admin/stats?tz=${encodeURIComponent(TZ)}`));
  const fromCounters = await app.get(AuditService).stats(TZ);
  const fromScan = buildStats(statsWindow(TZ, new Date()), await log.aggregate<StatsRow>(pipeline).toArray());
  if (JSON.stringify(fromCounters) !== JSON.stringify(fromScan)) {
    throw new Error('the counters disagree with the log');
  }
  // What counting costs each written line: append() through the service, against a bare insert.
  const audit = app.get(AuditService);
  const appendCounted = await time(APPENDS, () =>
    audit.append({
      category: AuditCategory.credits,
      author: { username: 'bench' },
      message: 'Spent 2 credits.',
    }),
  );
  const insertBare = await time(APPENDS, () =>
    log.insertOne({
      category: AuditCategory.credits,
      author: { username: 'bench' },
      createdOn: new Date(),
      message: 'Spent 2 credits.',
    }),
  );
  const deep = Math.max(1, Math.floor(total / 50 / 2));
  const page1 = await time(SCAN_RUNS, () => get('/api/admin/logs?page=1&pageSize=50'));
  const pageRaw = await time(SCAN_RUNS, async () => {
    const rows = await log.find({}).sort({ createdOn: -1, _id: -1 }).limit(50).toArray();
    return Buffer.byteLength(JSON.stringify(rows));
  });
  const pageDeep = await time(SCAN_RUNS, () => get(`/api/admin/logs?page=${deep}&pageSize=50`));

  console.log(
    `\nadmin statistics benchmark: ${ENTRIES} entries over ${DAYS} days (${total} in the log), ${RUNS} runs of the counted statistics, ${SCAN_RUNS} of each scan, database ${config.MONGODB_URI}`,
  );
  console.log(
    `seeding: ${seedSeconds.toFixed(1)} s in batches of ${BATCH} (${Math.round(ENTRIES / seedSeconds)} entries/s); the stats window matches ${matched} rows`,
  );
  console.log(
    `recount from the log into the counters: ${recountSeconds.toFixed(1)} s (once, after Redis lost them or for a log written around the service); counters and scan agree`,
  );
  console.log(
    `${'case'.padEnd(52)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'bytes'.padStart(9)} ${'vs raw'.padStart(9)}`,
  );
  for (const [name, r, raw] of [
    [`GET /api/admin/stats?tz=${TZ} (HTTP, counters)`, statsHttp, statsRaw],
    [`raw: aggregate([$match window+patterns, $project])`, statsRaw, statsRaw],
    ['append() one counted line (insert + counter)', appendCounted, insertBare],
    ['raw: insertOne() one line', insertBare, insertBare],
    ['GET /api/admin/logs?page=1 (HTTP, session)', page1, pageRaw],
    ['raw: find().sort({createdOn:-1}).limit(50)', pageRaw, pageRaw],
    [`GET /api/admin/logs?page=${deep} (HTTP, session)`, pageDeep, pageRaw],
  ] as const) {
    console.log(
      `${name.padEnd(52)} ${r.p50.toFixed(1).padStart(9)} ${r.p99.toFixed(1).padStart(9)} ${String(r.bytes).padStart(9)} ${(r.p50 / raw.p50).toFixed(2).padStart(8)}x`,
    );
  }
  await app.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
