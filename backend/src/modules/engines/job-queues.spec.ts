import { loadConfig } from '../../config/app-config';
import { concurrencyOf } from './job-queues';

describe("a worker's jobs at once per tool queue (concurrencyOf)", () => {
  const config = (env: Record<string, string>) =>
    loadConfig({
      NODE_ENV: 'test',
      MONGODB_URI: 'mongodb://127.0.0.1:1/unused',
      REDIS_URL: 'redis://127.0.0.1:1',
      ...env,
    });

  it('takes no more jobs of a local tool than the engine pool has threads to start', () => {
    const small = config({
      ENGINE_POOL_SIZE: '1',
      JOB_CONCURRENCY_CLONE: '2',
      JOB_CONCURRENCY_FACE_SWAP_VIDEO: '3',
    });
    expect(concurrencyOf(small, 'clone')).toBe(1);
    expect(concurrencyOf(small, 'faceSwapVideo')).toBe(1);
    const large = config({ ENGINE_POOL_SIZE: '7', JOB_CONCURRENCY_CLONE: '2' });
    expect(concurrencyOf(large, 'clone')).toBe(2); // the operator's limit, within the pool
  });

  it('keeps the configured concurrency of a tool on a remote engine (the pool does not run it)', () => {
    const gpu = config({
      ENGINE_POOL_SIZE: '1',
      ENGINE_SUPER_RESOLUTION: 'a1111',
      A1111_URL: 'http://127.0.0.1:7860',
      JOB_CONCURRENCY_SUPER_RESOLUTION: '4',
    });
    expect(concurrencyOf(gpu, 'superResolution')).toBe(4);
  });
});
