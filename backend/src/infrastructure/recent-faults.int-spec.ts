import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { RECHECK_MS, RecentFaults } from './recent-faults';

/** Two processes' views of the same marks (a worker that met a fault, the API that writes next). */
describe('RecentFaults: a success in any process clears the mark', () => {
  const redis = new Redis(process.env.TEST_REDIS_URL!);
  const prefix = `recent-faults-${randomBytes(4).toString('hex')}`;
  let clock = 1_000_000;
  const now = () => clock;
  const worker = new RecentFaults<'unavailable'>(redis, prefix, now);
  const api = new RecentFaults<'unavailable'>(redis, prefix, now);
  const markOf = async () => (await api.read(['storage']))[0]?.kind;
  /** succeeded() clears behind the caller; a read after a PING on the same connection sees it. */
  const settled = () => redis.ping();

  afterAll(() => redis.quit());

  it('clears a mark another process made, checking at most every RECHECK_MS', async () => {
    api.succeeded('storage'); // its first success: whatever an earlier run left goes
    await settled();
    await worker.mark('storage', 'unavailable');
    expect(await markOf()).toBe('unavailable');

    clock += RECHECK_MS - 1;
    api.succeeded('storage'); // checked a moment ago: no Redis call
    await settled();
    expect(await markOf()).toBe('unavailable');

    clock += 1;
    api.succeeded('storage');
    await settled();
    expect(await markOf()).toBeUndefined();
  });

  it('clears its own mark on the next success', async () => {
    worker.succeeded('storage');
    await settled();
    await worker.mark('storage', 'unavailable');
    worker.succeeded('storage');
    await settled();
    expect(await markOf()).toBeUndefined();
  });
});
