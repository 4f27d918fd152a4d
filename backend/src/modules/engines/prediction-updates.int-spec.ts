import { randomUUID } from 'node:crypto';
import Redis from 'ioredis';
import type { AppConfig } from '../../config/app-config';
import { PredictionUpdatesHub } from './prediction-updates';

/** The hub over a real Redis: webhook deliveries wake the job waiting on that prediction. */
describe('PredictionUpdatesHub', () => {
  const hubs: PredictionUpdatesHub[] = [];
  const clients: Redis[] = [];
  const hubOn = (redis: Redis) => {
    clients.push(redis);
    const hub = new PredictionUpdatesHub(redis, { REDIS_PREFIX: `test-${randomUUID()}` } as AppConfig);
    hubs.push(hub);
    return hub;
  };

  afterAll(async () => {
    await Promise.all(hubs.map((hub) => hub.onApplicationShutdown()));
    clients.forEach((client) => client.disconnect());
  });

  it("a delivery wakes its prediction's waiter, and only that one", async () => {
    const hub = hubOn(new Redis(process.env.TEST_REDIS_URL!));
    const woken = hub.wait('p1', 10_000);
    const other = hub.wait('p2', 300);
    // The subscription is made in the background: deliver until it is in place.
    let delivered: unknown;
    void woken.then((value) => (delivered = value));
    while (delivered === undefined) {
      await hub.publish({ id: 'p1', status: 'succeeded' });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(delivered).toEqual({ id: 'p1', status: 'succeeded' });
    await expect(other).resolves.toBeUndefined();
  });

  it('an aborted job stops waiting at once', async () => {
    const hub = hubOn(new Redis(process.env.TEST_REDIS_URL!));
    const controller = new AbortController();
    controller.abort();
    // Far beyond the test's own timeout: only an immediate answer passes.
    await expect(hub.wait('p3', 600_000, controller.signal)).resolves.toBeUndefined();
  });

  it('without Redis a wait still ends at its timeout (the job polls), it never rejects', async () => {
    // Nothing listens on port 1: the subscription fails after its retries.
    const hub = hubOn(
      new Redis('redis://127.0.0.1:1', {
        maxRetriesPerRequest: 1,
        retryStrategy: () => 50,
        lazyConnect: true,
      }),
    );
    await expect(hub.wait('p4', 1500)).resolves.toBeUndefined();
    await expect(hub.wait('p4', 200)).resolves.toBeUndefined();
  });
});
