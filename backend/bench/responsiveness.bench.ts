/**
 * Responsiveness benchmark (issue 24): does the studio stay live while its engines compute?
 *
 * The app is booted in this process as `npm start` runs it (WORKER_INLINE: the job processors and
 * the engine pool live in the API's process). Three users keep the pool saturated with the heaviest
 * local mix (4x super resolution of a 1024 px image, face swaps of the fixture faces, Magic Brush on
 * a 1024 px image with a 130 px round mask), each keeping JOBS_OPEN jobs open. Meanwhile:
 *  - a sampler calls GET /api/health and GET /api/jobs (the job tray's page data, as one of the
 *    busy users) every SAMPLE_MS; its numbers are printed beside the same sampler on the idle app.
 *    The sampler runs on a thread of its own, so a stalled event loop cannot delay its sending
 *    (no coordinated omission): a stall shows as the latency of the calls sent into it;
 *  - socket clients on that thread time each job.progress push: the app's emit time is taken
 *    where the job runner hands the push to the gateway (JobLifecycle.pushProgress, wrapped here),
 *    the receipt where the client's handler runs; both are wall-clock times of this one process
 *    (performance.timeOrigin + performance.now()), so no clocks are compared across machines;
 *  - Bull's 'stalled' and 'global:stalled' events of every tool queue are counted;
 *  - the raw baseline, sampled with the same calls: a bare node:http server on the app's own event
 *    loop that answers at once (the ceiling of this loop and machine), and one that makes the job
 *    tray's database and Redis reads directly with the drivers (the account by id, the user's 20
 *    newest jobs, one tool line from Redis), without Nest, guards or views. The gap between the
 *    raw rows and the app's is the app's own cost; what the raw rows lose under load, the machine.
 * BENCH_SECONDS (default 120) is the loaded stretch; BENCH_IDLE_SAMPLES (default 150) the idle one.
 */
import 'reflect-metadata';
import { getQueueToken } from '@nestjs/bull';
import type { Queue } from 'bull';
import type { INestApplication } from '@nestjs/common';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, constants, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { createServer, type Server } from 'node:http';
import Redis from 'ioredis';
import { MongoClient, ObjectId } from 'mongodb';
import sharp from 'sharp';
import { io, type Socket } from 'socket.io-client';
import { JobSocketEvents, JobTools, SocketEvents } from '@studio/contracts';
import { PooledCpuEngine } from '@studio/inference';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { EngineRegistry, toolQueueName } from '../src/modules/engines';
import { JobLifecycle } from '../src/modules/generation/job-lifecycle.service';
import { benchUser } from './bench-client';
import { percentile } from './timing';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 120);
const IDLE_SAMPLES = Number(process.env.BENCH_IDLE_SAMPLES ?? 150);
const SAMPLE_MS = Number(process.env.BENCH_SAMPLE_MS ?? 150);
const USERS = 3;
const JOBS_OPEN = 2;
const FIXTURES = join(__dirname, '../../libs/inference/fixtures');
const GOALS = { p99: 50, max: 200, socket: 100 };

const wallNow = () => performance.timeOrigin + performance.now();
/** BENCH_SPLIT=false runs the processors inside the API process (WORKER_INLINE=true), as before. */
const SPLIT = process.env.BENCH_SPLIT !== 'false';
const WORKER_NICE = Number(process.env.WORKER_NICE ?? 5); // npm start's

/** What the bench sees of the engines, wherever they run. */
interface Engines {
  pool: { size: number; threads: number; memoryMb: number };
  /** emit time (wall clock) of each progress push, by `jobId:progress` */
  emitted: Map<string, number>;
  timing(on: boolean): void;
  saturated(): Promise<boolean>;
  stop(): Promise<void>;
}

/** The pool and the job runner inside this process (WORKER_INLINE=true). */
async function inlineEngines(app: INestApplication): Promise<Engines> {
  const pool = app.get(EngineRegistry).engineFor('superResolution');
  if (!(pool instanceof PooledCpuEngine)) throw new Error('super resolution is not on the local engine pool');
  await pool.warmup();
  const emitted = new Map<string, number>();
  const lifecycle = app.get(JobLifecycle);
  const push = lifecycle.pushProgress.bind(lifecycle);
  let timing = false;
  lifecycle.pushProgress = (job, progress) => {
    if (timing) emitted.set(`${String(job._id)}:${progress}`, wallNow());
    push(job, progress);
  };
  return {
    pool,
    emitted,
    timing: (on) => (timing = on),
    saturated: async () => pool.stats().tasks >= pool.size,
    stop: async () => undefined,
  };
}

