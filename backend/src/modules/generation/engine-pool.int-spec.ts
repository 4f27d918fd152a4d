import sharp from 'sharp';
import { JobMessages, JobSocketEvents, type JobView } from '@studio/contracts';
import {
  PooledCpuEngine,
  type EncodedImage,
  type RunContext,
  type SuperResolveRequest,
} from '@studio/inference';
import {
  balanceOf,
  connectSocket,
  eventually,
  grantCredits,
  ledgerKindsOf,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { EngineRegistry } from '../engines';

/**
 * Pool engines whose super resolution is one of the pool's test tasks (reachable only with
 * testHooks, which the app never sets): a thread that spins until released, or one that dies.
 */
class SpinningPool extends PooledCpuEngine {
  /** Set [0] to 1 to let the running spin end. */
  readonly release = new Int32Array(new SharedArrayBuffer(4));
  /** Progress messages relayed from the spinning thread to this (the API's) thread. */
  relayed = 0;
  private startedSpin?: () => void;
  readonly spinning = new Promise<void>((resolve) => (this.startedSpin = resolve));

  constructor() {
    super({ size: 1, warmup: false, testHooks: true });
  }

  override async superResolve(request: SuperResolveRequest, context: RunContext = {}): Promise<EncodedImage> {
    await this.runTestTask(
      'test:spin',
      { release: this.release, stepMs: 20 },
      {
        ...context,
        onProgress: (fraction) => {
          this.relayed++;
          this.startedSpin?.();
          context.onProgress?.(fraction);
        },
      },
    );
    const data = await sharp(request.image).png().toBuffer();
    const { width = 0, height = 0 } = await sharp(data).metadata();
    return { data, format: 'png', width, height };
  }
}

class DyingPool extends PooledCpuEngine {
  calls = 0;
  constructor() {
    super({ size: 1, warmup: false, testHooks: true });
  }
  override superResolve(): Promise<EncodedImage> {
    this.calls++;
    return this.runTestTask('test:exit', {});
  }
}

describe('engines run off the event loop (engine pool in the app)', () => {
  let t: TestApp;
  let registry: EngineRegistry;
  let image: Buffer;

  beforeAll(async () => {
    t = await startTestApp({ JOB_WAIT_MS: '0' });
    registry = t.app.get(EngineRegistry);
    image = await sharp({ create: { width: 16, height: 16, channels: 3, background: '#468' } })
      .png()
      .toBuffer();
  }, 60_000);
  afterAll(() => t?.close());

  async function submit(user: Client): Promise<string> {
    const res = await user.agent
      .post('/api/superResolution')
      .field('author', user.username)
      .attach('original', image, 'small.png');
    expect(res.body.message).toBe('processing');
    return (res.body.content.job as JobView)._id;
  }

  const jobOf = async (user: Client, jobId: string) =>
    (await user.agent.get(`/api/jobs/${jobId}`)).body.content as JobView;

  it('local tools run on the pool by default', () => {
    for (const tool of ['clone', 'superResolution', 'faceSwap', 'inpaint', 'faceSwapVideo'] as const) {
      expect(registry.engineFor(tool)).toBeInstanceOf(PooledCpuEngine);
    }
  });

  it('answers GET /api/health again and again while an engine task spins in the pool', async () => {
    const pool = new SpinningPool();
    registry.override('superResolution', pool);
    try {
      const user = await signIn(t, uniqueName('spin'));
      await grantCredits(t, user.username, 10);
      const socket = await connectSocket(t, user.cookie);
      let progressPushes = 0;
      socket.on(JobSocketEvents.progress, () => progressPushes++);
      const jobId = await submit(user);
      await pool.spinning;

      // The thread spins (synchronously, 20 ms steps) until released: every answer below comes
      // while the job is still running, and the thread's progress keeps coming in between.
      const relayedAt: number[] = [];
      for (let i = 0; i < 25; i++) {
        const res = await user.agent.get('/api/health');
        expect(res.status).toBe(200);
        relayedAt.push(pool.relayed);
      }
      expect((await jobOf(user, jobId)).state).toBe('running');
      expect(relayedAt.at(-1)!).toBeGreaterThan(relayedAt[0]);
      // The socket pushes progress while the engine computes.
      await eventually(async () => expect(progressPushes).toBeGreaterThan(0));

      Atomics.store(pool.release, 0, 1);
      const done = await eventually(async () => {
        const job = await jobOf(user, jobId);
        expect(job.state).toBe('succeeded');
        return job;
      }, 30_000);
      expect(done.items).toHaveLength(1);
      socket.close();
    } finally {
      registry.override('superResolution', null);
      await pool.close();
    }
  });

  it('fails a job whose engine thread dies, without retries, and refunds it exactly', async () => {
    const pool = new DyingPool();
    registry.override('superResolution', pool);
    try {
      const user = await signIn(t, uniqueName('crash'));
      await grantCredits(t, user.username, 10);
      const jobId = await submit(user);
      const failed = await eventually(async () => {
        const job = await jobOf(user, jobId);
        expect(job.state).toBe('failed');
        return job;
      }, 30_000);
      expect(failed.error).toBe(JobMessages.engineCrashed);
      expect(pool.calls).toBe(1); // permanent: Bull does not try again
      await eventually(async () => expect(await balanceOf(user)).toBe(10));
      expect(await ledgerKindsOf(user, jobId)).toEqual(['refund', 'reservation']);
    } finally {
      registry.override('superResolution', null);
      await pool.close();
    }
  });
});
