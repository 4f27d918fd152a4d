import Redis from 'ioredis';
import { createConnection } from 'mongoose';
import type { AppConfig } from '../config/app-config';
import { isOutage, OUTAGE_WAIT_MS, reconnectDelay } from './outage';

/**
 * Before the API or the worker boots: waits until Redis and the database both answer. A process
 * (re)started while one is down (its supervisor restarting it, a deploy during a failover) would
 * otherwise fail its boot on the first command, and be restarted into the same failure until the
 * part came back; waiting, it starts within about a second of the return. Says once what it waits for.
 */
export async function waitForServices(config: AppConfig, say: (message: string) => void): Promise<void> {
  await Promise.all([waitForRedis(config.REDIS_URL, say), waitForDatabase(config.MONGODB_URI, say)]);
}

async function waitForRedis(url: string, say: (message: string) => void): Promise<void> {
  const redis = new Redis(url, {
    lazyConnect: true,
    // the PING waits, through every reconnect, until Redis answers
    maxRetriesPerRequest: null,
    connectTimeout: OUTAGE_WAIT_MS,
    retryStrategy: reconnectDelay,
  });
  let said = false;
  redis.on('error', (err: Error) => {
    if (!said) say(`waiting for Redis (${err.message})`);
    said = true;
  });
  try {
    await redis.connect().catch(() => undefined); // a refused first connect is retried like the rest
    await redis.ping();
    if (said) say('Redis answers: starting');
  } finally {
    redis.disconnect();
  }
}

async function waitForDatabase(uri: string, say: (message: string) => void): Promise<void> {
  for (let said = false; ; said = true) {
    const connection = createConnection(uri, { serverSelectionTimeoutMS: OUTAGE_WAIT_MS });
    try {
      await connection.asPromise();
      await connection.db!.admin().ping();
      if (said) say('the database answers: starting');
      return;
    } catch (err) {
      // A wrong address or credentials will not mend by waiting: the boot fails and says why.
      if (!isOutage(err)) throw err;
      if (!said) say(`waiting for the database (${(err as Error).message})`);
    } finally {
      await connection.close().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, reconnectDelay(10)));
  }
}
