/**
 * Scale-out benchmark: pipeline throughput with one worker process versus two, on one Redis and
 * one database. The engine is a remote one (the fake A1111 server in this process) so that the
 * workers are real worker processes: with BENCH_ENGINE_MS=0 (default) it answers at once (a no-op
 * engine, measuring the pipeline), with e.g. 200 it stands for a GPU that takes that long per image.
 * BENCH_WORKER_JOBS jobs (default 150) are queued first; throughput is counted from the first job
 * started to the last one finished, so worker boot time is not in it.
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import { startFakeA1111 } from '@studio/inference';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { Job } from '../src/modules/generation/job.schema';
import { exited, startWorker } from '../test/processes';
import { benchUser, submitImageJob } from './bench-client';

const JOBS = Number(process.env.BENCH_WORKER_JOBS ?? 150);
const ENGINE_MS = Number(process.env.BENCH_ENGINE_MS ?? 0);
const CONCURRENCY = process.env.BENCH_WORKER_CONCURRENCY ?? '4';

async function main(): Promise<void> {
  const gpu = await startFakeA1111();
  gpu.delayMs = ENGINE_MS;
  const storage = mkdtempSync(join(tmpdir(), 'bench-workers-'));
  const engine = { ENGINE_SUPER_RESOLUTION: 'a1111', A1111_URL: gpu.url };
  const config = loadConfig({
    ...process.env,
    ...engine,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    WORKER_INLINE: 'false',
    JOB_WAIT_MS: '0',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    STORAGE_DIR: storage,
    REDIS_PREFIX: `benchw${Date.now().toString(36)}`,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const jobs = app.get<Model<Job>>(getModelToken(Job.name));
  const image = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#468' } })
    .png()
    .toBuffer();

  // Ten people submit side by side: one user may hold only a few uploads at once.
  const users = await Promise.all(
    Array.from({ length: 10 }, (_, i) => benchUser(app, base, `benchw${i}x`, JOBS * 2 * 2)),
  );

  async function submit(): Promise<string[]> {
    const ids: string[] = [];
    for (let from = 0; from < JOBS; from += 10) {
      const batch = users
        .slice(0, Math.min(10, JOBS - from))
        .map(({ username, cookie }) =>
          submitImageJob(base, '/api/superResolution', cookie, image, { author: username }),
        );
      ids.push(...(await Promise.all(batch)));
    }
    return ids;
  }

  async function run(workerCount: number) {
    const ids = await submit();
    const workers: ChildProcess[] = [];
    for (let i = 0; i < workerCount; i += 1) {
      workers.push(
        startWorker(
          { config },
          {
            ...engine,
            WORKER_QUEUES: 'superResolution',
            JOB_CONCURRENCY_SUPER_RESOLUTION: CONCURRENCY,
          },
        ),
      );
    }
    const deadline = Date.now() + 30 * 60_000;
    for (;;) {
      const done = await jobs.countDocuments({ _id: { $in: ids }, state: 'succeeded', settled: true });
      if (done === ids.length) break;
      if (Date.now() > deadline) throw new Error(`only ${done} of ${ids.length} jobs done in 30 min`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const records = await jobs.find({ _id: { $in: ids } }).lean();
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map(exited));
    const first = Math.min(...records.map((r) => new Date(r.startedAt!).getTime()));
    const last = Math.max(...records.map((r) => new Date(r.finishedAt!).getTime()));
    const perWorker = [...new Set(records.map((r) => r.worker))].map(
      (w) => records.filter((r) => r.worker === w).length,
    );
    const twice = records.filter((r) => r.attempts !== 1).length;
    return {
      perSecond: (ids.length / (last - first)) * 1000,
      seconds: (last - first) / 1000,
      perWorker,
      twice,
    };
  }

  const one = await run(1);
  const two = await run(2);
  console.log(
    `\nscale-out benchmark: ${JOBS} super-resolution jobs per run through the remote engine (fake A1111, ${ENGINE_MS} ms per image), concurrency ${CONCURRENCY} per worker, database ${config.MONGODB_URI}`,
  );
  console.log(
    `${'workers'.padEnd(10)} ${'jobs/s'.padStart(8)} ${'seconds'.padStart(8)} ${'per worker'.padStart(14)} ${'reruns'.padStart(7)} ${'vs 1'.padStart(7)}`,
  );
  for (const [name, r] of [
    ['1', one],
    ['2', two],
  ] as const) {
    console.log(
      `${name.padEnd(10)} ${r.perSecond.toFixed(1).padStart(8)} ${r.seconds.toFixed(1).padStart(8)} ${r.perWorker.join(' + ').padStart(14)} ${String(r.twice).padStart(7)} ${(r.perSecond / one.perSecond).toFixed(2).padStart(6)}x`,
    );
  }
  await app.close();
  await gpu.close();
  rmSync(storage, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
