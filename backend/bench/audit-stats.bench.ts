/**
 * Admin statistics and activity log benchmark, over a log of BENCH_LOG_ENTRIES entries (default
 * 1,000,000) spread over the last 60 days, each figure beside the raw driver operation it is built
 * on: GET /api/admin/stats (write-time counters) against the aggregation over the entries'
 * figures; the one-off recount; what counting adds to writing a line; and GET /api/admin/logs by
 * keyset: the first page and the BENCH_DEEP_PAGE-th (default 10,000th) page, reached with the
 * cursor at that position, overall, within a category and for one user. Prints how long seeding
 * took (insertMany in batches).
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { Types, type Model } from 'mongoose';
import { AuditCategory, type LogPage } from '@studio/contracts';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { AuditEntry } from '../src/modules/audit/audit-entry.schema';
import type Redis from 'ioredis';
import { REDIS } from '../src/infrastructure/redis.module';
import { AuditCounters, COUNTED_LINES, RECOUNT_SETTLE_MS } from '../src/modules/audit/audit-counters';
import { AuditService, authorKey } from '../src/modules/audit/audit.service';
import { buildStats, statsWindow, type StatsRow } from '../src/modules/audit/audit-stats';
import { logIn } from './bench-client';
import { time } from './timing';

const ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
/** The direct aggregation and the log pages scan the whole log on FerretDB: a few runs say enough. */
const SCAN_RUNS = Number(process.env.BENCH_SCAN_RUNS ?? 3);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 500);
const PAGE_SIZE = 50;
/** The deep page timed: the 10,000th of 50 is the middle of a 1M log. */
const DEEP_PAGE = Number(process.env.BENCH_DEEP_PAGE ?? 10_000);
const DAYS = 60;
const TZ = 'Europe/Berlin';

/**
 * The i-th seeded entry, newest first, as AuditService.append writes it (the _id carries
 * createdOn's second; spends and swaps carry their figure): 40% spends, 20% face swaps, the rest
 * other lines. Entries are about 5 s apart at 1M, so _id order is i order.
 */
