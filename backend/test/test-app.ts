import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mongoose';
import type { AddressInfo } from 'node:net';
import { createApp } from '../api/src/create-app';
import { loadConfig, type AppConfig } from '../src/config/app-config';
import { ContentSafety } from '../src/modules/content-safety';
import { asTestApp, assertAppClosed } from './connection-guard';
import { MarkedImageClassifier } from './marked-classifier';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  /** http://127.0.0.1:port of the listening server. */
  url: string;
  close(): Promise<void>;
}

/**
 * Boots the real app against the FerretDB and Redis started by deploy/local/test.sh, in a
 * database and Redis key prefix of its own so test files never see each other's data.
 */
export async function startTestApp(
  overrides: Record<string, string> = {},
  /** Look at images with the real classifier (nsfwjs on the engine pool) instead of the marked-image double. */
  options: { realClassifier?: boolean } = {},
): Promise<TestApp> {
  const mongo = process.env.TEST_MONGODB_URL;
  const redis = process.env.TEST_REDIS_URL;
  if (!mongo || !redis) {
    throw new Error('TEST_MONGODB_URL and TEST_REDIS_URL are not set: run the tests with `npm test`');
  }
  const id = randomBytes(4).toString('hex');
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: `${mongo}/t_${id}`,
    REDIS_URL: redis,
    REDIS_PREFIX: `t_${id}`,
    PORT: '0',
    HOST: '127.0.0.1',
    PASSWORD_SCRYPT_LOG_N: '10',
    AUTH_RATE_LIMIT_PER_MINUTE: '1000',
    LOG_LEVEL: 'silent',
    STORAGE_DIR: mkdtempSync(join(tmpdir(), 'studio-storage-')),
    // The mail catcher of deploy/local/test.sh: tests read the mails from its API (test/mailbox.ts).
    // Most tests run the tools with fresh accounts; the age-assurance tests turn the gate on.
    AGE_ASSURANCE: 'off',
    // Engines at the API's priority. The production +19 only makes the engines yield to their own
    // API; beside other programs at nice 0 (npm run test:loaded's hogs, a shared CI machine) a +19
    // thread gets about 4% of its quiet speed, so a job that takes 5 s quiet took minutes there and
    // the tests measured the scheduler. The bench measures what the nice does (docs/benchmarks.md).
    ENGINE_POOL_NICE: '0',
    ...(process.env.TEST_SMTP_URL ? { SMTP_URL: process.env.TEST_SMTP_URL } : {}),
    ...overrides,
  });
  // Everything the app opens, at boot or later (a lazy subscriber, a request), is counted as its own.
  const { app, appId } = await asTestApp(async (appId) => {
    const app = await createApp(config);
    // Test images carry marks, never sexual content: the double reads the marks (test/marked-classifier.ts).
    if (!options.realClassifier) app.get(ContentSafety).override(new MarkedImageClassifier());
    await app.listen(0, '127.0.0.1');
    return { app, appId };
  });
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    app,
    config,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await app.close();
      // Every connection of the app has ended by now: nothing it started can reach Redis or MongoDB later.
      assertAppClosed(appId);
      const conn = await createConnection(config.MONGODB_URI).asPromise();
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
      rmSync(config.STORAGE_DIR, { recursive: true, force: true });
    },
  };
}
