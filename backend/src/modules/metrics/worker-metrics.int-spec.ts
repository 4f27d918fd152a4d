import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mongoose';
import { loadConfig } from '../../config/app-config';
import { WorkerAppModule } from '../../../worker/src/worker-app.module';
import { parseMetrics, sampleSum } from './metrics-text';

const TOKEN = 'worker-metrics-token-0123';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The worker process (no HTTP app) serves its own /metrics on METRICS_WORKER_PORT, behind the token. */
describe('the worker process metrics', () => {
  let worker: INestApplicationContext;
  let url: string;
  const id = randomBytes(4).toString('hex');
  const storage = mkdtempSync(join(tmpdir(), 'studio-storage-'));
  const mongo = `${process.env.TEST_MONGODB_URL}/t_${id}`;

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}/metrics`;
    const config = loadConfig({
      NODE_ENV: 'test',
      MONGODB_URI: mongo,
      REDIS_URL: process.env.TEST_REDIS_URL ?? '',
      REDIS_PREFIX: `t_${id}`,
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      STORAGE_DIR: storage,
      WORKER_INLINE: 'false',
      METRICS_TOKEN: TOKEN,
      METRICS_WORKER_PORT: String(port),
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

  it('answers only with the token, with its own series', async () => {
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: 'Bearer not-the-token-at-all' } })).status).toBe(
      401,
    );
    const res = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    const samples = parseMetrics(await res.text());
    expect(Object.keys(samples).some((key) => key.includes('process="worker"'))).toBe(true);
    expect(sampleSum(samples, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
    expect(sampleSum(samples, 'studio_queue_jobs', { tool: 'clone', state: 'waiting' })).toBe(0);
    // No HTTP app here: nothing else answers.
    expect((await fetch(url.replace('/metrics', '/api/health'))).status).toBe(404);
  });
});