/** The worker as a process of its own at WORKER_NICE, as `npm start` runs it (responsiveness-worker.ts). */
async function startWorkerProcess(env: NodeJS.ProcessEnv): Promise<Engines> {
  const child = spawn(
    'nice',
    [
      '-n',
      String(WORKER_NICE),
      process.execPath,
      '-r',
      'ts-node/register',
      join(__dirname, 'responsiveness-worker.ts'),
    ],
    { env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const emitted = new Map<string, number>();
  const asked: ((saturated: boolean) => void)[] = [];
  type Message = { ready?: true; size: number; threads: number; memoryMb: number } & {
    emitted?: string;
    at: number;
    saturated?: boolean;
  };
  const ready = new Promise<Engines['pool']>((resolve, reject) => {
    child.on('message', (m: Message) => {
      if (m.ready) resolve(m);
      else if (m.emitted) emitted.set(m.emitted, m.at);
      else if (m.saturated !== undefined) asked.shift()?.(m.saturated);
    });
    child.once('exit', (code) => reject(new Error(`worker process exited (${code})`)));
  });
  const pool = await ready;
  return {
    pool,
    emitted,
    timing: (on) => child.send(on ? 'timing-on' : 'timing-off'),
    saturated: () => new Promise((resolve) => (asked.push(resolve), child.send('saturation'))),
    stop: () => new Promise((resolve) => (child.once('exit', () => resolve()), child.send('stop'))),
  };
}

interface Inputs {
  portrait1024: Buffer;
  face: Buffer;
  target: Buffer;
  mask: Buffer;
}

async function inputs(): Promise<Inputs> {
  const target = readFileSync(join(FIXTURES, 'cgi-model-3.jpg'));
  const portrait1024 = await sharp(target).resize(1024, 1024, { fit: 'cover' }).png().toBuffer();
  const circle = Buffer.from(
    '<svg width="1024" height="1024"><circle cx="512" cy="400" r="130" fill="white"/></svg>',
  );
  return {
    portrait1024,
    face: readFileSync(join(FIXTURES, 'ai-face.jpg')),
    target,
    mask: await sharp(circle).png().toBuffer(),
  };
}

/** One multipart tool request; the job id. */
async function submit(
  base: string,
  cookie: string,
  path: string,
  files: Record<string, Buffer>,
  fields: Record<string, string>,
): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  for (const [name, data] of Object.entries(files)) {
    form.append(name, new Blob([data], { type: 'application/octet-stream' }), `${name}.bin`);
  }
  const res = await fetch(`${base}${path}`, { method: 'POST', body: form, headers: { cookie } });
  const body = (await res.json()) as { content: { job: { _id: string } } };
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.content.job._id;
}

/**
 * The sampler and the socket timers, on their own thread (plain JS: this thread's require and
 * fetch). It reports when asked to stop.
 */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { performance } = require('node:perf_hooks');
const { io } = require('socket.io-client');
const { base, raw, cookie, sampleMs, samples, sockets } = workerData;
const wall = () => performance.timeOrigin + performance.now();
const latencies = { health: [], jobs: [], bare: [], reads: [] };
const received = [];
const clients = sockets.map((c) => {
  const s = io(base, { transports: ['websocket'], extraHeaders: { cookie: c } });
  s.on('job.progress', (p) => received.push({ key: p.jobId + ':' + p.progress, at: wall() }));
  return s;
});
let stop = false;
let failures = 0;
parentPort.on('message', (m) => { if (m === 'stop') stop = true; });
async function call(kind, url, headers) {
  const t0 = performance.now();
  try {
    const res = await fetch(url, { headers });
    await res.arrayBuffer();
    if (res.status !== 200) failures++;
  } catch { failures++; }
  latencies[kind].push(performance.now() - t0);
}
(async () => {
  await Promise.all(clients.map((s) => new Promise((r) => s.once('session.ready', r))));
  parentPort.postMessage({ ready: true });
  const pending = [];
  let next = performance.now();
  for (let i = 0; (samples === 0 || i < samples) && !stop; i++) {
    // on schedule whatever the answers do: calls are not held back by slow ones
    pending.push(
      call('health', base + '/api/health', {}),
      call('jobs', base + '/api/jobs', { cookie }),
      call('bare', raw + '/bare', {}),
      call('reads', raw + '/reads', {}),
    );
    next += sampleMs;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(pending);
  for (const s of clients) s.close();
  parentPort.postMessage({ latencies, received, failures });
})();
`;

interface SamplerReport {
  latencies: { health: number[]; jobs: number[]; bare: number[]; reads: number[] };
  received: { key: string; at: number }[];
  failures: number;
}

function startSampler(base: string, raw: string, cookie: string, samples: number, sockets: string[]) {
  const worker = new Worker(SAMPLER, {
    eval: true,
    workerData: { base, raw, cookie, sampleMs: SAMPLE_MS, samples, sockets },
  });
  let ready!: () => void;
  const isReady = new Promise<void>((r) => (ready = r));
  const report = new Promise<SamplerReport>((resolve, reject) => {
    worker.on('message', (m: { ready?: boolean } & SamplerReport) => (m.ready ? ready() : resolve(m)));
    worker.on('error', reject);
  });
  return {
    ready: isReady,
    stop: () => worker.postMessage('stop'),
    report: report.finally(() => worker.terminate()),
  };
}

/**
 * The raw baseline's server, on this process's event loop (the app's): /bare answers at once;
 * /reads makes the job tray's reads with the drivers alone.
 */
async function rawBaseline(mongoUri: string, redisUrl: string, userId: string) {
  const mongo = await MongoClient.connect(mongoUri, { maxPoolSize: 4 });
  const db = mongo.db();
  const redis = new Redis(redisUrl);
  const owner = new ObjectId(userId);
  const line = `raw-baseline:${Date.now()}`;
  let steps = { account: [] as number[], jobs: [] as number[], redis: [] as number[] };
  const server: Server = createServer((req, res) => {
    if (req.url === '/bare') {
      res.end('{"ok":true}');
      return;
    }
    void (async () => {
      let t = performance.now();
      const lap = (step: keyof typeof steps) => {
        steps[step].push(performance.now() - t);
        t = performance.now();
      };
      await db.collection('accounts').findOne({ _id: owner });
      lap('account');
      const jobs = await db.collection('jobs').find({ owner }).sort({ createdAt: -1 }).limit(20).toArray();
      lap('jobs');
      await redis.multi().lrange(line, -50, -1).llen(line).exec();
      lap('redis');
      res.end(JSON.stringify({ n: jobs.length }));
    })().catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** the time of each read since the last call, as its caller saw it (event loop included) */
    takeSteps: () => {
      const taken = steps;
      steps = { account: [], jobs: [], redis: [] };
      return taken;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await mongo.close();
      redis.disconnect();
    },
  };
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5) ?? NaN,
    p99: percentile(sorted, 0.99) ?? NaN,
    max: sorted.at(-1) ?? NaN,
  };
};
const ms = (v: number) => `${v.toFixed(1)} ms`.padStart(10);

async function main(): Promise<void> {
  const env = {
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_WAIT_MS: '0',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_PREFIX: `resp${Date.now().toString(36)}`,
    // as `npm start` runs it: the API alone here, the processors and the pool in a worker process
    WORKER_INLINE: SPLIT ? 'false' : 'true',
    METRICS_WORKER_PORT: '0',
  };
  const config = loadConfig(env);
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  const warm = performance.now();
  const engines = SPLIT ? await startWorkerProcess(env) : await inlineEngines(app);
  console.log(
    `cores ${availableParallelism()} | ${SPLIT ? `API and worker in two processes (worker at nice +${WORKER_NICE})` : 'worker inside the API process'} | engine pool: ${engines.pool.size} thread(s) x ${engines.pool.threads} model thread(s), heap ceiling ${engines.pool.memoryMb} MB, nice +${config.ENGINE_POOL_NICE}`,
  );
  console.log(`worker ready, pool threads warmed up in ${((performance.now() - warm) / 1000).toFixed(1)} s`);
  const emitted = engines.emitted;

  // Stalled jobs, as Bull reports them on every tool queue (this process's and any other's).
  let stalled = 0;
  for (const tool of JobTools) {
    const queue = app.get<Queue>(getQueueToken(toolQueueName(tool)), { strict: false });
    queue.on('stalled', () => stalled++);
    queue.on('global:stalled', () => stalled++);
  }

  const users = await Promise.all(
    Array.from({ length: USERS }, (_, i) =>
      benchUser(app, base, `resp${i}x`, 1_000_000, { ageAssured: true }),
    ),
  );
  const folders = await Promise.all(
    users.map(async ({ username, cookie }) => {
      const res = await fetch(`${base}/api/makeFolder`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/json' },
        body: JSON.stringify({ author: username, title: 'bench' }),
      });
      return ((await res.json()) as { content: { _id: string } }).content._id;
    }),
  );
  const files = await inputs();
  const mix = [
    (u: number) =>
      submit(
        base,
        users[u].cookie,
        '/api/superResolution',
        { original: files.portrait1024 },
        {
          author: users[u].username,
          scale: '4',
        },
      ),
    (u: number) =>
      submit(
        base,
        users[u].cookie,
        '/api/faceSwap',
        { Swap0: files.face, Swap1: files.target },
        {
          author: users[u].username,
          folder: folders[u],
          consent: 'true',
        },
      ),
    (u: number) =>
      submit(
        base,
        users[u].cookie,
        '/api/inpaintImage',
        { original: files.portrait1024, mask: files.mask },
        {
          author: users[u].username,
          prompt: 'skin',
        },
      ),
  ];

  const rawUser = (await app.get(AccountsRepository).findByUsername(users[0].username))!;
  const raw = await rawBaseline(config.MONGODB_URI, config.REDIS_URL, rawUser.id);
  const rawBase = raw.base;

  // Idle: the same sampler against the same app, no job anywhere.
  const idleSampler = startSampler(base, rawBase, users[0].cookie, IDLE_SAMPLES, []);
  const idle = await idleSampler.report;
  const idleSteps = raw.takeSteps();

  // Loaded: every user keeps JOBS_OPEN jobs open, cycling through the mix.
  const loop = monitorEventLoopDelay({ resolution: 10 });
  const done = { succeeded: 0, failed: 0, byTool: new Map<string, number>() };
  let loading = true;
  const waiters = new Map<string, () => void>();
  const ended = new Set<string>();
  const userSockets: Socket[] = [];
  for (const { cookie } of users) {
    const socket = io(base, { transports: ['websocket'], extraHeaders: { cookie } });
    await new Promise((resolve) => socket.once(SocketEvents.ready, resolve));
    const end = (ok: boolean) => (p: { job: { _id: string; tool: string } }) => {
      if (ok) done.succeeded++;
      else done.failed++;
      done.byTool.set(p.job.tool, (done.byTool.get(p.job.tool) ?? 0) + 1);
      ended.add(p.job._id);
      waiters.get(p.job._id)?.();
    };
    socket.on(JobSocketEvents.completed, end(true));
    socket.on(JobSocketEvents.failed, end(false));
    userSockets.push(socket);
  }
  const sampler = startSampler(
    base,
    rawBase,
    users[0].cookie,
    0,
    users.map((u) => u.cookie),
  );
  await sampler.ready;
  const runUser = async (u: number, lane: number) => {
    for (let k = u + lane; loading; k++) {
      const jobId = await mix[k % mix.length](u);
      // (a job may end before its submit's answer is read)
      if (!ended.has(jobId)) await new Promise<void>((resolve) => waiters.set(jobId, resolve));
    }
  };
  const lanes = users.flatMap((_, u) => Array.from({ length: JOBS_OPEN }, (_, lane) => runUser(u, lane)));
  const gc = { count: 0, total: 0, max: 0, major: 0 };
  const gcObserver = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.count++;
      gc.total += entry.duration;
      gc.max = Math.max(gc.max, entry.duration);
      const { detail } = entry as { detail?: { kind?: number } };
      if (detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) gc.major++;
    }
  });
  gcObserver.observe({ entryTypes: ['gc'] });
  const loadAverage = loadavg()[0];
  loop.enable();
  engines.timing(true);
  const t0 = performance.now();
  const saturation: number[] = [];
  while (performance.now() - t0 < SECONDS * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    saturation.push((await engines.saturated()) ? 1 : 0);
  }
  engines.timing(false);
  sampler.stop();
  loop.disable();
  gcObserver.disconnect();
  const loadAfter = loadavg()[0];
  loading = false;
  const loaded = await sampler.report;
  const loadedSteps = raw.takeSteps();
  console.log(`loaded stretch over; waiting for the ${USERS * JOBS_OPEN} jobs in flight to finish`);
  await Promise.all(lanes);

  const socketLatencies = loaded.received
    .map(({ key, at }) => (emitted.has(key) ? at - emitted.get(key)! : NaN))
    .filter((v) => Number.isFinite(v));
  const rows = [
    ['GET /api/health', stats(idle.latencies.health), stats(loaded.latencies.health)],
    ['GET /api/jobs', stats(idle.latencies.jobs), stats(loaded.latencies.jobs)],
    ['raw: bare answer', stats(idle.latencies.bare), stats(loaded.latencies.bare)],
    ['raw: tray reads', stats(idle.latencies.reads), stats(loaded.latencies.reads)],
  ] as const;
  console.log(
    `\nloaded for ${SECONDS} s by ${USERS} users x ${JOBS_OPEN} open jobs; pool busy (every thread on a task) in ${Math.round((100 * saturation.reduce((a, b) => a + b, 0)) / saturation.length)} % of seconds`,
  );
  console.log(
    `jobs finished: ${done.succeeded} succeeded, ${done.failed} failed (${[...done.byTool].map(([t, n]) => `${t} ${n}`).join(', ')})`,
  );
  console.log(
    `${'route'.padEnd(18)}${'idle p50'.padStart(10)}${'p99'.padStart(10)}${'max'.padStart(10)} |${'loaded p50'.padStart(11)}${'p99'.padStart(10)}${'max'.padStart(10)}   n idle/loaded`,
  );
  for (const [route, a, b] of rows) {
    console.log(
      `${route.padEnd(18)}${ms(a.p50)}${ms(a.p99)}${ms(a.max)} |${ms(b.p50).padStart(11)}${ms(b.p99)}${ms(b.max)}   ${a.n}/${b.n}`,
    );
  }
  for (const step of ['account', 'jobs', 'redis'] as const) {
    const [a, b] = [stats(idleSteps[step]), stats(loadedSteps[step])];
    console.log(
      `${`  raw read: ${step}`.padEnd(18)}${ms(a.p50)}${ms(a.p99)}${ms(a.max)} |${ms(b.p50).padStart(11)}${ms(b.p99)}${ms(b.max)}`,
    );
  }
  const s = stats(socketLatencies);
  console.log(
    `socket job.progress, emit -> client: p50 ${ms(s.p50)} p99 ${ms(s.p99)} max ${ms(s.max)} (${s.n} of ${emitted.size} pushes emitted while sampling)`,
  );
  console.log(
    `API event loop delay while loaded: p50 ${ms(loop.percentile(50) / 1e6)} p99 ${ms(loop.percentile(99) / 1e6)} max ${ms(loop.max / 1e6)}`,
  );
  console.log(
    `API thread GC pauses while loaded: ${gc.count} (${gc.major} major), ${gc.total.toFixed(0)} ms in all, longest ${gc.max.toFixed(1)} ms`,
  );
  console.log(
    `machine load average (1 min) at start/end of the loaded stretch: ${loadAverage.toFixed(1)} / ${loadAfter.toFixed(1)} on ${availableParallelism()} cores`,
  );
  console.log(`failed sampler calls: idle ${idle.failures}, loaded ${loaded.failures}`);
  console.log(`jobs reported stalled: ${stalled}`);
  const health = rows[0][2];
  const jobs = rows[1][2];
  const verdict = [
    ['p99 < 50 ms', Math.max(health.p99, jobs.p99) < GOALS.p99],
    ['max < 200 ms', Math.max(health.max, jobs.max) < GOALS.max],
    ['socket < 100 ms', s.max < GOALS.socket],
    ['0 stalled', stalled === 0],
  ] as const;
  console.log(`goals: ${verdict.map(([goal, met]) => `${goal} ${met ? 'met' : 'MISSED'}`).join(' | ')}`);

  for (const socket of userSockets) socket.close();
  await raw.close();
  await engines.stop();
  await app.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
