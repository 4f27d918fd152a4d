/**
 * Faults survived (issue 53, "What it must show"): for Redis, the database, the worker, a remote
 * GPU engine, S3 and a full disk, three users submit jobs while the part fails for BENCH_FAULT_MS
 * (10 s) and returns, and the table says what they were answered meanwhile (time p50/max, status
 * codes), what /api/health/ready said, how long after the return the first job succeeded, and
 * whether every balance equals its ledger sum and what it started at less what was charged.
 *
 * The drills are backend/test/faults/fault-drill.ts, the fault suite's own. `npm run bench --
 * faults` runs them against this tree; deploy/local/faults-before.sh runs this same file against
 * an older commit's backend (the "before" column). BENCH_FAULTS=redis,database picks rows.
 */
import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mongoose';
import { createApp } from '../api/src/create-app';
import { loadConfig, type AppConfig } from '../src/config/app-config';
import { LedgerService } from '../src/modules/billing/ledger.service';
import { ContentSafety } from '../src/modules/content-safety';
import { MarkedImageClassifier } from '../test/marked-classifier';
import { exited, startWorker } from '../test/processes';
import { startPrivateFerretDb, startPrivateRedis } from '../test/private-services';
import { startToxiproxy, type Toxiproxy } from '../test/toxiproxy';
import {
  moneyHolds,
  percentile,
  runDrill,
  summarize,
  tally,
  type DrillReport,
  type Fault,
} from '../test/faults/fault-drill';

const FAULT_MS = Number(process.env.BENCH_FAULT_MS ?? 10_000);
const RECOVERY_MS = Number(process.env.BENCH_RECOVERY_MS ?? 120_000);
const LABEL = process.env.BENCH_FAULTS_LABEL ?? 'this tree';

/** A studio for one row: the app in this process, plus whatever the row started beside it. */
interface Stage {
  overrides: Record<string, string>;
  fault: (app: Running) => Fault;
  tool?: 'clone' | 'superResolution';
  /** The jobs run in a worker process of their own instead of in the API's. */
  separateWorker?: boolean;
  cleanup: () => Promise<void>;
}

interface Running {
  config: AppConfig;
  workers: ChildProcess[];
}

const ROWS: Record<string, (toxiproxy: Toxiproxy) => Promise<Stage>> = {
  async redis() {
    const redis = await startPrivateRedis();
    return {
      overrides: { REDIS_URL: redis.url },
      fault: () => ({
        name: 'Redis killed (SIGKILL)',
        inject: () => redis.kill(),
        restore: () => redis.restart(),
      }),
      cleanup: () => redis.stop(),
    };
  },
  async database() {
    const db = await startPrivateFerretDb();
    return {
      overrides: { MONGODB_URI: `${db.url}/bench_faults` },
      fault: () => ({
        name: 'database killed (SIGKILL)',
        inject: () => db.kill(),
        restore: () => db.restart(),
      }),
      cleanup: () => db.stop(),
    };
  },
  async worker() {
    return {
      overrides: { WORKER_INLINE: 'false', JOB_LOCK_MS: '10000' },
      separateWorker: true,
      fault: (app) => ({
        name: 'worker killed (SIGKILL), a new one started',
        inject: async () => {
          const worker = app.workers.at(-1)!;
          worker.kill('SIGKILL');
          await exited(worker);
        },
        restore: async () => void app.workers.push(startWorker(app)),
      }),
      cleanup: async () => undefined,
    };
  },
  async gpu(toxiproxy) {
    const { startFakeA1111 } = await import('@studio/inference');
    const gpu = await startFakeA1111();
    const line = await toxiproxy.proxy(`gpu${Date.now()}`, new URL(gpu.url).host);
    let heal = async () => undefined as void;
    return {
      tool: 'superResolution',
      overrides: {
        ENGINE_SUPER_RESOLUTION: 'a1111',
        A1111_URL: `http://${line.listen}`,
        A1111_TIMEOUT_MS: '4000',
      },
      fault: () => ({
        name: 'GPU engine stalls (toxiproxy timeout; A1111_TIMEOUT_MS 4 s)',
        inject: async () => void (heal = await line.add({ type: 'timeout', attributes: { timeout: 0 } })),
        restore: () => heal(),
      }),
      cleanup: () => gpu.close(),
    };
  },
  async s3(toxiproxy) {
    const endpoint = process.env.TEST_S3_ENDPOINT;
    if (!endpoint) throw new Error('TEST_S3_ENDPOINT (moto) is not set: run through npm run bench -- faults');
    const { CreateBucketCommand, S3Client } = await import('@aws-sdk/client-s3');
    const bucket = `faults-${randomBytes(4).toString('hex')}`;
    const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
    const admin = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    admin.destroy();
    const line = await toxiproxy.proxy(`s3${Date.now()}`, new URL(endpoint).host);
    let heal = async () => undefined as void;
    return {
      overrides: {
        STORAGE_DRIVER: 's3',
        S3_BUCKET: bucket,
        S3_ENDPOINT: `http://${line.listen}`,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: credentials.accessKeyId,
        S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
        S3_TIMEOUT_MS: '4000',
      },
      fault: () => ({
        name: 'S3 stalls (toxiproxy timeout; S3_TIMEOUT_MS 4 s where the build has it)',
        inject: async () => void (heal = await line.add({ type: 'timeout', attributes: { timeout: 0 } })),
        restore: () => heal(),
      }),
      cleanup: async () => undefined,
    };
  },
  async disk() {
    // A real ENOSPC: the storage folder on a 4 MiB tmpfs (needs root), filled to the last byte.
    const mountPoint = mkdtempSync(join(tmpdir(), 'faults-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mountPoint]);
    const storage = join(mountPoint, 'storage');
    mkdirSync(storage);
    const filler = join(mountPoint, 'filler');
    return {
      overrides: { STORAGE_DIR: storage },
      fault: () => ({
        name: 'local disk full (ENOSPC)',
        inject: async () => {
          try {
            writeFileSync(filler, Buffer.alloc(8 * 1024 * 1024));
          } catch {
            // ENOSPC: the disk is full now, which is the point
          }
        },
        restore: async () => rmSync(filler, { force: true }),
      }),
      cleanup: async () => {
        execFileSync('umount', [mountPoint]);
        rmSync(mountPoint, { recursive: true, force: true });
      },
    };
  },
};

/** Ends a promise's wait after `ms` (an app whose parts broke may never finish closing). */
const bounded = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([
    promise,
    new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms).unref()),
  ]);

