/**
 * Fair share benchmark (issue 24): user A queues a backlog of BENCH_FAIR_BACKLOG (6) jobs of one
 * tool, then user B submits one job of the same tool. B's job must finish within (one running job +
 * its own duration) x 1.2, shown beside B's time on an idle queue in the same run.
 * The tool is clones made by the local engine with sharp (BENCH_FAIR_SIDE px image, BENCH_FAIR_COPIES
 * copies per job): real work of a stable duration that needs no model, run one job at a time.
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { io, type Socket } from 'socket.io-client';
import { JobSocketEvents, SocketEvents, type JobSocketPayloads } from '@studio/contracts';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { Job } from '../src/modules/generation/job.schema';
import { benchUser, submitImageJob } from './bench-client';

const BACKLOG = Number(process.env.BENCH_FAIR_BACKLOG ?? 6);
const SIDE = Number(process.env.BENCH_FAIR_SIDE ?? 1024);
const COPIES = Number(process.env.BENCH_FAIR_COPIES ?? 6);
const IDLE_RUNS = 3;
const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
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

async function main(): Promise<void> {
  const storage = mkdtempSync(join(tmpdir(), 'fairness-bench-'));
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_WAIT_MS: '0',
    JOB_CONCURRENCY_CLONE: '1',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_PREFIX: `fair${Date.now().toString(36)}`,
    STORAGE_DIR: storage,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const jobs = app.get<Model<Job>>(getModelToken(Job.name));
  const credits = (BACKLOG + IDLE_RUNS + 4) * COPIES;
  const [a, b] = await Promise.all([
    benchUser(app, base, 'fairA', credits),
    benchUser(app, base, 'fairB', credits),
  ]);
  const sockets = await Promise.all(
    [a, b].map(async ({ cookie }) => {
      const socket = io(base, { transports: ['websocket'], extraHeaders: { cookie } });
      await new Promise((resolve) => socket.once(SocketEvents.ready, resolve));
      return socket;
    }),
  );
  const done = completions(sockets);
  const image = await sharp(readFileSync(join(FIXTURES, 'ai-face.jpg')))
    .resize(SIDE, SIDE)
    .png()
    .toBuffer();
  const submit = (cookie: string) =>
    submitImageJob(base, '/api/generateNoise', cookie, image, { amount: String(COPIES) });
  const runTime = async (jobId: string) => {
    const job = (await jobs.findById(jobId).lean())!;
    return job.finishedAt!.getTime() - job.startedAt!.getTime();
  };

  console.log(
    `\n== fairness: clones of a ${SIDE}x${SIDE} image, ${COPIES} copies per job, one job at a time; A queues ${BACKLOG}, then B one ==`,
  );
  // Warm-up (first sharp calls, first records), not counted.
  await done(await submit(a.cookie));

  // B alone on an idle queue: submit -> job.completed heard on B's socket.
  const idle: number[] = [];
  for (let i = 0; i < IDLE_RUNS; i++) {
    const t0 = performance.now();
    const jobId = await submit(b.cookie);
    idle.push((await done(jobId)) - t0);
  }

  // A's backlog; B submits once A's first job is running.
  const backlog: string[] = [];
  for (let i = 0; i < BACKLOG; i++) backlog.push(await submit(a.cookie));
  for (;;) {
    const first = await jobs.findById(backlog[0]).lean();
    if (first?.state !== 'queued') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const queued = new Promise<JobSocketPayloads['job.queued']>((resolve) =>
    sockets[1].once(JobSocketEvents.queued, resolve),
  );
  const t0 = performance.now();
  const bJob = await submit(b.cookie);
  const behind = (await done(bJob)) - t0;
  const told = await queued;
  await Promise.all(backlog.map((jobId) => done(jobId)));

  const runs = await Promise.all(backlog.map(runTime));
  const oneJob = median(runs);
  const own = median(idle);
  const bound = (oneJob + own) * 1.2;
  const order = (await jobs.find({ _id: { $in: [...backlog, bJob] } }).lean())
    .sort((x, y) => x.startedAt!.getTime() - y.startedAt!.getTime())
    .map((job) => (String(job._id) === bJob ? 'B' : `A${backlog.indexOf(String(job._id)) + 1}`));

  console.log(
    `one job's run time (A's ${BACKLOG}, median): ${s(oneJob)} (${s(Math.min(...runs))} .. ${s(Math.max(...runs))})`,
  );
  console.log(
    `B alone on an idle queue (submit -> job.completed, median of ${IDLE_RUNS}): ${s(own)} [${idle.map(s).join(', ')}]`,
  );
  console.log(
    `B behind A's backlog of ${BACKLOG}: ${s(behind)}; bound (one running job + its own) x 1.2 = ${s(bound)}: ${behind <= bound ? 'PASS' : 'FAIL'} (${(behind / own).toFixed(2)}x its idle time)`,
  );
  console.log(
    `served in order: ${order.join(' ')} (first come first served would have run B after A${BACKLOG}: about ${s(BACKLOG * oneJob + own)})`,
  );
  console.log(
    `B was told at queue time: place ${told.position}, ETA ${told.job.etaSeconds ?? '-'} s (took ${s(behind)})`,
  );

  for (const socket of sockets) socket.close();
  await app.close();
  rmSync(storage, { recursive: true, force: true });
  if (behind > bound) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
