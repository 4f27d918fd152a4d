import { getPriority } from 'node:os';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { RunContext } from '../engine.port';
import { PooledCpuEngine, PooledCpuEngineOptions } from './engine-pool';

/** A pool whose background warm-up waits for the test (warmupGate), with its spin task reachable. */
class GatedPool extends PooledCpuEngine {
  readonly gate: Int32Array;
  constructor(options: PooledCpuEngineOptions = {}) {
    const gate = new Int32Array(new SharedArrayBuffer(4));
    super({ size: 1, warmup: true, ...options, testHooks: true, warmupGate: gate });
    this.gate = gate;
  }
  openGate(): void {
    Atomics.store(this.gate, 0, 1);
    Atomics.notify(this.gate, 0);
  }
  spin(context?: RunContext) {
    return this.runTestTask<{ threadId: number; nice: number }>('test:spin', { steps: 1 }, context);
  }
}

const fixtures = path.resolve(__dirname, '../../fixtures');

const image = () =>
  sharp({ create: { width: 48, height: 32, channels: 3, background: '#806040' } })
    .png()
    .toBuffer();

describe('PooledCpuEngine: a thread takes tasks before its models are loaded', () => {
  jest.setTimeout(180_000);

  describe('with its background warm-up held', () => {
    const pool = new GatedPool();
    afterAll(() => pool.close());

    it('clones while no model is loaded, and is ready (readiness) meanwhile', async () => {
      const copies = await pool.clone({ image: await image(), amount: 1 });
      expect(copies).toHaveLength(1);
      expect(pool.state()).toBe('ready');
      expect(pool.loadedModels()).toEqual([]);
    });

    it("checks content with the classifier and face models alone: not the super-resolution model nor OpenCV's", async () => {
      const [report] = await pool.inspectContent({
        images: [await readFile(path.join(fixtures, 'ai-face.jpg'))],
      });
      expect(report.faces.length).toBeGreaterThanOrEqual(1);
      expect(pool.loadedModels().sort()).toEqual(['contentClassifier', 'faces']);
    });

    it('loads a tool’s own model on its first use', async () => {
      const small = await sharp(await image())
        .resize(16, 16)
        .png()
        .toBuffer();
      const result = await pool.superResolve({ image: small, scale: 2 });
      expect(result).toMatchObject({ width: 32, height: 32 });
      expect(pool.loadedModels()).toContain('superResolution');
      expect(pool.loadedModels()).not.toContain('opencv');
    });
  });

  describe('its warm-up and its nice', () => {
    const increment = 3;
    const pool = new GatedPool({ niceIncrement: increment });
    afterAll(() => pool.close());

    it('runs at the process’s priority until the content check’s models are loaded in the background, then at the pool’s', async () => {
      const base = getPriority(0);
      const before = await pool.spin();
      expect(before.nice).toBe(base);
      expect(pool.loadedModels()).toEqual([]);
      pool.openGate();
      await pool.warmup(); // resolves once the thread has loaded them in the background
      expect(pool.loadedModels().sort()).toEqual(['contentClassifier', 'faces']);
      const after = await pool.spin();
      expect(after.threadId).toBe(before.threadId);
      expect(after.nice).toBe(Math.min(19, base + increment));
    });
  });
});
