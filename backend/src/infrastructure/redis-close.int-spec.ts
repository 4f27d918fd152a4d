import Redis from 'ioredis';
import { startPrivateRedis, type PrivateService } from '../../test/private-services';
import { requestRedisOptions } from './outage';
import { closeRedis } from './redis-close';

/**
 * Issue 53: a shutdown awaits closeRedis for each connection, and with Redis down it never
 * returned (ioredis emits no 'end' for a connection closed between two reconnect attempts), so
 * Ctrl-C left the API and the worker running for minutes. Closing must end the connection
 * whatever state Redis is in.
 */
describe('closeRedis', () => {
  let redis: PrivateService;
  /** Every connection a test made, closed after it (the connection guard fails a file that leaves one open). */
  const clients: Redis[] = [];
  /** A bound for a hang, not a speed goal. */
  const HANG_MS = 30_000;

  beforeEach(async () => {
    redis = await startPrivateRedis();
  });
  afterEach(async () => {
    redis.thaw();
    await Promise.all(clients.splice(0).map((c) => closeRedis(c)));
    await redis.stop();
  });

  const connected = async (made = new Redis(redis.url, requestRedisOptions)) => {
    clients.push(made);
    made.on('error', () => undefined);
    await made.ping();
    return made;
  };

  function within<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} still waiting after ${HANG_MS} ms`)), HANG_MS);
      }),
    ]).finally(() => clearTimeout(timer));
  }

  async function until(check: () => boolean, what: string) {
    await within(
      (async () => {
        while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
      })(),
      what,
    );
  }

  it('ends a connection whose Redis was killed, between two reconnect attempts', async () => {
    const subscriber = await connected((await connected()).duplicate());
    await subscriber.subscribe('channel');
    await redis.kill();
    await until(() => subscriber.status === 'reconnecting', 'the reconnecting state');
    await within(closeRedis(subscriber), 'closeRedis');
    expect(subscriber.status).toBe('end');
  });

  it('fails what was queued on it when it ends so', async () => {
    const waiting = await connected(new Redis(redis.url, { maxRetriesPerRequest: null }));
    await redis.kill();
    await until(() => waiting.status === 'reconnecting', 'the reconnecting state');
    const queued = waiting.get('key');
    await within(closeRedis(waiting), 'closeRedis');
    await expect(queued).rejects.toThrow('Connection is closed.');
  });

  it('ends a connection whose Redis is frozen (QUIT never answered), also without a command timeout', async () => {
    const frozen = await connected(new Redis(redis.url));
    redis.freeze();
    await within(closeRedis(frozen), 'closeRedis');
    expect(frozen.status).toBe('end');
  });
});
