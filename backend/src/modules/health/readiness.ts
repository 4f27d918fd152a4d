import type Redis from 'ioredis';
import type { Connection } from 'mongoose';
import type { ServiceState } from '@studio/contracts';
import { within } from '../../common/within';
import { OUTAGE_RETRY_AFTER_SECONDS } from '../../infrastructure/outage';

/**
 * How long a readiness check waits for each part (they run at once): a part that does not answer
 * by then counts as down, so the probe answers well within the probes' own timeouts (3 s in
 * deploy/k8s) however the part fails: refused, reset, or connections that hang.
 */
export const READINESS_CHECK_TIMEOUT_MS = 1000;

/** Seconds a load balancer or client is told to wait (Retry-After) after a not-ready answer: the outage answers' own. */
export const READINESS_RETRY_AFTER_SECONDS = OUTAGE_RETRY_AFTER_SECONDS;

export interface Readiness {
  status: 'ready' | 'not_ready';
  database: ServiceState;
  redis: ServiceState;
  /** A worker process's local engine pool (its state: idle, starting, ready, closed). */
  enginePool?: { state: string; usable: boolean };
}

/**
 * The parts every request or job needs: the database answers a ping, and the shared Redis
 * connection is connected and answers one, each within READINESS_CHECK_TIMEOUT_MS. A Redis
 * connection that is reconnecting counts as down at once (a command would wait in its queue).
 */
export async function checkDependencies(
  db: Connection,
  redis: Redis,
): Promise<Pick<Readiness, 'database' | 'redis'>> {
  const [database, redisState] = await Promise.all([
    answers(async () => {
      await db.db!.admin().ping();
      return true;
    }),
    redis.status === 'ready'
      ? answers(async () => (await redis.ping()) === 'PONG')
      : Promise.resolve<ServiceState>('down'),
  ]);
  return { database, redis: redisState };
}

async function answers(check: () => Promise<boolean>): Promise<ServiceState> {
  return (await within(check(), READINESS_CHECK_TIMEOUT_MS)) ? 'up' : 'down';
}
