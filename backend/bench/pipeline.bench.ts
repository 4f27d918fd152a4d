/**
 * Job pipeline benchmark.
 *  1. Throughput and latency of the whole pipeline (HTTP submit → reservation → record → Bull →
 *     runner → item stored → capture → job.completed on the socket) with a no-op engine, beside raw
 *     Bull add → process → completed on the same Redis.
 *  2. Clones per second of the local engine, beside raw sharp (decode, resize, encode only).
 *  3. Seconds per image of local face swap and super resolution.
 * Part 1 runs twice: on an empty database, then after seeding BENCH_SEED_LOG activity-log lines
 * (default 1,000,000) and BENCH_SEED_LEDGER ledger entries (default 200,000) of other users, so
 * the figures show whether anything on the job's path grows with the data (0 and 0 skip it).
 * BENCH_ENGINES=0 skips parts 2 and 3. BENCH_CONCURRENCY (default 8) is the clone queue's worker
 * concurrency: with the API and worker sharing one process and the database, a worker with fewer
 * slots than there are submitters falls behind them, and latency is then time spent in the queue.
 */
import 'reflect-metadata';
import type { Queue } from 'bull';
import Bull from 'bull';
import busboy from 'busboy';
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { io } from 'socket.io-client';
import mongoose, { Types } from 'mongoose';
import { JobSocketEvents, SocketEvents, type JobSocketPayloads } from '@studio/contracts';
import { LocalCpuEngine, type EncodedImage, type InferenceEngine } from '@studio/inference';
import { createApp } from '../api/src/create-app';
import { benchUser, submitImageJob } from './bench-client';
import { percentile, time } from './timing';
import { cpuMeter, cpuPerJob, type CpuSample } from './cpu';
import { loadConfig } from '../src/config/app-config';
import { EngineRegistry } from '../src/modules/engines';
import { authorKey } from '../src/modules/audit/audit.service';

const JOBS = Number(process.env.BENCH_JOBS ?? 200);
const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 10);
const FIXTURES = join(__dirname, '../../libs/inference/fixtures');
const SEED_LOG = Number(process.env.BENCH_SEED_LOG ?? 1_000_000);
const SEED_LEDGER = Number(process.env.BENCH_SEED_LEDGER ?? 200_000);
const ENGINES = process.env.BENCH_ENGINES !== '0';
/**
 * One Redis prefix for both pipeline runs: the run after seeding is the same install started
 * again, so the boot-time work an install does once (the log upgrade, the statistics recount) is
 * done, as on a studio that has grown while running. A fresh prefix made the seeded run's app walk
 * the 1M seeded lines at boot, and measured that walk instead of the pipeline.
 */
const REDIS_PREFIX = `bench${Date.now().toString(36)}`;

/** Database operations the app sends (all connections, through mongoose), by kind. */
const WRITES = /^(insert|update|delete|replace|findOneAnd|bulkWrite|findAndModify)/;
const ops = { writes: 0, reads: 0 };
/** Reads and writes by collection and method (BENCH_OPS_DETAIL=1 prints them). */
const detail = new Map<string, number>();
mongoose.set('debug', (collection: string, method: string) => {
  if (WRITES.test(method)) ops.writes += 1;
  else if (/^(find|count|aggregate|distinct|estimated)/.test(method)) ops.reads += 1;
  else return;
  detail.set(`${collection}.${method}`, (detail.get(`${collection}.${method}`) ?? 0) + 1);
});

const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

interface Rate {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU ms per job: this process (app and bench clients), the database, Redis. */
  cpu: CpuSample;
}

const readCpu = cpuMeter();

/** Jobs per second over a run of JOBS, its latency percentiles, and CPU per job since `cpuAtStart`. */
function rateOf(elapsedMs: number, latencies: number[], cpuAtStart: CpuSample): Rate {
  latencies.sort((a, b) => a - b);
  return {
    perSecond: (JOBS * 1000) / elapsedMs,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    cpu: cpuPerJob(cpuAtStart, readCpu(), JOBS),
  };
}

/** JOBS calls of `submit`, from SUBMITTERS loops at once, each waiting for its previous call. */
async function fromSubmitters(submit: (submitter: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: SUBMITTERS }, async (_, submitter) => {
      while (next < JOBS) {
        next += 1;
        await submit(submitter);
      }
    }),
  );
}

/** An engine that does nothing but hand back a 1x1 PNG: measures the pipeline, not the model. */
async function noopEngine(base: InferenceEngine): Promise<InferenceEngine> {
  const pixel = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#888' } })
    .png()
    .toBuffer();
  const image: EncodedImage = { data: pixel, format: 'png', width: 1, height: 1 };
  return Object.assign(Object.create(base) as InferenceEngine, { clone: async () => [image] });
}

