/**
 * Worker start (issue 53, point 4): a clone job waits in the queue, a worker process starts (the
 * compiled worker, as `npm start` runs it: ENGINE_POOL_NICE and WORKER_NICE 5, warm-up at
 * boot), and the time from the process's start to the job's success is measured, with the worker's
 * own log lines on the way (Nest booted, engine pool started, models loaded). Quiet, then beside two
 * busy loops at nice 0 (BENCH_HOGS), for the engine library as it was (BENCH_BASELINE_REF, built
 * into libs/inference/dist/baseline) and as it is, runs interleaved. The API runs in this process.
 * "before" is started as npm start started it then (`nice -n WORKER_NICE` from the first
 * instruction); "after" as now: at the priority of npm start, taking WORKER_NICE once booted.
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { Job } from '../src/modules/generation/job.schema';
import { benchUser, submitImageJob } from './bench-client';

const ROOT = join(__dirname, '../..');
/** The engine library before the worker started ready (the commit before that change). */
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? '002b88b';
const RUNS = Number(process.env.BENCH_RUNS ?? 2);
const HOGS = Number(process.env.BENCH_HOGS ?? 2);
/** npm start's (deploy/local/start.sh, app-config.ts) unless set. */
const WORKER_NICE = process.env.WORKER_NICE ?? '5';
const ENGINE_POOL_NICE = process.env.ENGINE_POOL_NICE ?? '5';
/** Which engine libraries to start the worker with ('before after'; one of them to save time). */
const VARIANTS = (process.env.BENCH_VARIANTS ?? 'before after').split(/\s+/) as Run['variant'][];
/** Which loads ('quiet hogs'). */
const LOADS = (process.env.BENCH_LOADS ?? 'quiet hogs').split(/\s+/) as Run['load'][];
const DEADLINE_MS = Number(process.env.BENCH_WORKER_START_DEADLINE_MS ?? 300_000);
const WORKER_OUT = join(ROOT, 'backend/dist/bench-worker');
const BASELINE_SRC = join(ROOT, 'libs/inference/dist/baseline-src');
const BASELINE_OUT = join(ROOT, 'libs/inference/dist/baseline');

/** The worker's log lines whose first appearance is timed (pino's msg, by a part of it). */
const MARKS = {
  booted: 'worker started',
  pool: 'Engine pool:',
  classifier: 'Content classifier',
  faces: 'Face models loaded',
  sr: 'Super-resolution model loaded',
  reniced: 'its tasks run at nice',
} as const;
type Mark = keyof typeof MARKS;

interface Run {
  variant: 'before' | 'after';
  load: 'quiet' | 'hogs';
  /** ms from the worker's spawn */
  marks: Partial<Record<Mark, number>>;
  succeeded: number;
  /** the job's own run time (started → finished, the database's clocks) */
  jobMs: number;
}

function tsc(args: string[]): void {
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
}

/** The compiled worker (types not checked: the build's job), and the baseline engine library. */
function build(baseline: boolean): void {
  tsc(['-p', 'backend/tsconfig.build.json', '--noCheck', '--outDir', WORKER_OUT]);
  if (!baseline) return;
  rmSync(BASELINE_SRC, { recursive: true, force: true });
  mkdirSync(BASELINE_SRC, { recursive: true });
  const archive = execFileSync('git', ['archive', BASELINE_REF, 'libs/inference/src'], { cwd: ROOT });
  // without its tests: jest's unit project would take them for the project's own
  execFileSync('tar', ['-x', '--strip-components=3', '--exclude=*.spec.ts', '-C', BASELINE_SRC], {
    input: archive,
  });
  writeFileSync(
    join(BASELINE_SRC, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.build.json',
      compilerOptions: { rootDir: '.', outDir: '../baseline', declaration: false },
      include: ['.'],
      exclude: ['**/*.spec.ts', 'spec-helpers.ts'],
    }),
  );
  tsc(['-p', join(BASELINE_SRC, 'tsconfig.json'), '--noCheck']);
  rmSync(BASELINE_SRC, { recursive: true, force: true });
}

/** A preload that points the worker's @studio/inference at the baseline build. */
function baselineHook(dir: string): string {
  const file = join(dir, 'baseline-inference.cjs');
  writeFileSync(
    file,
    `const Module = require('node:module');
const target = ${JSON.stringify(join(BASELINE_OUT, 'index.js'))};
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolve.call(this, request === '@studio/inference' ? target : request, ...rest);
};
`,
  );
  return file;
}

/** Busy loops at nice 0, one per process. */
function startHogs(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }),
  );
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await gone;
  clearTimeout(timer);
}

