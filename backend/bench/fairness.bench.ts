/**
 * Fair share benchmark (issues 24 and 54): user A queues a backlog of BENCH_FAIR_BACKLOG (3) clone
 * jobs of BENCH_FAIR_COPIES (100) copies each; once A's first job runs, user B submits one clone of
 * one copy. B must wait for at most one running backlog job: its wait (submit → its result, less
 * its own time alone on the idle queue) is shown against that bound: the first backlog job to end
 * after B's submit, as it ran then, or one of A's jobs run alone in the same run if that took
 * longer, x 1.2. The wait is read from B's result, not from its record's
 * start: a worker that takes a job its pool cannot start yet marks it running while it waits.
 *
 * The workers are processes of their own, as `npm start` and production run them (the real worker
 * entry point, WORKER_QUEUES=clone, one engine pool thread as on this 2-core machine, the clone
 * queue at its default concurrency of 2; BENCH_FAIR_WORKERS of them), run twice on the same API,
 * database and Redis: "before" is the backend at BENCH_BASELINE_REF (the commit before issue 54's
 * change, whose worker took up to JOB_CONCURRENCY_CLONE jobs whatever its pool could start),
 * "after" the working tree. Clones are made by the local engine with sharp (BENCH_FAIR_SIDE px
 * image): real work of a stable duration that needs no model.
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { io, type Socket } from 'socket.io-client';
import { JobSocketEvents, SocketEvents, type JobSocketPayloads } from '@studio/contracts';
import { createApp } from '../api/src/create-app';
import { loadConfig, type AppConfig } from '../src/config/app-config';
import { Job } from '../src/modules/generation/job.schema';
import { benchUser, submitImageJob } from './bench-client';

const ROOT = join(__dirname, '../..');
/** The backend before issue 54's change (a worker took jobs its engine pool could not start yet). */
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? 'bc8218b';
const BACKLOG = Number(process.env.BENCH_FAIR_BACKLOG ?? 3);
const SIDE = Number(process.env.BENCH_FAIR_SIDE ?? 1024);
const COPIES = Number(process.env.BENCH_FAIR_COPIES ?? 100);
const POOL_SIZE = process.env.BENCH_FAIR_POOL_SIZE ?? '1';
/** Worker processes (each with its own pool) working on the clone queue. */
const WORKERS = Number(process.env.BENCH_FAIR_WORKERS ?? 1);
const IDLE_RUNS = 3;
const FIXTURES = join(ROOT, 'libs/inference/fixtures');
/** Where the baseline's backend is unpacked: inside the repository, so it finds its node_modules. */
const BASELINE_DIR = join(ROOT, '.data/bench-fairness-baseline');
const VARIANTS = (process.env.BENCH_VARIANTS ?? 'before after').split(/\s+/) as Variant[];

type Variant = 'before' | 'after';

const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Resolves when the socket hears that a job completed (or failed), with when it heard it. */
function completions(sockets: Socket[]) {
  const heard = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const hear = (jobId: string) => {
    const at = performance.now();
    heard.set(jobId, at);
    waiting.get(jobId)?.(at);
  };
  for (const socket of sockets) {
    socket.on(JobSocketEvents.completed, ({ job }: JobSocketPayloads['job.completed']) => hear(job._id));
    socket.on(JobSocketEvents.failed, ({ job, message }: JobSocketPayloads['job.failed']) => {
      console.error(`job ${job._id} failed: ${message}`);
      hear(job._id);
    });
  }
  return (jobId: string) =>
    new Promise<number>((resolve) => {
      const at = heard.get(jobId);
      if (at !== undefined) resolve(at);
      else waiting.set(jobId, resolve);
    });
}

/** The backend at BASELINE_REF (with the repository's tsconfig.json), unpacked once. */
function unpackBaseline(): void {
  rmSync(BASELINE_DIR, { recursive: true, force: true });
  mkdirSync(BASELINE_DIR, { recursive: true });
  const archive = execFileSync(
    'git',
    ['archive', BASELINE_REF, 'backend/src', 'backend/worker', 'tsconfig.json'],
    {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
    },
  );
  execFileSync('tar', ['-x', '--exclude=*.spec.ts', '-C', BASELINE_DIR], { input: archive });
}

