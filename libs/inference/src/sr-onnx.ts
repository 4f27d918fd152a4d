import type { InferenceSession } from 'onnxruntime-node';

/** The runtimes super resolution can run its model on (issue 24: measured side by side). */
export type SrRuntime = 'onnx' | 'tfjs-wasm';

/** A loaded super-resolution network: one tile in, the tile `scale` times larger out. */
export interface SrModel {
  readonly runtime: SrRuntime;
  readonly scale: number;
  /** `patch`: RGB floats 0..1, row-major HWC, `width` x `height`. Returns HWC floats of the scaled tile. */
  run(patch: Float32Array, width: number, height: number): Promise<Float32Array>;
  close(): Promise<void>;
}

/** See watchNativeRuns. */
let nativeRunFlag: Int32Array | undefined;

/**
 * Makes this thread's onnxruntime runs visible to another thread: `flag[0]` is 1 from just before a
 * run to just after it, 0 otherwise (Atomics on a SharedArrayBuffer). A worker pool that terminates
 * a thread which ignores a cancel must wait while it is 1: terminating a worker thread in the middle
 * of onnxruntime's synchronous run aborts the whole process (onnxruntime-node 1.30). `undefined` stops.
 */
export function watchNativeRuns(flag: Int32Array | undefined): void {
  nativeRunFlag = flag;
}

/**
 * The compact model on onnxruntime-node's CPU provider, from the .onnx that `ensure_sr_models`
 * (deploy/local/lib.sh) writes from the same ncnn weights. `Run` is synchronous native code: it
 * blocks the calling thread (a pool worker) for one tile, so cancellation is checked between tiles.
 * Never `terminate()` a worker thread while a tile runs: when the run returns into a terminating
 * thread the binding throws in C++ and the whole process aborts (onnxruntime-node 1.30).
 */
export class OnnxSrModel implements SrModel {
  readonly runtime = 'onnx';

  private constructor(
    private readonly ort: typeof import('onnxruntime-node'),
    private readonly session: InferenceSession,
    readonly scale: number,
  ) {}

  /** `threads`: onnxruntime's intra-op threads for this session (the pool sizes these). */
  static async load(file: string, threads: number): Promise<OnnxSrModel> {
    // loaded here, not at import: a machine without the native binary falls back to tfjs-wasm
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(file, {
      executionProviders: ['cpu'],
      intraOpNumThreads: threads,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    // the scale from one tiny run, so the file alone defines the model
    const probe = await session.run({
      input: new ort.Tensor('float32', new Float32Array(3 * 4 * 4), [1, 3, 4, 4]),
    });
    const scale = Number(probe[session.outputNames[0]].dims[3]) / 4;
    return new OnnxSrModel(ort, session, scale);
  }

  async run(patch: Float32Array, width: number, height: number): Promise<Float32Array> {
    const plane = width * height;
    const chw = new Float32Array(plane * 3);
    for (let p = 0, k = 0; p < plane; p++, k += 3) {
      chw[p] = patch[k];
      chw[plane + p] = patch[k + 1];
      chw[2 * plane + p] = patch[k + 2];
    }
    const input = new this.ort.Tensor('float32', chw, [1, 3, height, width]);
    const flag = nativeRunFlag;
    if (flag) Atomics.store(flag, 0, 1);
    let result: InferenceSession.ReturnType;
    try {
      result = await this.session.run({ [this.session.inputNames[0]]: input });
    } finally {
      if (flag) Atomics.store(flag, 0, 0);
    }
    const output = result[this.session.outputNames[0]];
    try {
      const data = output.data as Float32Array;
      const outPlane = plane * this.scale * this.scale;
      const hwc = new Float32Array(outPlane * 3);
      for (let p = 0, k = 0; p < outPlane; p++, k += 3) {
        hwc[k] = data[p];
        hwc[k + 1] = data[outPlane + p];
        hwc[k + 2] = data[2 * outPlane + p];
      }
      return hwc;
    } finally {
      output.dispose();
    }
  }

  async close(): Promise<void> {
    await this.session.release();
  }
}

/**
 * Multiply-adds per input pixel of an ncnn network whose convolutions all run at the input's
 * resolution with stride 1 (the compact SR model: the pixel shuffle comes last): each weight is
 * used once per pixel, so it is the sum of the convolutions' weight counts. Read from the layer
 * shapes of the .param file, so a different model gives its own figure.
 */
export function ncnnMacsPerPixel(param: string): number {
  let macs = 0;
  for (const line of param.split('\n').slice(2)) {
    const [type, , , , ...rest] = line.trim().split(/\s+/);
    if (type !== 'Convolution') continue;
    const args = Object.fromEntries(rest.filter((a) => /^\d+=/.test(a)).map((a) => a.split('=')));
    if ((args['3'] ?? '1') !== '1') throw new Error(`strided convolution: ${line}`);
    macs += Number(args['6']);
  }
  return macs;
}