/** The picture every submitter sends: a 64 px test face. */
const submittedImage = () =>
  sharp(readFileSync(join(FIXTURES, 'ai-face.jpg')))
    .resize(64, 64)
    .png()
    .toBuffer();

async function pipeline(): Promise<Rate & { perJob: { writes: number; reads: number } }> {
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_WAIT_MS: '0',
    JOB_CONCURRENCY_CLONE: process.env.BENCH_CONCURRENCY ?? '8',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_PREFIX,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const registry = app.get(EngineRegistry);
  registry.override('clone', await noopEngine(registry.engineFor('clone')!));

  // One user per submitter: a user may hold only a few uploads at once (UPLOAD_REQUEST_LIMITS),
  // so ten parallel submitters are ten people, as in a live studio.
  const submitters = await Promise.all(
    Array.from({ length: SUBMITTERS }, async (_, i) => {
      const { cookie } = await benchUser(app, base, `pipe${i}x`, JOBS * 2);
      const socket = io(base, { transports: ['websocket'], extraHeaders: { cookie } });
      await new Promise((resolve) => socket.once(SocketEvents.ready, resolve));
      return { cookie, socket };
    }),
  );

  const image = await submittedImage();
  const started = new Map<string, number>();
  const latencies: number[] = [];
  const allDone = new Promise<void>((resolve) => {
    for (const { socket } of submitters) {
      socket.on(JobSocketEvents.completed, ({ job }: JobSocketPayloads['job.completed']) => {
        const t0 = started.get(job._id);
        if (t0 === undefined) return;
        latencies.push(performance.now() - t0);
        if (latencies.length === JOBS) resolve();
      });
    }
  });

  const before = { ...ops };
  detail.clear();
  const cpuAtStart = readCpu();
  const t0 = performance.now();
  await fromSubmitters(async (submitter) => {
    const sentAt = performance.now();
    const jobId = await submitImageJob(base, '/api/generateNoise', submitters[submitter].cookie, image, {
      amount: '1',
    });
    started.set(jobId, sentAt);
  });
  await allDone;
  const elapsed = performance.now() - t0;
  const rate = rateOf(elapsed, latencies, cpuAtStart);
  const perJob = {
    writes: (ops.writes - before.writes) / JOBS,
    reads: (ops.reads - before.reads) / JOBS,
  };
  if (process.env.BENCH_OPS_DETAIL === '1') {
    for (const [what, n] of [...detail].sort((a, b) => b[1] - a[1]))
      console.log(`  ${what}: ${(n / JOBS).toFixed(2)} per job`);
  }
  for (const { socket } of submitters) socket.close();
  await app.close();
  return { ...rate, perJob };
}

async function rawBull(): Promise<Rate> {
  const queue: Queue = new Bull(`raw-${Date.now()}`, process.env.REDIS_URL!, { prefix: 'benchraw' });
  const latencies: number[] = [];
  const done = new Promise<void>((resolve) => {
    queue.on('completed', (job) => {
      latencies.push(performance.now() - (job.data as { at: number }).at);
      if (latencies.length === JOBS) resolve();
    });
  });
  void queue.process(8, async () => undefined);
  const cpuAtStart = readCpu();
  const t0 = performance.now();
  await fromSubmitters(() => queue.add({ at: performance.now() }, { removeOnComplete: true }));
  await done;
  const elapsed = performance.now() - t0;
  const rate = rateOf(elapsed, latencies, cpuAtStart);
  await queue.obliterate({ force: true }).catch(() => undefined);
  await queue.close();
  return rate;
}

/**
 * The ceiling of any design that takes its jobs as HTTP uploads on this machine: a bare Node
 * server that streams each multipart upload to a file with busboy (as the app does) and answers,
 * with nothing else — no session, database, queue or socket — fed by the same client and
 * submitters as the pipeline.
 */
async function rawUpload(image: Buffer): Promise<Rate> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-upload-'));
  let count = 0;
  const server = createServer((req, res) => {
    const id = (count += 1);
    const form = busboy({ headers: req.headers });
    form.on('file', (_field, file) => file.pipe(createWriteStream(join(dir, `upload-${id}`))));
    form.on('close', () => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ content: { job: { _id: String(id) } } }));
    });
    req.pipe(form);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const latencies: number[] = [];
  const cpuAtStart = readCpu();
  const t0 = performance.now();
  await fromSubmitters(async () => {
    const sentAt = performance.now();
    await submitImageJob(base, '/upload', 'session=none', image, { amount: '1' });
    latencies.push(performance.now() - sentAt);
  });
  const elapsed = performance.now() - t0;
  const rate = rateOf(elapsed, latencies, cpuAtStart);
  server.close();
  rmSync(dir, { recursive: true, force: true });
  return rate;
}