function entry(i: number, now: number) {
  const createdOn = new Date(now - Math.floor((i / ENTRIES) * DAYS * 86_400_000));
  const _id = new Types.ObjectId(Math.floor(createdOn.getTime() / 1000));
  const username = `user${i % 500}`;
  const common = { _id, author: { username }, authorKey: authorKey(username), createdOn };
  switch (i % 5) {
    case 0:
    case 1: {
      const credits = 1 + (i % 7);
      return { ...common, category: AuditCategory.credits, message: `Spent ${credits} credits.`, credits };
    }
    case 2: {
      const n = 1 + (i % 3);
      return {
        ...common,
        category: AuditCategory.faceSwap,
        message: `Swapped ${n} image${n === 1 ? '' : 's'}.`,
        detail: `Job bench-${i} · cost ${n}`,
        swaps: n,
      };
    }
    case 3:
      return { ...common, category: AuditCategory.credits, message: 'Bought 200 coins.' };
    default:
      return { ...common, category: AuditCategory.account, message: 'Logged in.', detail: 'From 127.0.0.1' };
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
  // The cursor of the deep page: the _id of the last entry of the page before it.
  const deepPage = Math.max(2, Math.min(DEEP_PAGE, Math.floor(ENTRIES / PAGE_SIZE)));
  const deepAt = (deepPage - 1) * PAGE_SIZE - 1;
  let deepCursor = '';
  let deepFirst = '';
  for (let from = 0; from < ENTRIES; from += BATCH) {
    const docs = [];
    for (let i = from; i < Math.min(ENTRIES, from + BATCH); i += 1) {
      const doc = entry(i, now);
      if (i === deepAt) deepCursor = doc._id.toHexString();
      if (i === deepAt + 1) deepFirst = doc._id.toHexString();
      docs.push(doc);
    }
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
        ...COUNTED_LINES,
      },
    },
    { $project: { _id: 0, createdOn: 1, credits: 1, swaps: 1 } },
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
      credits: 2,
    }),
  );
  const insertBare = await time(APPENDS, () =>
    log.insertOne({
      category: AuditCategory.credits,
      author: { username: 'bench' },
      createdOn: new Date(),
      message: 'Spent 2 credits.',
      credits: 2,
    }),
  );
  // The log's pages, by keyset: HTTP (session, filters, JSON) beside the driver's find.
  const logPage = (query: string) => get(`/api/admin/logs?pageSize=${PAGE_SIZE}${query}`);
  const rawPage = async (filter: object) => {
    const rows = await log
      .find(filter)
      .sort({ _id: -1 })
      .limit(PAGE_SIZE + 1)
      .toArray();
    return Buffer.byteLength(JSON.stringify(rows));
  };
  const before = new Types.ObjectId(deepCursor);
  const deepAnswer = (await (
    await fetch(`${base}/api/admin/logs?pageSize=${PAGE_SIZE}&before=${deepCursor}`, { headers: { cookie } })
  ).json()) as { content: LogPage };
  if (deepAnswer.content.items[0]._id !== deepFirst || deepAnswer.content.items.length !== PAGE_SIZE) {
    throw new Error(`page ${deepPage} does not start at entry ${deepAt + 1}`);
  }
  const user = 'user7';
  const pages = {
    first: await time(RUNS, () => logPage('')),
    firstRaw: await time(RUNS, () => rawPage({ _id: { $type: 'objectId' } })),
    deep: await time(RUNS, () => logPage(`&before=${deepCursor}`)),
    deepRaw: await time(RUNS, () => rawPage({ _id: { $lt: before } })),
    category: await time(RUNS, () => logPage(`&category=FaceSwap&before=${deepCursor}`)),
    categoryRaw: await time(RUNS, () => rawPage({ category: 'FaceSwap', _id: { $lt: before } })),
    user: await time(RUNS, () => logPage(`&user=${user}&before=${deepCursor}`)),
    userRaw: await time(RUNS, () => rawPage({ authorKey: user, _id: { $lt: before } })),
  };
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
    `${'case'.padEnd(62)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'bytes'.padStart(9)} ${'vs raw'.padStart(9)}`,
  );
  for (const [name, r, raw] of [
    [`GET /api/admin/stats?tz=${TZ} (HTTP, counters)`, statsHttp, statsRaw],
    [`raw: aggregate([$match window+figures, $project])`, statsRaw, statsRaw],
    ['append() one counted line (insert + counter)', appendCounted, insertBare],
    ['raw: insertOne() one line', insertBare, insertBare],
    [`GET /api/admin/logs (first page of ${PAGE_SIZE}, HTTP)`, pages.first, pages.firstRaw],
    ["raw: find({_id:{$type:'objectId'}}).sort({_id:-1}).limit(51)", pages.firstRaw, pages.firstRaw],
    [`GET /api/admin/logs?before= (page ${deepPage}, HTTP)`, pages.deep, pages.deepRaw],
    ['raw: find({_id<cursor}).sort({_id:-1}).limit(51)', pages.deepRaw, pages.deepRaw],
    [`  …&category=FaceSwap (HTTP)`, pages.category, pages.categoryRaw],
    ['raw: find({category, _id<cursor}).sort(…).limit(51)', pages.categoryRaw, pages.categoryRaw],
    [`  …&user=${user} (HTTP)`, pages.user, pages.userRaw],
    ['raw: find({authorKey, _id<cursor}).sort(…).limit(51)', pages.userRaw, pages.userRaw],
  ] as const) {
    console.log(
      `${name.padEnd(62)} ${r.p50.toFixed(1).padStart(9)} ${r.p99.toFixed(1).padStart(9)} ${String(r.bytes).padStart(9)} ${(r.p50 / raw.p50).toFixed(2).padStart(8)}x`,
    );
  }
  await app.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
