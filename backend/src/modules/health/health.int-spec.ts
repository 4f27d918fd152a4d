import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import {
  connect,
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Redis from 'ioredis';
import { createConnection } from 'mongoose';
import request from 'supertest';
import { JobTools } from '@studio/contracts';
import type { PooledCpuEngine } from '@studio/inference';
import { eventually } from '../../../test/clients';
import { freePort } from '../../../test/processes';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { WorkerAppModule } from '../../../worker/src/worker-app.module';
import { loadConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { EngineRegistry } from '../engines';
import { READINESS_CHECK_TIMEOUT_MS, READINESS_RETRY_AFTER_SECONDS } from './readiness';
import { WORKER_LIVE_PATH, WORKER_READY_PATH } from './worker-health.server';

describe('health and API document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reports the database, Redis and the mail transport (the test mail catcher) as up', async () => {
    const res = await request(t.url).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ status: 'ok', database: 'up', redis: 'up', mail: 'up' });
    // Every tool's engine: the local one here, nothing remote to probe.
    const engines = res.body.content.engines as { tool: string; kind: string; readiness: string }[];
    expect(engines.map((e) => e.tool)).toEqual([...JobTools]);
    for (const engine of engines) {
      expect(engine.kind).toBe('local');
      expect(['ready', 'not_configured']).toContain(engine.readiness);
    }
  });

  it('reports a mail server that does not answer as down, and no SMTP_URL as mails to the log', async () => {
    const unreachable = await startTestApp({ SMTP_URL: 'smtp://127.0.0.1:1' });
    const logOnly = await startTestApp({ SMTP_URL: '' });
    try {
      const down = (await request(unreachable.url).get('/api/health')).body.content;
      expect(down).toMatchObject({ status: 'degraded', mail: 'down' });
      const log = (await request(logOnly.url).get('/api/health')).body.content;
      expect(log).toMatchObject({ status: 'ok', mail: 'log' });
    } finally {
      await Promise.all([unreachable.close(), logOnly.close()]);
    }
  });

  it('a GPU server that takes connections but never answers is unreachable there, before its own timeout', async () => {
    // Without the deadline the answer waits for the engine's own 5 s status timeout, past the
    // container health check's 5 s.
    // The engine's own timeout would end its status request (the socket closes); the deadline answers first.
    let received = 0;
    let ended = 0;
    const silent = createServer((req) => {
      received += 1;
      req.socket.once('close', () => (ended += 1));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const app = await startTestApp({ ENGINE_GENERATE: 'comfyui', COMFYUI_URL: `http://127.0.0.1:${port}` });
    try {
      const res = await request(app.url).get('/api/health');
      expect({ received: received > 0, ended }).toEqual({ received: true, ended: 0 });
      expect(res.body.content.status).toBe('degraded');
      expect(res.body.content.engines).toContainEqual({
        tool: 'generate',
        kind: 'comfyui',
        readiness: 'unreachable',
      });
    } finally {
      await app.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('lists every endpoint in the OpenAPI document', async () => {
    const res = await request(t.url).get('/api/openapi.json');
    expect(res.status).toBe(200);
    const operations = Object.entries(res.body.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/health',
        'GET /api/health/live',
        'GET /api/health/ready',
        'POST /api/register',
        'POST /api/login',
        'POST /api/logout',
        'GET /api/session',
        'GET /api/getProfile/{account}',
        'POST /api/makeFolder',
        'GET /api/getlogs',
        'GET /api/admin/logs',
        'GET /api/admin/stats',
        'GET /api/admin/allowances',
        'GET /api/billing/allowance',
        'GET /api/billing/status',
        'POST /api/createCheckoutSession',
        'GET /api/checkout/{sessionId}',
        'POST /api/createPortalSession',
        'POST /api/stripe/webhook',
        'GET /api/stripe/test-checkout/{sessionId}',
        'POST /api/stripe/test-checkout/{sessionId}/pay',
        'GET /api/credits/history',
        'POST /api/patreonSecret',
        'GET /api/support/users/{username}/credits',
        'POST /api/support/reimburse',
        'POST /api/support/reimburse/tool/preview',
        'POST /api/support/reimburse/tool',
        'POST /api/admin/credits/grant',
        'POST /api/admin/credits/adjust',
        'GET /api/admin/credits/approvals',
        'POST /api/admin/credits/approvals/{id}',
        'POST /api/admin/patreonSecrets',
        'GET /api/getBulkInpaints/{id}',
        'PATCH /api/folders/{id}',
        'DELETE /api/folders/{id}',
        'GET /api/deleteGen/{itemId}',
        'DELETE /api/content/{itemId}',
        'GET /api/content/{file}',
        'POST /api/downloadContent',
        'POST /api/generateNoise',
        'POST /api/superResolution',
        'POST /api/faceSwap',
        'POST /api/faceSwap/check',
        'GET /api/jobs',
        'GET /api/jobs/{id}',
        'GET /api/jobs/history',
        'POST /api/jobs/{id}/cancel',
        'POST /api/jobs/batches/{batchId}/cancel',
        'POST /api/jobs/{id}/retry',
        'GET /api/jobs/{id}/inputs/{index}',
        'POST /api/inpaintImage',
        'POST /api/bulkInpaintImage',
        'POST /api/generateImage',
        'POST /api/faceSwapVideo',
        'POST /api/faceSwapVideo/check',
        'GET /api/operations',
        // the public verify page (modules/provenance)
        'POST /api/verify',
        // Prometheus, outside the API prefix (modules/metrics)
        'GET /metrics',
        'PUT /api/admin/notices/{tool}',
        'PUT /api/admin/flags',
        'GET /api/admin/engines',
        'POST /api/replicate/webhook',
        'GET /api/support/users',
        'POST /api/admin/content/{itemId}/takedown',
        'PUT /api/admin/users/{username}/badges',
        'PUT /api/admin/users/{username}/role',
        'DELETE /api/admin/users/{username}/suspension',
        'GET /api/account',
        'POST /api/account/verification',
        'POST /api/email/verify',
        'POST /api/password/forgot',
        'POST /api/password/reset',
        'POST /api/account/password',
        'GET /api/account/export',
        'DELETE /api/account',
        'GET /api/account/sessions',
        'POST /api/account/sessions/logout-others',
        'DELETE /api/account/sessions/{id}',
        // personal API keys (issue 41)
        'GET /api/account/api-keys',
        'POST /api/account/api-keys',
        'DELETE /api/account/api-keys/{keyId}',
        'GET /api/account/api-keys/usage',
        'GET /api/account/webhooks',
        'POST /api/account/webhooks',
        'PATCH /api/account/webhooks/{endpointId}',
        'DELETE /api/account/webhooks/{endpointId}',
        'GET /api/account/webhooks/deliveries',
        'GET /api/account/webhooks/settings',
        'POST /api/account/webhooks/deliveries/{deliveryId}/replay',
        // age assurance and moderation (issue 37)
        'GET /api/age-assurance',
        'POST /api/age-assurance/card',
        'POST /api/age-assurance/card/{sessionId}/complete',
        'POST /api/age-assurance/card/{sessionId}/test-card',
        'POST /api/age-assurance/provider',
        'POST /api/age-assurance/provider/{reference}/complete',
        'POST /api/age-assurance/persona/webhook',
        'GET /api/support/users/{username}/age-assurance',
        'POST /api/support/users/{username}/age-assurance',
        'GET /api/moderation/held',
        'GET /api/moderation/held/{itemId}/file',
        'POST /api/moderation/held/{itemId}/release',
        'POST /api/moderation/held/{itemId}/remove',
        // notice and removal (issue 38, modules/takedown)
        'POST /api/reports',
        'POST /api/reports/appeals/{itemId}',
        'GET /api/admin/reports',
        'GET /api/admin/reports/transparency',
        'GET /api/admin/reports/transparency.csv',
        'GET /api/admin/reports/{id}',
        'GET /api/admin/reports/{id}/file',
        'POST /api/admin/reports/{id}/decision',
        'POST /api/admin/reports/{id}/appeals/{itemId}/decision',
      ].sort(),
    );
    const docs = await request(t.url).get('/api/docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger');
  });

  it('sends security headers', async () => {
    const res = await request(t.url).get('/api/health');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

/**
 * A TCP forwarder between the app and one of its services, to take the service away the ways it
 * fails: cut() as a stopped process (the connections reset, new ones refused), hang() as one that
 * takes connections and never answers (bytes are held, in order, and delivered on restore()).
 */
class ServiceLine {
  private readonly sockets = new Set<Socket>();
  private readonly held: (() => void)[] = [];
  private hung = false;
  private listening = true;

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async to(url: string): Promise<ServiceLine> {
    const { hostname, port } = new URL(url);
    const server = createTcpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const line = new ServiceLine(server, (server.address() as AddressInfo).port);
    server.on('connection', (client) => line.forward(client, hostname, Number(port)));
    return line;
  }

  private forward(client: Socket, host: string, port: number): void {
    const upstream = connect(port, host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ]) {
      this.sockets.add(from);
      from.on('data', (chunk) => (this.hung ? this.held.push(() => to.write(chunk)) : to.write(chunk)));
      from.on('error', () => undefined);
      from.on('close', () => {
        this.sockets.delete(from);
        to.destroy();
      });
    }
  }

  async cut(): Promise<void> {
    this.listening = false;
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  hang(): void {
    this.hung = true;
  }

  async restore(): Promise<void> {
    this.hung = false;
    for (const deliver of this.held.splice(0)) deliver();
    if (this.listening) return;
    this.listening = true;
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    await this.restore();
    await this.cut();
  }
}

/** Milliseconds a request takes, with its answer. */
async function timed(url: string): Promise<{ res: request.Response; ms: number }> {
  const started = performance.now();
  const res = await request(url).get('');
  return { res, ms: performance.now() - started };
}

describe('liveness and readiness (probes)', () => {
  let t: TestApp;
  let database: ServiceLine;
  let redisLine: ServiceLine;
  let redis: Redis;
  const live = () => request(t.url).get('/api/health/live');
  const ready = () => request(t.url).get('/api/health/ready');

  beforeAll(async () => {
    database = await ServiceLine.to(process.env.TEST_MONGODB_URL!);
    redisLine = await ServiceLine.to(process.env.TEST_REDIS_URL!);
    t = await startTestApp({
      MONGODB_URI: `mongodb://127.0.0.1:${database.port}/t_probes_${randomBytes(4).toString('hex')}`,
      REDIS_URL: `redis://127.0.0.1:${redisLine.port}`,
    });
    redis = t.app.get<Redis>(REDIS);
  });
  afterAll(async () => {
    await Promise.all([database.restore(), redisLine.restore()]);
    await t.close();
    await Promise.all([database.close(), redisLine.close()]);
  });

  it('answers live and ready while the database and Redis answer', async () => {
    const res = await ready();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      message: 'success',
      content: { status: 'ready', database: 'up', redis: 'up' },
    });
    expect(res.headers['retry-after']).toBeUndefined();
    const alive = await live();
    expect(alive.status).toBe(200);
    expect(alive.body.content).toMatchObject({ status: 'alive' });
  });

  it('is not ready (503, Retry-After) while Redis is stopped, ready again once it is back; live throughout', async () => {
    const lost = new Promise((resolve) => redis.once('close', resolve));
    await redisLine.cut();
    try {
      await lost;
      const res = await ready();
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe(String(READINESS_RETRY_AFTER_SECONDS));
      expect(res.body).toEqual({
        message: 'error',
        content: { status: 'not_ready', database: 'up', redis: 'down' },
      });
      expect((await live()).status).toBe(200);
      // The report keeps its body and its 200 (compatibility): it says degraded.
      const report = await request(t.url).get('/api/health');
      expect(report.status).toBe(200);
      expect(report.body.content).toMatchObject({ status: 'degraded', redis: 'down', database: 'up' });
    } finally {
      const back = new Promise((resolve) => redis.once('ready', resolve));
      await redisLine.restore();
      await back;
    }
    expect((await ready()).status).toBe(200);
  });

  it('is not ready (503, Retry-After) while the database is stopped, ready again once it is back; live throughout', async () => {
    await database.cut();
    try {
      const res = await ready();
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe(String(READINESS_RETRY_AFTER_SECONDS));
      expect(res.body.content).toEqual({ status: 'not_ready', database: 'down', redis: 'up' });
      expect((await live()).status).toBe(200);
    } finally {
      await database.restore();
    }
    await eventually(async () => expect((await ready()).status).toBe(200));
  });

  it('answers within its bound while the database and Redis take connections but never answer', async () => {
    database.hang();
    redisLine.hang();
    try {
      const probe = await timed(`${t.url}/api/health/ready`);
      expect(probe.res.status).toBe(503);
      expect(probe.res.body.content).toEqual({ status: 'not_ready', database: 'down', redis: 'down' });
      // An answer at all is the point: without the bound the probe waits on the hung lines until
      // the test's own timeout. It waited the bound first (no elapsed-time ceiling: a busy machine
      // is slow, and a speed figure is a benchmark's, not a test's).
      expect(probe.ms).toBeGreaterThanOrEqual(READINESS_CHECK_TIMEOUT_MS - 50);
      expect((await request(`${t.url}/api/health/live`).get('')).status).toBe(200);
    } finally {
      await Promise.all([database.restore(), redisLine.restore()]);
    }
    await eventually(async () => expect((await ready()).status).toBe(200));
  });
});

/** The worker process (no HTTP app) answers its probes on HEALTH_WORKER_PORT. */
describe("the worker's probes", () => {
  let worker: INestApplicationContext;
  let base: string;
  const id = randomBytes(4).toString('hex');
  const storage = mkdtempSync(join(tmpdir(), 'studio-storage-'));
  const mongo = `${process.env.TEST_MONGODB_URL}/t_${id}`;
  const ready = () => request(base).get(WORKER_READY_PATH);

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const config = loadConfig({
      NODE_ENV: 'test',
      MONGODB_URI: mongo,
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      REDIS_PREFIX: `t_${id}`,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      STORAGE_DIR: storage,
      WORKER_INLINE: 'false',
      HEALTH_WORKER_PORT: String(port),
      ENGINE_POOL_SIZE: '1',
      ENGINE_POOL_NICE: '0',
    });
    worker = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), { logger: false });
    await worker.init();
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    const conn = await createConnection(mongo).asPromise();
    await conn.dropDatabase().catch(() => undefined);
    await conn.close();
    rmSync(storage, { recursive: true, force: true });
  });

  it('is live, and ready only while its engine pool is usable: not while its threads start, nor once closed', async () => {
    const alive = await request(base).get(WORKER_LIVE_PATH);
    expect(alive.status).toBe(200);
    expect(alive.body.content).toMatchObject({ status: 'alive' });
    // A test app does not warm its pool up: it starts on first use, and counts as usable.
    const idle = await ready();
    expect(idle.status).toBe(200);
    expect(idle.body.content).toEqual({
      status: 'ready',
      database: 'up',
      redis: 'up',
      enginePool: { state: 'idle', usable: true },
    });

    const pool = worker.get(EngineRegistry).contentInspector() as unknown as PooledCpuEngine;
    const warm = pool.warmup();
    const starting = await ready();
    expect(starting.status).toBe(503);
    expect(starting.headers['retry-after']).toBe(String(READINESS_RETRY_AFTER_SECONDS));
    expect(starting.body.content).toMatchObject({
      status: 'not_ready',
      enginePool: { state: 'starting', usable: false },
    });
    await warm;
    expect((await ready()).body.content).toMatchObject({
      status: 'ready',
      enginePool: { state: 'ready', usable: true },
    });

    await pool.close();
    const closed = await ready();
    expect(closed.status).toBe(503);
    expect(closed.body.content).toMatchObject({ status: 'not_ready', enginePool: { state: 'closed' } });
    expect((await request(base).get(WORKER_LIVE_PATH)).status).toBe(200);
    expect((await request(base).get('/metrics')).status).toBe(404);
  }, 120_000);
});