/** Median ms of `runs` calls. */
const timeEach = async (runs: number, op: () => Promise<unknown>) => (await time(runs, op)).p50;

async function engines(): Promise<void> {
  const engine = new LocalCpuEngine();
  const wide = readFileSync(join(FIXTURES, 'cgi-model-1.jpg')); // 1280x720 → 1024x576
  const amount = 10;
  const cloneMs = await timeEach(3, () => engine.clone({ image: wide, amount }));
  const sharpMs = await timeEach(3, async () => {
    for (let i = 0; i < amount; i++) await sharp(wide).resize(1024, 1024, { fit: 'inside' }).png().toBuffer();
  });
  console.log(
    `clones per second (1024x576): engine ${((amount * 1000) / cloneMs).toFixed(1)} | raw sharp resize+encode ${((amount * 1000) / sharpMs).toFixed(1)} | ratio ${(sharpMs / cloneMs).toFixed(2)}`,
  );

  const face = readFileSync(join(FIXTURES, 'ai-face.jpg'));
  const target = readFileSync(join(FIXTURES, 'cgi-model-3.jpg'));
  await engine.faceSwap({ face, target }); // loads the models
  const swapMs = await timeEach(3, () => engine.faceSwap({ face, target }));
  console.log(`face swap per image (face 256 px onto 751x1024): ${(swapMs / 1000).toFixed(2)} s`);

  for (const side of [256, 512]) {
    const input = await sharp(target).resize(side, side, { fit: 'cover' }).png().toBuffer();
    await engine.superResolve({ image: input, scale: 2 });
    const srMs = await timeEach(2, () => engine.superResolve({ image: input, scale: 2 }));
    const lanczosMs = await timeEach(2, () =>
      sharp(input)
        .resize(side * 2, side * 2, { kernel: 'lanczos3' })
        .png()
        .toBuffer(),
    );
    console.log(
      `super resolution ${side}→${side * 2} px: ESRGAN ${(srMs / 1000).toFixed(2)} s | Lanczos ${fmt(lanczosMs)} | ratio ${(srMs / lanczosMs).toFixed(0)}x`,
    );
  }
  // Magic Brush: a 1024 px image with a round mask of 130 px radius.
  const big = await sharp(target).resize(1024, 1024, { fit: 'cover' }).png().toBuffer();
  const circle = Buffer.from(
    '<svg width="1024" height="1024"><circle cx="512" cy="400" r="130" fill="white"/></svg>',
  );
  const mask = await sharp(circle).png().toBuffer();
  await engine.inpaint({ image: big, mask, prompt: '' });
  const inpaintMs = await timeEach(3, () => engine.inpaint({ image: big, mask, prompt: '' }));
  console.log(`inpaint per 1024 px image (Telea, r=130 px mask): ${(inpaintMs / 1000).toFixed(2)} s`);

  // Video face swap: a 3 s, 10 fps, 384 px clip made from a test face.
  const dir = mkdtempSync(join(tmpdir(), 'bench-video-'));
  try {
    const clip = join(dir, 'clip.mp4');
    execFileSync('ffmpeg', [
      ...['-y', '-loglevel', 'error', '-loop', '1', '-i', join(FIXTURES, 'cgi-model-22.jpg')],
      ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=3', '-t', '3'],
      ...['-vf', "scale=384:-2,zoompan=z='1+0.002*on':d=1:s=384x384:fps=10"],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', clip],
    ]);
    const t0 = performance.now();
    await engine.faceSwapVideo({ videoPath: clip, face, outputPath: join(dir, 'out.mp4') });
    const seconds = (performance.now() - t0) / 1000;
    console.log(`video face swap (384 px, 10 fps): ${(seconds / 3).toFixed(2)} s per video second`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await engine.close?.();
}

/**
 * Other users' history, written straight into the collections (in batches): activity-log lines
 * and applied ledger entries (grants, reservations and captures of 2,000 users).
 */
async function seed(): Promise<void> {
  const conn = await mongoose.createConnection(process.env.MONGODB_URI!).asPromise();
  const started = performance.now();
  const batch = 2000;
  const users = Array.from({ length: 2000 }, () => new Types.ObjectId());
  const day = 86_400_000;
  try {
    const log = conn.collection('audit_log');
    for (let from = 0; from < SEED_LOG; from += batch) {
      // As AuditService.append writes a line: _id from its second, author key filled in.
      const docs = Array.from({ length: Math.min(batch, SEED_LOG - from) }, (_, k) => {
        const i = from + k;
        const user = users[i % users.length];
        const username = `seed${i % users.length}`;
        const createdOn = new Date(Date.now() - 90 * day + (i / SEED_LOG) * 90 * day);
        return {
          _id: new Types.ObjectId(Math.floor(createdOn.getTime() / 1000)),
          category: ['credits', 'jobs', 'auth', 'content'][i % 4],
          author: { userId: String(user), username },
          authorKey: authorKey(username),
          createdOn,
          message: `seeded line ${i}`,
          eventId: `seed-log-${i}`,
        };
      });
      await log.insertMany(docs, { ordered: false });
    }
    const ledger = conn.collection('ledger');
    const kinds = ['grant', 'reservation', 'capture'] as const;
    for (let from = 0; from < SEED_LEDGER; from += batch) {
      const docs = Array.from({ length: Math.min(batch, SEED_LEDGER - from) }, (_, k) => {
        const i = from + k;
        const kind = kinds[i % 3];
        const user = users[i % users.length];
        return {
          _id: `seed-ledger-${i}` as never,
          userId: user,
          username: `seed${i % users.length}`,
          kind,
          amount: kind === 'grant' ? 10 : kind === 'reservation' ? -1 : 0,
          state: 'applied',
          reason: 'seeded',
          tool: 'clone',
          jobId: String(new Types.ObjectId()),
          ...(kind === 'reservation' ? { settlement: 'captured' } : {}),
          createdAt: new Date(Date.now() - 90 * day + (i / SEED_LEDGER) * 90 * day),
          appliedAt: new Date(),
        };
      });
      await ledger.insertMany(docs, { ordered: false });
    }
  } finally {
    await conn.close();
  }
  console.log(
    `seeded ${SEED_LOG} log lines and ${SEED_LEDGER} ledger entries in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
}

async function main(): Promise<void> {
  console.log(`\n== job pipeline: ${JOBS} jobs, ${SUBMITTERS} submitters, no-op engine ==`);
  const raw = await rawBull();
  const upload = await rawUpload(await submittedImage());
  const empty = await pipeline();
  const line = (name: string, r: Rate) =>
    console.log(
      `${name.padEnd(44)} ${r.perSecond.toFixed(1).padStart(8)} jobs/s  p50 ${fmt(r.p50).padStart(10)}  p99 ${fmt(r.p99).padStart(10)}  vs raw ${(r.perSecond / raw.perSecond).toFixed(3)}x  CPU/job: node ${r.cpu.node.toFixed(2)} ms, db ${r.cpu.database.toFixed(2)} ms, redis ${r.cpu.redis.toFixed(2)} ms`,
    );
  // What the CPU each job costs allows on this machine, all processes together.
  const cpuBound = (r: Rate) => (availableParallelism() * 1000) / (r.cpu.node + r.cpu.database + r.cpu.redis);
  line('raw Bull add→process→completed', raw);
  line('raw HTTP upload to disk (no app, ceiling)', upload);
  line('pipeline HTTP submit→job.completed (empty db)', empty);
  console.log(
    `pipeline / raw HTTP upload: ${(empty.perSecond / upload.perSecond).toFixed(3)}x (the share of the ceiling the app reaches)`,
  );
  console.log(
    `database operations per job (submit to job.completed, event consumers included): ${empty.perJob.writes.toFixed(1)} writes, ${empty.perJob.reads.toFixed(1)} reads`,
  );
  console.log(
    `CPU bound on ${availableParallelism()} cores (cores / CPU per job, all processes): raw Bull ${cpuBound(raw).toFixed(0)}, raw upload ${cpuBound(upload).toFixed(0)}, pipeline ${cpuBound(empty).toFixed(0)} jobs/s`,
  );
  if (SEED_LOG + SEED_LEDGER > 0) {
    await seed();
    const rawAgain = await rawBull();
    const seeded = await pipeline();
    line('raw Bull, again after seeding', rawAgain);
    line(`pipeline after seeding (${SEED_LOG} log, ${SEED_LEDGER} ledger)`, seeded);
    console.log(
      `seeded / empty: throughput ${(seeded.perSecond / empty.perSecond).toFixed(2)}x, p50 ${(seeded.p50 / empty.p50).toFixed(2)}x, p99 ${(seeded.p99 / empty.p99).toFixed(2)}x`,
    );
  }
  if (!ENGINES) return;
  console.log('\n== local CPU engine ==');
  await engines();
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
