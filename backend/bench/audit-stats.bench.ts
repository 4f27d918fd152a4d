/**
 * Admin statistics benchmark: GET /api/admin/stats over a log of BENCH_LOG_ENTRIES entries
 * (default 1,000,000) spread over the last 60 days, side by side with the same aggregation run
 * directly through the driver; also the first and a deep page of GET /api/admin/logs. Prints how
 * long seeding took (insertMany in batches).
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
import { CREDITS_PATTERN, statsWindow, SWAPPED_PATTERN } from '../src/modules/audit/audit-stats';
import { time } from './timing';

const ENTRIES = Number(process.env.BENCH_LOG_ENTRIES ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
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
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username: adminName, password: adminPassword }),
  });
  if (login.status !== 200) throw new Error(`admin login failed: ${login.status}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];

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
  const statsHttp = await time(RUNS, () => get(`/api/admin/stats?tz=${encodeURIComponent(TZ)}`));
  const statsRaw = await time(RUNS, async () => {
    const rows = await log.aggregate(pipeline).toArray();
    matched = rows.length;
    return Buffer.byteLength(JSON.stringify(rows));
  });
  const deep = Math.max(1, Math.floor(total / 50 / 2));
  const page1 = await time(RUNS, () => get('/api/admin/logs?page=1&pageSize=50'));
  const pageRaw = await time(RUNS, async () => {
    const rows = await log.find({}).sort({ createdOn: -1, _id: -1 }).limit(50).toArray();
    return Buffer.byteLength(JSON.stringify(rows));
  });
  const pageDeep = await time(RUNS, () => get(`/api/admin/logs?page=${deep}&pageSize=50`));

  console.log(
    `\nadmin statistics benchmark: ${ENTRIES} entries over ${DAYS} days (${total} in the log), ${RUNS} runs each, database ${config.MONGODB_URI}`,
  );
  console.log(
    `seeding: ${seedSeconds.toFixed(1)} s in batches of ${BATCH} (${Math.round(ENTRIES / seedSeconds)} entries/s); the stats window matches ${matched} rows`,
  );
  console.log(
    `${'case'.padEnd(52)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'bytes'.padStart(9)} ${'vs raw'.padStart(9)}`,
  );
  for (const [name, r, raw] of [
    [`GET /api/admin/stats?tz=${TZ} (HTTP, session)`, statsHttp, statsRaw],
    ['raw: aggregate([$match window+patterns, $project])', statsRaw, statsRaw],
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