async function runRow(name: string, toxiproxy: Toxiproxy): Promise<DrillReport | string> {
  const stage = await ROWS[name](toxiproxy);
  const id = randomBytes(4).toString('hex');
  const storage = mkdtempSync(join(tmpdir(), 'faults-bench-'));
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    MONGODB_URI: `${process.env.MONGODB_URI!.replace(/\/[^/]*$/, '')}/faults_${id}`,
    REDIS_PREFIX: `faults_${id}`,
    PORT: '0',
    HOST: '127.0.0.1',
    PASSWORD_SCRYPT_LOG_N: '10',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
    JOB_RATE_LIMIT_PER_MINUTE: '1000',
    JOB_WAIT_MS: '0',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent',
    STORAGE_DIR: storage,
    AGE_ASSURANCE: 'off',
    ENGINE_POOL_NICE: '0',
    ...stage.overrides,
  });
  const running: Running = { config, workers: [] };
  let app: INestApplication | undefined;
  try {
    app = await createApp(config);
    // Outputs are plain test images: the marked-image double stands in for the classifier, as in the tests.
    app.get(ContentSafety).override(new MarkedImageClassifier());
    await app.listen(0, '127.0.0.1');
    if (stage.separateWorker) running.workers.push(startWorker(running));
    const { port } = app.getHttpServer().address() as AddressInfo;
    const ledger = app.get(LedgerService);
    const accounts = await createConnection(config.MONGODB_URI).asPromise();
    try {
      return await runDrill(
        {
          url: `http://127.0.0.1:${port}`,
          mongoUri: config.MONGODB_URI,
          async grant(username, amount) {
            const account = await accounts.db!.collection('accounts').findOne({ username });
            const outcome = await ledger.credit({
              key: `bench-grant:${username}`,
              userId: String(account!._id),
              username,
              kind: 'grant',
              amount,
              reason: 'faults bench',
            });
            if (!outcome.ok) throw new Error(`grant failed: ${outcome.reason}`);
          },
        },
        stage.fault(running),
        { tool: stage.tool, faultMs: FAULT_MS, recoveryTimeoutMs: RECOVERY_MS, answerTimeoutMs: 30_000 },
      );
    } finally {
      await accounts.close();
    }
  } catch (err) {
    return `did not complete: ${(err as Error).message}`;
  } finally {
    for (const worker of running.workers) worker.kill('SIGKILL');
    await Promise.all(running.workers.map(exited));
    if (app) await bounded(app.close(), 20_000);
    await stage.cleanup().catch(() => undefined);
    rmSync(storage, { recursive: true, force: true });
  }
}

function row(name: string, report: DrillReport | string): string {
  if (typeof report === 'string') return `| ${name} | ${report} | | | | |`;
  const ms = report.during.map((a) => a.ms);
  const statuses = tally(
    report.during.map((a) =>
      a.status === 503 && !a.retryAfter
        ? '503 without Retry-After'
        : a.status === 0
          ? 'no answer in 30 s'
          : a.status,
    ),
  );
  const codes = Object.entries(statuses)
    .map(([code, n]) => `${code} ×${n}`)
    .join(', ');
  const ready = Object.entries(tally(report.readiness))
    .map(([code, n]) => `${code === '0' ? 'no answer' : code} ×${n}`)
    .join(', ');
  const first =
    report.firstJobAfterReturnMs === undefined
      ? `none in ${RECOVERY_MS / 1000} s`
      : `${(report.firstJobAfterReturnMs / 1000).toFixed(1)} s`;
  const books =
    moneyHolds(report) && report.settlement.length === 0 && report.chargedWithoutAcceptance.length === 0
      ? 'holds'
      : 'BROKEN';
  const ends = Object.entries(report.endStates)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
  return `| ${name} | ${percentile(ms, 50) ?? '-'} / ${percentile(ms, 100) ?? '-'} ms | ${codes || 'none sent'} | ${ready} | ${first} | ${books} (${ends}${report.unfinished.length ? `, ${report.unfinished.length} never ended` : ''}) |`;
}

async function main(): Promise<void> {
  const names = (process.env.BENCH_FAULTS ?? 'redis,database,worker,gpu,s3,disk')
    .split(',')
    .map((n) => n.trim());
  const toxiproxy = await startToxiproxy();
  const lines: string[] = [];
  try {
    for (const name of names) {
      if (!ROWS[name]) throw new Error(`no fault row ${name} (have ${Object.keys(ROWS).join(', ')})`);
      const report = await runRow(name, toxiproxy);
      console.error(typeof report === 'string' ? `${name}: ${report}` : summarize(report));
      lines.push(row(name, report));
    }
  } finally {
    await toxiproxy.stop();
  }
  console.log(
    `\n== faults (${LABEL}): 3 users submitting, each part failed for ${FAULT_MS / 1000} s, then back ==`,
  );
  console.log(
    '| part | answer while down p50 / max | statuses while down | /api/health/ready while down | first job after return | money check (jobs) |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const line of lines) console.log(line);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