async function main(): Promise<void> {
  build(VARIANTS.includes('before'));
  const scratch = mkdtempSync(join(tmpdir(), 'bench-worker-start-'));
  const storage = join(scratch, 'storage');
  const hook = baselineHook(scratch);
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    WORKER_INLINE: 'false',
    JOB_WAIT_MS: '0',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    STORAGE_DIR: storage,
    REDIS_PREFIX: `benchws${Date.now().toString(36)}`,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const jobs = app.get<Model<Job>>(getModelToken(Job.name));
  const user = await benchUser(app, base, 'benchws', 1000);
  const image = await sharp(readFileSync(join(ROOT, 'libs/inference/fixtures/ai-face.jpg')))
    .resize(256, 256)
    .png()
    .toBuffer();

  async function run(variant: Run['variant'], load: Run['load']): Promise<Run> {
    const jobId = await submitImageJob(base, '/api/generateNoise', user.cookie, image, { amount: '1' });
    const args = [...(variant === 'before' ? ['-r', hook] : []), join(WORKER_OUT, 'worker/src/main.js')];
    const t0 = performance.now();
    const [command, ...commandArgs] =
      variant === 'before'
        ? ['nice', '-n', WORKER_NICE, process.execPath, ...args]
        : [process.execPath, ...args];
    const worker = spawn(command, commandArgs, {
      cwd: ROOT,
      env: {
        ...process.env,
        // not 'test': a worker warms its engine pool up at boot as in production
        NODE_ENV: 'development',
        LOG_LEVEL: 'info',
        MONGODB_URI: config.MONGODB_URI,
        REDIS_URL: config.REDIS_URL,
        REDIS_PREFIX: config.REDIS_PREFIX,
        STORAGE_DIR: storage,
        SESSION_SECRET: config.SESSION_SECRET,
        WORKER_QUEUES: 'all',
        ENGINE_POOL_NICE: ENGINE_POOL_NICE,
        ...(variant === 'before' ? {} : { WORKER_NICE }),
        HEALTH_WORKER_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const marks: Run['marks'] = {};
    let output = '';
    const onLine = (line: string) => {
      output += line + '\n';
      for (const [mark, text] of Object.entries(MARKS) as [Mark, string][]) {
        if (marks[mark] === undefined && line.includes(text)) marks[mark] = performance.now() - t0;
      }
    };
    let rest = '';
    worker.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      lines.forEach(onLine);
    });
    worker.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    try {
      for (;;) {
        const job = await jobs.findById(jobId).lean();
        if (job?.state === 'succeeded') {
          return {
            variant,
            load,
            marks,
            succeeded: performance.now() - t0,
            jobMs: job.finishedAt!.getTime() - job.startedAt!.getTime(),
          };
        }
        if (job?.state === 'failed' || worker.exitCode !== null) {
          throw new Error(
            `worker-start run: job ${job?.state}, worker ${worker.exitCode}\n${output.slice(-3000)}`,
          );
        }
        if (performance.now() - t0 > DEADLINE_MS) {
          return { variant, load, marks, succeeded: Number.NaN, jobMs: Number.NaN };
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await stop(worker);
    }
  }

  const runs: Run[] = [];
  for (const load of LOADS) {
    const hogs = load === 'hogs' ? startHogs(HOGS) : [];
    try {
      for (let i = 0; i < RUNS; i++) {
        for (const variant of VARIANTS) {
          const result = await run(variant, load);
          runs.push(result);
          console.log(`  ${variant} ${load} run ${i + 1}: first clone ${s(result.succeeded)}`);
        }
      }
    } finally {
      await Promise.all(hogs.map(stop));
    }
  }

  console.log(
    `\n== worker start: process spawned (before: at nice ${WORKER_NICE}; after: WORKER_NICE ${WORKER_NICE} once booted; ENGINE_POOL_NICE ${ENGINE_POOL_NICE}) → first clone job succeeded (a 256 px clone queued before the start); before = libs/inference at ${BASELINE_REF}; ${HOGS} busy loops at nice 0 for "hogs"; runs not finished by ${s(DEADLINE_MS)} count as "> ${s(DEADLINE_MS)}" ==`,
  );
  const columns = [
    'Nest booted',
    'pool started',
    'classifier',
    'faces',
    'nice raised',
    'first clone',
    "job's run",
  ];
  console.log(`${'run'.padEnd(16)} ${columns.map((c) => c.padStart(13)).join(' ')}`);
  for (const r of runs) {
    const cells = [
      r.marks.booted,
      r.marks.pool,
      r.marks.classifier,
      r.marks.faces,
      r.marks.reniced,
      r.succeeded,
      r.jobMs,
    ];
    console.log(`${`${r.variant} ${r.load}`.padEnd(16)} ${cells.map((ms) => s(ms).padStart(13)).join(' ')}`);
  }
  for (const load of LOADS) {
    const median = (variant: Run['variant']) =>
      medianOf(runs.filter((r) => r.variant === variant && r.load === load).map((r) => r.succeeded));
    console.log(`${load}: first clone, median: before ${s(median('before'))}, after ${s(median('after'))}`);
  }
  await app.close();
  for (const dir of [scratch, WORKER_OUT, BASELINE_OUT]) rmSync(dir, { recursive: true, force: true });
}

/** Seconds with one decimal; '-' for a mark never seen, '> deadline' for a run that did not finish. */
function s(ms: number | undefined): string {
  if (ms === undefined) return '-';
  if (Number.isNaN(ms)) return `> ${(DEADLINE_MS / 1000).toFixed(0)} s`;
  return `${(ms / 1000).toFixed(1)} s`;
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => (Number.isNaN(a) ? 1 : Number.isNaN(b) ? -1 : a - b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