/** A worker process (the real entry point) of the given backend on the API's services. */
function startWorker(root: string, config: AppConfig): ChildProcess {
  return spawn(process.execPath, ['-r', 'ts-node/register', join(root, 'backend/worker/src/main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      TS_NODE_TRANSPILE_ONLY: 'true',
      TS_NODE_PROJECT: join(root, 'tsconfig.json'),
      MONGODB_URI: config.MONGODB_URI,
      REDIS_URL: config.REDIS_URL,
      REDIS_PREFIX: config.REDIS_PREFIX,
      STORAGE_DIR: config.STORAGE_DIR,
      SESSION_SECRET: config.SESSION_SECRET,
      PASSWORD_SCRYPT_LOG_N: '10',
      LOG_LEVEL: 'warn',
      WORKER_QUEUES: 'clone',
      ENGINE_POOL_SIZE: POOL_SIZE,
      JOB_CONCURRENCY_CLONE: '2', // the default, stated: the pool has fewer threads
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function stopWorker(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGTERM');
  await exited;
}

interface Outcome {
  variant: Variant;
  /** B's submit → job.completed heard on B's socket */
  done: number;
  /** B alone on the idle queue, submit → job.completed (median) */
  idle: number;
  /** A's backlog jobs' records, started → finished (a job taken early counts its wait for the pool) */
  runs: number[];
  /** B's submit → the first end of a backlog job (the worker's clock, same machine) */
  runningLeft: number;
  /** One of A's jobs alone on the idle queue, started → finished */
  oneJob: number;
  /** A's backlog jobs that ended before B's */
  before: number;
  order: string;
  told: JobSocketPayloads['job.queued'];
}

async function main(): Promise<void> {
  const storage = mkdtempSync(join(tmpdir(), 'fairness-bench-'));
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_WAIT_MS: '0',
    WORKER_QUEUES: 'none', // the API only; the worker is a process of its own
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_PREFIX: `fair${Date.now().toString(36)}`,
    STORAGE_DIR: storage,
  });
  if (VARIANTS.includes('before')) unpackBaseline();
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const jobs = app.get<Model<Job>>(getModelToken(Job.name));
  const image = await sharp(readFileSync(join(FIXTURES, 'ai-face.jpg')))
    .resize(SIDE, SIDE)
    .png()
    .toBuffer();
  const sockets: Socket[] = [];

  console.log(
    `\n== fairness: A queues ${BACKLOG} clone jobs of ${COPIES} copies (${SIDE}x${SIDE} image), then B one clone of 1 copy; ${WORKERS} worker process(es), each with WORKER_QUEUES=clone, ENGINE_POOL_SIZE=${POOL_SIZE}, JOB_CONCURRENCY_CLONE=2; before = backend at ${BASELINE_REF}, after = working tree ==`,
  );

  const run = async (variant: Variant): Promise<Outcome> => {
    const [a, b] = await Promise.all([
      benchUser(app, base, `fairA${variant}`, (BACKLOG + 1) * COPIES),
      benchUser(app, base, `fairB${variant}`, IDLE_RUNS + 10),
    ]);
    const pair = await Promise.all(
      [a, b].map(async ({ cookie }) => {
        const socket = io(base, { transports: ['websocket'], extraHeaders: { cookie } });
        await new Promise((resolve) => socket.once(SocketEvents.ready, resolve));
        sockets.push(socket);
        return socket;
      }),
    );
    const done = completions(pair);
    const submit = (cookie: string, copies: number) =>
      submitImageJob(base, '/api/generateNoise', cookie, image, { amount: String(copies) });
    const workers = Array.from({ length: WORKERS }, () =>
      startWorker(variant === 'before' ? BASELINE_DIR : ROOT, config),
    );
    try {
      // Warm-up (the workers' boot, their pools' first tasks and models), not counted.
      await Promise.all(Array.from({ length: WORKERS }, async () => done(await submit(b.cookie, 1))));
      // B alone on an idle queue: submit -> job.completed heard on B's socket.
      const idle: number[] = [];
      for (let i = 0; i < IDLE_RUNS; i++) {
        const t0 = performance.now();
        idle.push((await done(await submit(b.cookie, 1))) - t0);
      }
      // One of A's jobs alone on the idle queue: what "one running backlog job" takes.
      const alone = await submit(a.cookie, COPIES);
      await done(alone);
      const aloneRecord = (await jobs.findById(alone).lean())!;
      const oneJob = aloneRecord.finishedAt!.getTime() - aloneRecord.startedAt!.getTime();
      // A's backlog; B submits once A's first job is running.
      const backlog: string[] = [];
      for (let i = 0; i < BACKLOG; i++) backlog.push(await submit(a.cookie, COPIES));
      for (;;) {
        const first = await jobs.findById(backlog[0]).lean();
        if (first?.state !== 'queued') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const queued = new Promise<JobSocketPayloads['job.queued']>((resolve) =>
        pair[1].once(JobSocketEvents.queued, resolve),
      );
      const submittedAt = Date.now();
      const t0 = performance.now();
      const bJob = await submit(b.cookie, 1);
      const finished = (await done(bJob)) - t0;
      const told = await queued;
      await Promise.all(backlog.map((jobId) => done(jobId)));

      const records = await jobs.find({ _id: { $in: [...backlog, bJob] } }).lean();
      const backlogRecords = records.filter((job) => String(job._id) !== bJob);
      const runs = backlogRecords.map((job) => job.finishedAt!.getTime() - job.startedAt!.getTime());
      const firstEnd = Math.min(...backlogRecords.map((job) => job.finishedAt!.getTime()));
      const byEnd = records.sort((x, y) => x.finishedAt!.getTime() - y.finishedAt!.getTime());
      const order = byEnd
        .map((job) => (String(job._id) === bJob ? 'B' : `A${backlog.indexOf(String(job._id)) + 1}`))
        .join(' ');
      return {
        variant,
        done: finished,
        idle: median(idle),
        runs,
        runningLeft: firstEnd - submittedAt,
        oneJob,
        before: byEnd.findIndex((job) => String(job._id) === bJob),
        order,
        told,
      };
    } finally {
      await Promise.all(workers.map(stopWorker));
    }
  };

  const outcomes: Outcome[] = [];
  for (const variant of VARIANTS) outcomes.push(await run(variant));

  let failed = false;
  for (const o of outcomes) {
    // One running job: the first backlog job to end after B's submit, as it ran then (several
    // workers on few cores slow each other's jobs), or one of A's jobs alone if that took longer.
    const oneRunning = Math.max(o.oneJob, o.runningLeft);
    const bound = oneRunning * 1.2;
    const wait = o.done - o.idle;
    const pass = wait <= bound;
    failed ||= o.variant === 'after' && !pass;
    console.log(
      `${o.variant.padEnd(6)}: B's result after ${s(o.done)}, less its ${s(o.idle)} alone on the idle queue: waited ${s(wait)}, behind ${o.before} of A's jobs; bound: one running backlog job (the first to end did ${s(o.runningLeft)} after B's submit; one of A's alone took ${s(o.oneJob)}) x 1.2 = ${s(bound)}: ${pass ? 'PASS' : 'FAIL'} (${(wait / oneRunning).toFixed(2)}x)`,
    );
    console.log(
      `        ended in order ${o.order}; the backlog's records, started → finished: ${o.runs.map(s).join(', ')}; B was told place ${o.told.position}, ETA ${o.told.job.etaSeconds ?? '-'} s`,
    );
  }

  for (const socket of sockets) socket.close();
  await app.close();
  rmSync(storage, { recursive: true, force: true });
  rmSync(BASELINE_DIR, { recursive: true, force: true });
  if (failed) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
