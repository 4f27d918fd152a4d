import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createConnection } from 'mongoose';
import { loadConfig, type AppConfig } from '../src/config/app-config';
import { exited } from './processes';

/**
 * The services of a test whose app runs in child processes (the real API and worker entry points,
 * test/processes.ts): a database and Redis prefix of its own on the shared FerretDB, Redis at
 * `redisUrl` (the shared one unless given), a storage folder; and the children it started, ended
 * with it by `close()`.
 */
export interface ProcessHost {
  config: AppConfig;
  /** Children to SIGKILL at close() should they still run. */
  children: ChildProcess[];
  close(): Promise<void>;
}

export function processHost(redisUrl = process.env.TEST_REDIS_URL): ProcessHost {
  const mongo = process.env.TEST_MONGODB_URL;
  if (!mongo || !redisUrl) {
    throw new Error('TEST_MONGODB_URL and TEST_REDIS_URL are not set: run the tests with `npm test`');
  }
  const id = randomBytes(4).toString('hex');
  const config = loadConfig({
    NODE_ENV: 'test',
    MONGODB_URI: `${mongo}/t_${id}`,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: `t_${id}`,
    STORAGE_DIR: mkdtempSync(join(tmpdir(), 'studio-storage-')),
    ENGINE_POOL_NICE: '0',
  });
  const children: ChildProcess[] = [];
  return {
    config,
    children,
    async close() {
      for (const child of children.splice(0)) {
        if (child.exitCode === null && child.signalCode === null) {
          const gone = exited(child);
          child.kill('SIGKILL');
          await gone;
        }
      }
      const conn = await createConnection(config.MONGODB_URI).asPromise();
      await conn.dropDatabase().catch(() => undefined);
      await conn.close();
      rmSync(config.STORAGE_DIR, { recursive: true, force: true });
    },
  };
}
