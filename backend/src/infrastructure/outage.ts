import type { default as Redis, RedisOptions } from 'ioredis';

/**
 * How the app's clients behave while Redis or the database is down (issue 53): a request that
 * needs the missing part fails within about a second and a half, so the error filter can answer
 * 503 with Retry-After well inside 2 s, and the clients reconnect on their own, at most a second
 * apart, so work resumes within seconds of the part's return.
 */

/** How long a command or query may wait for a part that does not answer. */
export const OUTAGE_WAIT_MS = 1_500;
/**
 * Retry-After sent with every 503 of a part being down, and by the readiness probes (seconds):
 * short, as the clients find a returned part within a second and browsers ask readiness on it.
 */
export const OUTAGE_RETRY_AFTER_SECONDS = 5;
/** Reconnect attempts come quickly, then once a second (ioredis's default grows to 2 s; Bull's to 20 s). */
export const reconnectDelay = (attempt: number): number => Math.min(attempt * 100, 1_000);

/** A worker whose queue lost Redis tries again this soon (Bull's default waits 5 s). */
export const QUEUE_RETRY_PROCESS_MS = 500;

/**
 * Redis connections that serve requests. Commands written while the connection is down wait in
 * the offline queue only until the next failed reconnect (maxRetriesPerRequest 0); a Redis that
 * holds the connection open but does not answer (frozen, overloaded) is bounded by commandTimeout.
 */
export const requestRedisOptions: RedisOptions = {
  maxRetriesPerRequest: 0,
  commandTimeout: OUTAGE_WAIT_MS,
  connectTimeout: OUTAGE_WAIT_MS,
  retryStrategy: reconnectDelay,
};

/**
 * Bull's blocking and subscriber connections: Bull requires that they retry forever
 * (maxRetriesPerRequest null) and skip the ready check; they only need to come back quickly.
 */
export const waitingRedisOptions: RedisOptions = {
  maxRetriesPerRequest: null,
  enableReadyCheck: false,
  connectTimeout: OUTAGE_WAIT_MS,
  retryStrategy: reconnectDelay,
};

/**
 * A connection that only subscribes (socket pushes' adapter, the cancel channel, prediction
 * updates): its SUBSCRIBE waits for Redis instead of failing, as nothing answers a user meanwhile
 * and a failed one (a process started while Redis is down) rejected where no one listened and
 * ended the process. ioredis subscribes again by itself after each reconnect.
 */
export function subscriberOf(redis: Redis): Redis {
  return redis.duplicate({ ...waitingRedisOptions, commandTimeout: undefined });
}

/**
 * The MongoDB driver's share. Server selection (0.6 s) and mongoose's buffering (OUTAGE_WAIT_MS)
 * are bounded. A frozen server (connections open, nothing answered) is found by the monitor,
 * whose check runs every heartbeat and gives up after connectTimeoutMS: the driver then clears
 * the pool, which ends the queries waiting on it (no socketTimeoutMS, which would also end slow
 * but healthy queries). So a query already waiting on a frozen server fails within about 2 s
 * (the next heartbeat, its 1 s check, then the retry's server selection), later ones within 0.6 s.
 */
export const databaseOutageOptions = {
  // A query cut off by the pool's clearing is retried once (retryable reads and writes), after
  // another server selection: kept short so the three together stay within 2 s (at 1 s the first
  // request to a hanging database took 2.1-2.2 s in the fault drills). Selection waits only while
  // no server is known to answer, so a healthy database never waits on it.
  serverSelectionTimeoutMS: 600,
  connectTimeoutMS: 1_000,
  // The driver's minimum; a returned server is found as quickly.
  heartbeatFrequencyMS: 500,
  // Mongoose holds operations while it has no connection; not longer than the driver would.
  bufferTimeoutMS: OUTAGE_WAIT_MS,
};

const DATABASE_ERRORS = new Set([
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoPoolClearedError',
  'PoolClearedOnNetworkError',
  'MongoNotConnectedError',
  'MongoOperationTimeoutError',
  'MongoTopologyClosedError',
]);
const REDIS_MESSAGES = [
  'Command timed out',
  "Stream isn't writeable",
  'Connection is closed.',
  'Reached the max retries per request limit',
];
/** Replies of a Redis that is starting, failing over or read-only for the moment. */
const REDIS_TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|READONLY) /;

/**
 * Whether an error means "Redis or the database is not usable right now" rather than a bug or a
 * bad request: such errors are answered 503 with Retry-After (http-exception.filter.ts). Follows
 * `cause` chains, since some layers wrap what the client threw.
 */
/**
 * A connection lost mid-request: the driver passes some of these on unwrapped (a write to a
 * database that died while the request ran: "This socket has been ended by the other party").
 * Not a refused connect: a remote engine's is named by its own fault (remoteFaultOf).
 */
const CONNECTION_LOST = new Set(['EPIPE', 'ECONNRESET']);

export function isOutage(error: unknown): boolean {
  for (let err = error, depth = 0; err && typeof err === 'object' && depth < 5; depth += 1) {
    const { name, message, code } = err as { name?: string; message?: unknown; code?: unknown };
    if (name && DATABASE_ERRORS.has(name)) return true;
    if (typeof code === 'string' && CONNECTION_LOST.has(code)) return true;
    if (name === 'MaxRetriesPerRequestError') return true;
    if (typeof message === 'string') {
      if (REDIS_MESSAGES.some((text) => message.startsWith(text))) return true;
      if (REDIS_TRANSIENT_REPLY.test(message)) return true;
      // Mongoose's own: an operation held while it had no connection.
      if (name === 'MongooseError' && / buffering timed out after /.test(message)) return true;
    }
    err = (err as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * For publishers that never look at publish()'s promise (the Socket.IO Redis adapter and
 * emitter): a publish that fails while Redis is down is reported instead of rejecting unhandled,
 * which would end the process. The push is lost; browsers read again when their socket returns.
 */
export function reportFailedPublishes<T extends { publish: Redis['publish'] }>(
  client: T,
  report: (err: Error) => void,
): T {
  const publish = client.publish.bind(client) as (...args: unknown[]) => Promise<number>;
  client.publish = ((...args: unknown[]) => {
    const sent = publish(...args);
    sent.catch(report);
    return sent;
  }) as Redis['publish'];
  return client;
}
