/**
 * Webhooks benchmark (issue 41): BENCH_WEBHOOK_JOBS (1,000) jobs ending, from BENCH_SUBMITTERS (10)
 * users at once, with a no-op clone engine and the tests' content-check double, twice in one run:
 *  1. the job pipeline alone (no endpoint registered): jobs per second, submit → job.completed on
 *     the socket p50/p99;
 *  2. the same with each user's endpoint (a receiver on 127.0.0.1) subscribed to job.succeeded:
 *     the pipeline's figures again, deliveries per second (first receipt of each, over the run) and
 *     delivery latency p50/p99 (the event's time in the body → the receiver has it), every
 *     delivery's signature checked by the Standard Webhooks reference library;
 *  3. the deliveries alone: JOBS job.succeeded events published at once on the domain event bus
 *     (jobs that ended, without running them), for one user's endpoint: how fast the webhook path
 *     drains a burst when the pipeline is not the bound.
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { io, type Socket } from 'socket.io-client';
import { Webhook } from 'standardwebhooks';
import { DomainEvents, JobSocketEvents, SocketEvents, type JobSocketPayloads } from '@studio/contracts';
import type { EncodedImage, InferenceEngine } from '@studio/inference';
import { createApp } from '../api/src/create-app';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { DomainEventBus } from '../src/modules/events';
import { loadConfig } from '../src/config/app-config';
import { ContentSafety } from '../src/modules/content-safety';
import { EngineRegistry } from '../src/modules/engines';
import { MarkedImageClassifier } from '../test/marked-classifier';
import { WebhookReceiver } from '../test/webhook-receiver';
import { benchUser, submitImageJob } from './bench-client';
import { percentile } from './timing';

const JOBS = Number(process.env.BENCH_WEBHOOK_JOBS ?? 1000);
const SUBMITTERS = Number(process.env.BENCH_SUBMITTERS ?? 10);
const FIXTURES = join(__dirname, '../../libs/inference/fixtures');

const ms = (value: number) => `${value.toFixed(1)} ms`;

interface Figures {
  jobsPerSecond: number;
  jobP50: number;
  jobP99: number;
  deliveriesPerSecond?: number;
  deliveryP50?: number;
  deliveryP99?: number;
}

async function main(): Promise<void> {
  const storage = mkdtempSync(join(tmpdir(), 'webhooks-bench-'));
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_WAIT_MS: '0',
    JOB_CONCURRENCY_CLONE: process.env.BENCH_CONCURRENCY ?? '8',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    MAX_OPEN_JOBS_PER_USER: '100000',
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    FOLDER_RATE_LIMIT_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_LOOPBACK: 'true',
    REDIS_PREFIX: `hooks${Date.now().toString(36)}`,
    STORAGE_DIR: storage,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  // Neither the engine nor the content check is measured here: a no-op clone, and the tests'
  // classifier double (unmarked images are neutral) instead of nsfwjs on the engine pool.
  app.get(ContentSafety).override(new MarkedImageClassifier());
  const registry = app.get(EngineRegistry);
  const pixel = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#888' } })
    .png()
    .toBuffer();
  const output: EncodedImage = { data: pixel, format: 'png', width: 1, height: 1 };
  registry.override(
    'clone',
    Object.assign(Object.create(registry.engineFor('clone')!) as InferenceEngine, {
      clone: async () => [output],
    }),
  );
  const image = await sharp(readFileSync(join(FIXTURES, 'ai-face.jpg')))
    .resize(64, 64)
    .png()
    .toBuffer();
  const receiver = await new WebhookReceiver().start();

  /** One run of JOBS jobs from SUBMITTERS fresh users, each with an endpoint when `hooks`. */
  const run = async (label: string, hooks: boolean): Promise<Figures> => {
    const users = await Promise.all(
      Array.from({ length: SUBMITTERS }, async (_, i) => {
        const user = await benchUser(app, base, `${label}${i}x`, JOBS * 2);
        const socket: Socket = io(base, { transports: ['websocket'], extraHeaders: { cookie: user.cookie } });
        await new Promise((resolve) => socket.once(SocketEvents.ready, resolve));
        let verifier: Webhook | undefined;
        if (hooks) {
          const res = await fetch(`${base}/api/account/webhooks`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', cookie: user.cookie, origin: base },
            body: JSON.stringify({ url: receiver.url(`/${user.username}`), events: ['job.succeeded'] }),
          });
          const body = (await res.json()) as { content: { secret: string } };
          if (res.status !== 201) throw new Error(`register: ${res.status} ${JSON.stringify(body)}`);
          verifier = new Webhook(body.content.secret);
        }
        return { ...user, socket, verifier };
      }),
    );
    const verifiers = new Map(users.map((u) => [`/${u.username}`, u.verifier]));
    const started = new Map<string, number>();
    const jobLatencies: number[] = [];
    const allDone = new Promise<void>((resolve) => {
      for (const { socket } of users) {
        socket.on(JobSocketEvents.completed, ({ job }: JobSocketPayloads['job.completed']) => {
          const t0 = started.get(job._id);
          if (t0 === undefined) return;
          jobLatencies.push(performance.now() - t0);
          if (jobLatencies.length === JOBS) resolve();
        });
      }
    });
    const firstReceipt = receiver.received.length;
    const t0 = performance.now();
    const wallStart = Date.now();
    let next = 0;
    await Promise.all(
      users.map(async (user) => {
        while (next < JOBS) {
          next += 1;
          const sentAt = performance.now();
          const jobId = await submitImageJob(base, '/api/generateNoise', user.cookie, image, { amount: '1' });
          started.set(jobId, sentAt);
        }
      }),
    );
    await allDone;
    const jobsElapsed = performance.now() - t0;
    jobLatencies.sort((a, b) => a - b);
    const figures: Figures = {
      jobsPerSecond: (JOBS * 1000) / jobsElapsed,
      jobP50: percentile(jobLatencies, 0.5),
      jobP99: percentile(jobLatencies, 0.99),
    };
    if (hooks) {
      const got = await receiver.waitFor((all) => {
        const ids = new Set(all.slice(firstReceipt).map((r) => r.id));
        return ids.size >= JOBS ? all.slice(firstReceipt) : undefined;
      }, 600_000);
      const first = new Map<string, (typeof got)[number]>();
      for (const r of got) if (!first.has(r.id)) first.set(r.id, r);
      const latencies: number[] = [];
      for (const r of first.values()) {
        verifiers.get(r.path)!.verify(r.body, r.headers);
        latencies.push(r.at - Date.parse(r.json.timestamp));
      }
      latencies.sort((a, b) => a - b);
      const lastAt = Math.max(...[...first.values()].map((r) => r.at));
      Object.assign(figures, {
        deliveriesPerSecond: (first.size * 1000) / (lastAt - wallStart),
        deliveryP50: percentile(latencies, 0.5),
        deliveryP99: percentile(latencies, 0.99),
      });
    }
    for (const { socket } of users) socket.close();
    return figures;
  };

  /** Part 3: JOBS job ends announced at once, delivered to one endpoint. */
  const burst = async () => {
    const user = await benchUser(app, base, 'burst', 0);
    const res = await fetch(`${base}/api/account/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: user.cookie, origin: base },
      body: JSON.stringify({ url: receiver.url(`/${user.username}`), events: ['job.succeeded'] }),
    });
    const verifier = new Webhook(((await res.json()) as { content: { secret: string } }).content.secret);
    const userId = (await app.get(AccountsRepository).findByUsername(user.username))!.id;
    const bus = app.get(DomainEventBus);
    const firstReceipt = receiver.received.length;
    const wallStart = Date.now();
    await Promise.all(
      Array.from({ length: JOBS }, (_, i) =>
        bus.publishDirect(
          DomainEvents.jobCompleted,
          { userId, username: user.username, jobId: `burst${i}`, tool: 'clone', items: 1, cost: 1 },
          `bench-burst:${wallStart}:${i}`,
        ),
      ),
    );
    const got = await receiver.waitFor((all) => {
      const mine = all.slice(firstReceipt).filter((r) => r.path === `/${user.username}`);
      return new Set(mine.map((r) => r.id)).size >= JOBS ? mine : undefined;
    }, 600_000);
    const first = new Map<string, (typeof got)[number]>();
    for (const r of got) if (!first.has(r.id)) first.set(r.id, r);
    const latencies = [...first.values()].map((r) => {
      verifier.verify(r.body, r.headers);
      return r.at - Date.parse(r.json.timestamp);
    });
    latencies.sort((a, b) => a - b);
    const lastAt = Math.max(...[...first.values()].map((r) => r.at));
    return {
      perSecond: (first.size * 1000) / (lastAt - wallStart),
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
    };
  };

  console.log(
    `\n== webhooks: ${JOBS} clone jobs ending (no-op engine), ${SUBMITTERS} users submitting at once ==`,
  );
  // Warm-up (first records, first queue jobs), not counted.
  const warm = await benchUser(app, base, 'warm', 20);
  for (let i = 0; i < 5; i++)
    await submitImageJob(base, '/api/generateNoise', warm.cookie, image, { amount: '1' });
  const alone = await run('alone', false);
  const withHooks = await run('hooked', true);
  console.log(
    `job pipeline alone:          ${alone.jobsPerSecond.toFixed(1)} jobs/s, submit → completed p50 ${ms(alone.jobP50)}, p99 ${ms(alone.jobP99)}`,
  );
  console.log(
    `job pipeline with webhooks:  ${withHooks.jobsPerSecond.toFixed(1)} jobs/s, submit → completed p50 ${ms(withHooks.jobP50)}, p99 ${ms(withHooks.jobP99)}`,
  );
  console.log(
    `webhook deliveries:          ${withHooks.deliveriesPerSecond!.toFixed(1)} deliveries/s (job.succeeded, each signature verified), job ended → received p50 ${ms(withHooks.deliveryP50!)}, p99 ${ms(withHooks.deliveryP99!)}`,
  );
  const alone3 = await burst();
  console.log(
    `webhook deliveries alone:    ${alone3.perSecond.toFixed(1)} deliveries/s (${JOBS} job ends announced at once, one endpoint), announced → received p50 ${ms(alone3.p50)}, p99 ${ms(alone3.p99)}`,
  );
  await receiver.close();
  await app.close();
  rmSync(storage, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
