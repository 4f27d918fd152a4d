import {
  Capability,
  CapabilityUnavailableError,
  CloneRequest,
  EncodedImage,
  EngineInputError,
  EngineStatus,
  FaceSwapRequest,
  FaceSwapVideoRequest,
  GenerateRequest,
  InferenceEngine,
  InpaintRequest,
  RunContext,
  SuperResolveRequest,
} from '../engine.port';
import { EngineLogger, silentLogger } from '../logger';
import { A1111Client, A1111Error, isRecord, noFaceError } from './a1111-client';
import { interruptedSinceBegin, newTaskId, stopTask, TaskWatch } from './a1111-task';
import { failedReadiness } from './remote-http';
import {
  checkGenerateSize,
  decodeBase64,
  FINISH_AS,
  finishImage,
  prepareImage,
  prepareMask,
  refuseUnchanged,
  roundTo8,
  upscaleFactor,
} from './remote-images';

/** The capabilities an Automatic1111-compatible server can offer. */
export const A1111_CAPABILITIES = ['generate', 'inpaint', 'superResolve', 'faceSwap'] as const;
export type A1111Capability = (typeof A1111_CAPABILITIES)[number];

/** Generation settings sent with every request (the server's names in the comments). */
export interface A1111Settings {
  /** steps */
  steps: number;
  /** cfg_scale */
  cfgScale: number;
  /** sampler_name; "Euler a" exists on every A1111, Forge and SD.Next */
  sampler: string;
  /** negative_prompt */
  negativePrompt: string;
  /** upscaler_1 of extra-single-image */
  upscaler: string;
  /** denoising_strength of inpainting */
  denoisingStrength: number;
  /** mask_blur (px) */
  maskBlur: number;
  /** inpaint_full_res_padding (px) around the masked area */
  inpaintPadding: number;
  /**
   * Long side of the working size for inpainting (multiple of 8): the masked area is cropped,
   * repainted at this size and pasted back. 512–768 for SD 1.5 models, 1024 for SDXL.
   */
  inpaintResolution: number;
  /** ReActor: face_restorer ("None", "CodeFormer", "GFPGAN") */
  faceRestorer: string;
  /** ReActor: swap model file name */
  reactorModel: string;
  /** ReActor: device ("CUDA" or "CPU"; older ReActor versions ignore it) */
  reactorDevice: string;
}

export const DEFAULT_A1111_SETTINGS: A1111Settings = {
  steps: 25,
  cfgScale: 7,
  sampler: 'Euler a',
  negativePrompt: '',
  upscaler: 'R-ESRGAN 4x+',
  denoisingStrength: 0.75,
  maskBlur: 4,
  inpaintPadding: 32,
  inpaintResolution: 768,
  faceRestorer: 'CodeFormer',
  reactorModel: 'inswapper_128.onnx',
  reactorDevice: 'CUDA',
};

export interface A1111EngineOptions {
  /** e.g. http://gpu-box:7860 (a path prefix is kept; credentials in the URL become basic auth) */
  baseUrl: string;
  /** HTTP basic auth, as the server's `--api-auth user:pass` */
  username?: string;
  password?: string;
  /** Bearer token, for a proxy in front of the server (not together with username/password) */
  token?: string;
  /**
   * Timeout of each request in ms (the whole answer, body included). For txt2img/img2img it
   * counts from when the server starts the request, not while it waits behind other clients'
   * requests (see queueTimeoutMs). Default 120000.
   */
  timeoutMs?: number;
  /** txt2img/img2img: longest wait behind other clients' requests on the server. Default 600000. */
  queueTimeoutMs?: number;
  /** Which capabilities to offer. Default: all four. */
  capabilities?: readonly A1111Capability[];
  /** Overrides of DEFAULT_A1111_SETTINGS */
  defaults?: Partial<A1111Settings>;
  /**
   * Extra fields merged into the request bodies, for settings this adapter does not name:
   * `{ txt2img: { override_settings: { sd_model_checkpoint: '…' }, scheduler: 'Karras' } }`.
   */
  extra?: {
    txt2img?: Record<string, unknown>;
    img2img?: Record<string, unknown>;
    extras?: Record<string, unknown>;
    reactor?: Record<string, unknown>;
  };
  /** Inputs larger than this per side are scaled down before sending. Default 2048. */
  maxInputSide?: number;
  /** How often to poll /sdapi/v1/progress while a call runs, in ms. Default 500. */
  progressIntervalMs?: number;
  /**
   * Treat a ReActor answer showing the target unchanged as "no face found" (what ReActor does
   * when it finds no face in either image). Default true.
   */
  detectUnchangedFaceSwap?: boolean;
  logger?: EngineLogger;
}

// Shared with the other remote engines; exported here as before.
export { MAX_GENERATE_SIDE, NO_FACE_EITHER } from './remote-images';

/**
 * The engine on a remote GPU server speaking the Automatic1111 web UI API (Automatic1111 with
 * `--api`, Forge, SD.Next): generate (txt2img), inpaint (img2img with a mask), superResolve
 * (extra-single-image) and faceSwap (the ReActor extension's /reactor/image).
 *
 * Failures: HTTP 4xx → EngineInputError (the job fails without retries), a missing route →
 * CapabilityUnavailableError, 401/403, 5xx, network errors, timeouts and garbled answers →
 * A1111Error (retried). Cancellation rejects with the signal's reason.
 *
 * Cancellation and timeouts stop only this job's work: txt2img/img2img carry a task id and are
 * interrupted only while /internal/progress shows that id running (see a1111-task.ts); upscaling
 * and ReActor requests cannot be told apart from other clients' and are abandoned, never
 * interrupted. An answer whose run was interrupted (by anyone) is a retryable failure, never a
 * result: it holds a half-denoised image.
 */
export class A1111Engine implements InferenceEngine {
  readonly name = 'a1111';
  readonly capabilities: ReadonlySet<Capability>;
  private readonly client: A1111Client;
  private readonly settings: A1111Settings;
  private readonly logger: EngineLogger;
  private readonly maxInputSide: number;
  private readonly progressIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly queueTimeoutMs: number;

  constructor(private readonly options: A1111EngineOptions) {
    this.logger = options.logger ?? silentLogger;
    const timeoutMs = options.timeoutMs ?? 120_000;
    if (!(timeoutMs > 0)) throw new Error('A1111 engine: timeoutMs must be positive');
    this.client = new A1111Client({
      baseUrl: options.baseUrl,
      username: options.username,
      password: options.password,
      token: options.token,
      timeoutMs,
      logger: this.logger,
    });
    const offered = options.capabilities ?? A1111_CAPABILITIES;
    for (const capability of offered) {
      if (!(A1111_CAPABILITIES as readonly string[]).includes(capability)) {
        throw new Error(`A1111 engine: unknown capability ${String(capability)}`);
      }
    }
    this.capabilities = new Set<Capability>(offered);
    this.settings = { ...DEFAULT_A1111_SETTINGS, ...options.defaults };
    this.maxInputSide = options.maxInputSide ?? 2048;
    this.progressIntervalMs = options.progressIntervalMs ?? 500;
    this.timeoutMs = timeoutMs;
    this.queueTimeoutMs = options.queueTimeoutMs ?? 600_000;
  }

  /** The server's address without credentials. */
  get url(): string {
    return this.client.url;
  }

  /**
   * Checks that the server answers and accepts the credentials (GET /sdapi/v1/options), and
   * that ReActor is installed when faceSwap is offered (warns otherwise). Rejects with an
   * A1111Error when the server cannot be used.
   */
  async warmup(): Promise<void> {
    const started = Date.now();
    await this.client.request('GET', '/sdapi/v1/options', undefined, { timeoutMs: 15_000 });
    if (this.capabilities.has('faceSwap')) {
      try {
        await this.client.request('GET', '/reactor/models', undefined, { timeoutMs: 15_000 });
      } catch (error) {
        this.logger.warn(
          `A1111 server ${this.url}: ReActor not reachable, face swaps will fail (${String(error)})`,
        );
      }
    }
    this.logger.log(`A1111 server ${this.url} answered in ${Date.now() - started} ms`);
  }

  /**
   * GET /sdapi/v1/options (answers, credentials accepted), the models the offered tools use
   * (/sdapi/v1/sd-models, /sdapi/v1/upscalers, /reactor/models, /sdapi/v1/face-restorers), and
   * /sdapi/v1/progress (busy or idle: the API lists no queue). Never rejects.
   */
  async status(): Promise<EngineStatus> {
    const get = (path: string) => this.client.request('GET', path, undefined, { timeoutMs: 5000 });
    try {
      await get('/sdapi/v1/options');
    } catch (error) {
      return {
        reachable: false,
        readiness: failedReadiness(error),
        detail: `A1111 at ${this.url} does not answer: ${(error as Error).message}`,
      };
    }
    /** Names from a list route; null: the route is missing (4xx); undefined: cannot tell. */
    const names = (path: string, key: string) =>
      get(path).then(
        (answer) => {
          const list = isRecord(answer) ? answer.models : answer;
          return Array.isArray(list)
            ? list.map((item) => String(isRecord(item) ? item[key] : item))
            : undefined;
        },
        (error: unknown) => (error instanceof EngineInputError ? null : undefined),
      );
    const has = this.capabilities;
    const s = this.settings;
    const [checkpoints, upscalers, reactorModels, restorers, progress] = await Promise.all([
      has.has('generate') || has.has('inpaint') ? names('/sdapi/v1/sd-models', 'title') : undefined,
      has.has('superResolve') ? names('/sdapi/v1/upscalers', 'name') : undefined,
      has.has('faceSwap') ? names('/reactor/models', 'name') : undefined,
      has.has('faceSwap') && s.faceRestorer !== 'None'
        ? names('/sdapi/v1/face-restorers', 'name')
        : undefined,
      get('/sdapi/v1/progress?skip_current_image=true').catch(() => undefined),
    ]);
    const missing: { capability: Capability; what: string }[] = [];
    for (const capability of ['generate', 'inpaint'] as const) {
      if (has.has(capability) && checkpoints?.length === 0)
        missing.push({ capability, what: 'a Stable Diffusion checkpoint' });
    }
    if (upscalers && !upscalers.includes(s.upscaler))
      missing.push({ capability: 'superResolve', what: `upscaler ${s.upscaler}` });
    if (reactorModels === null) missing.push({ capability: 'faceSwap', what: 'the ReActor extension' });
    else if (reactorModels && !reactorModels.includes(s.reactorModel))
      missing.push({ capability: 'faceSwap', what: `ReActor model ${s.reactorModel}` });
    if (restorers && !restorers.includes(s.faceRestorer))
      missing.push({ capability: 'faceSwap', what: `face restorer ${s.faceRestorer}` });
    const state = isRecord(progress) && isRecord(progress.state) ? progress.state : undefined;
    const busy = Number(state?.job_count ?? 0) > 0;
    return {
      reachable: true,
      readiness: missing.length > 0 ? 'models_missing' : 'ready',
      ...(missing.length > 0 && { missing }),
      detail: progress === undefined ? 'answers' : busy ? 'answers, busy with a request' : 'answers, idle',
    };
  }

  async generate(request: GenerateRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.require('generate');
    const { width, height } = request;
    checkGenerateSize(width, height);
    const s = this.settings;
    const body = {
      prompt: request.prompt,
      negative_prompt: s.negativePrompt,
      // Stable Diffusion works in multiples of 8; the result is stretched back to the request.
      width: roundTo8(width),
      height: roundTo8(height),
      steps: s.steps,
      cfg_scale: s.cfgScale,
      sampler_name: s.sampler,
      seed: -1,
      batch_size: 1,
      n_iter: 1,
      save_images: false,
      send_images: true,
      ...this.options.extra?.txt2img,
    };
    const answer = await this.call('generate', '/sdapi/v1/txt2img', body, context);
    const image = await finishImage(firstImage(answer, 'txt2img'), FINISH_AS.generated(width, height));
    return this.done(image, context);
  }

  async inpaint(request: InpaintRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.require('inpaint');
    const image = await prepareImage(request.image, this.maxInputSide);
    const mask = await prepareMask(request.mask, image.width, image.height);
    context.signal?.throwIfAborted();
    const s = this.settings;
    const scale = s.inpaintResolution / Math.max(image.width, image.height);
    const body = {
      init_images: [image.base64],
      mask: mask.base64,
      mask_blur: s.maskBlur,
      inpainting_fill: 1, // start from the original pixels under the mask
      inpaint_full_res: true, // repaint the masked area at full resolution, paste it back
      inpaint_full_res_padding: s.inpaintPadding,
      inpainting_mask_invert: 0,
      denoising_strength: s.denoisingStrength,
      resize_mode: 0,
      width: roundTo8(image.width * scale),
      height: roundTo8(image.height * scale),
      prompt: request.prompt,
      negative_prompt: s.negativePrompt,
      steps: s.steps,
      cfg_scale: s.cfgScale,
      sampler_name: s.sampler,
      seed: -1,
      batch_size: 1,
      n_iter: 1,
      include_init_images: false,
      save_images: false,
      send_images: true,
      ...this.options.extra?.img2img,
    };
    const answer = await this.call('inpaint', '/sdapi/v1/img2img', body, context);
    const result = await finishImage(firstImage(answer, 'img2img'), FINISH_AS.inpainted(image));
    return this.done(result, context);
  }

  async superResolve(request: SuperResolveRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.require('superResolve');
    const scale = upscaleFactor(request.scale);
    const image = await prepareImage(request.image, this.maxInputSide);
    context.signal?.throwIfAborted();
    const body = {
      image: image.base64,
      resize_mode: 0,
      upscaling_resize: scale,
      upscaler_1: this.settings.upscaler,
      upscaler_2: 'None',
      extras_upscaler_2_visibility: 0,
      gfpgan_visibility: 0,
      codeformer_visibility: 0,
      show_extras_results: true,
      ...this.options.extra?.extras,
    };
    const answer = await this.call('superResolve', '/sdapi/v1/extra-single-image', body, context);
    const result = await finishImage(stringField(answer, 'image', 'extra-single-image'), { format: 'png' });
    return this.done(result, context);
  }

  async faceSwap(request: FaceSwapRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.require('faceSwap');
    const [face, target] = await Promise.all([
      prepareImage(request.face, this.maxInputSide),
      prepareImage(request.target, this.maxInputSide),
    ]);
    context.signal?.throwIfAborted();
    const s = this.settings;
    const body = {
      source_image: face.base64,
      target_image: target.base64,
      source_faces_index: [0],
      face_index: [0],
      upscaler: 'None',
      scale: 1,
      upscale_visibility: 1,
      // Restoration comes after, through extras. ReActor answers only {image} (no swap count);
      // restored, an unswapped target can differ from the target too (swap_face enhances on its
      // gender-mismatch path without a swap; ComfyUI's node always restores), so only the bare
      // swap shows whether a face was swapped.
      face_restorer: 'None',
      restorer_visibility: 1,
      codeformer_weight: 0.5,
      restore_first: 1,
      model: s.reactorModel,
      device: s.reactorDevice,
      gender_source: 0,
      gender_target: 0,
      save_to_file: 0,
      result_file_path: '',
      ...this.options.extra?.reactor,
    };
    const answer = await this.call('faceSwap', '/reactor/image', body, context);
    // Forks may explain a failure next to (or instead of) the image.
    if (isRecord(answer)) {
      for (const key of ['error', 'detail', 'info', 'message']) {
        const value = answer[key];
        const noFace = typeof value === 'string' ? noFaceError(value) : undefined;
        if (noFace) throw noFace;
      }
    }
    const swapped = stringField(answer, 'image', 'reactor/image');
    if (this.options.detectUnchangedFaceSwap ?? true) {
      await refuseUnchanged(decodeBase64(swapped), target.base64);
    }
    const restored = await this.restoreFaces(swapped, context);
    const result = await finishImage(restored, FINISH_AS.faceSwapped);
    return this.done(result, context);
  }

  /**
   * The faces of a swapped image restored with `faceRestorer` (A1111's own CodeFormer/GFPGAN, the
   * ones ReActor would call) through /sdapi/v1/extra-single-image without upscaling.
   */
  private async restoreFaces(image: string, context: RunContext): Promise<string> {
    const restorer = this.settings.faceRestorer;
    if (!restorer || restorer === 'None') return image;
    const body = {
      image,
      resize_mode: 0,
      upscaling_resize: 1,
      upscaler_1: 'None',
      upscaler_2: 'None',
      extras_upscaler_2_visibility: 0,
      gfpgan_visibility: /gfpgan/i.test(restorer) ? 1 : 0,
      codeformer_visibility: /codeformer/i.test(restorer) ? 1 : 0,
      codeformer_weight: 0.5,
      show_extras_results: true,
    };
    const answer = await this.call('faceSwap', '/sdapi/v1/extra-single-image', body, context);
    return stringField(answer, 'image', 'extra-single-image');
  }

  async clone(_request: CloneRequest, _context?: RunContext): Promise<EncodedImage[]> {
    throw new CapabilityUnavailableError('clone');
  }

  async faceSwapVideo(_request: FaceSwapVideoRequest, _context?: RunContext): Promise<void> {
    throw new CapabilityUnavailableError('faceSwapVideo');
  }

  /** Aborts the calls in flight (they reject with a retryable A1111Error); later calls fail. */
  async close(): Promise<void> {
    this.client.close();
  }

  private require(capability: A1111Capability): void {
    if (!this.capabilities.has(capability)) throw new CapabilityUnavailableError(capability);
  }

  /**
   * One POST with progress, logging, and what an abandoned request needs: txt2img/img2img are
   * tracked by a task id (tracked()), the other routes are only abandoned.
   */
  private async call(
    capability: A1111Capability,
    path: string,
    body: object,
    context: RunContext,
  ): Promise<unknown> {
    if (path === '/sdapi/v1/txt2img' || path === '/sdapi/v1/img2img') {
      return this.tracked(capability, path, body, context);
    }
    const started = Date.now();
    const progress = context.onProgress
      ? this.client.pollProgress(context.onProgress, this.progressIntervalMs)
      : undefined;
    try {
      const answer = await this.client.request('POST', path, body, { signal: context.signal, capability });
      this.logger.log(`A1111 ${path} done in ${Date.now() - started} ms`);
      return answer;
    } catch (error) {
      // No interrupt: nothing tells this request apart from another client's, and
      // /sdapi/v1/interrupt would stop whichever runs. The server finishes it unread.
      if (!context.signal?.aborted) {
        this.logger.warn(`A1111 ${path} failed after ${Date.now() - started} ms: ${String(error)}`);
      }
      throw error;
    } finally {
      progress?.stop();
    }
  }

  /**
   * txt2img/img2img under a task id (force_task_id): its own progress, a run timeout that starts
   * when the server starts it, an interrupt of this request only when abandoned, and no result
   * from an interrupted run.
   */
  private async tracked(
    capability: A1111Capability,
    path: string,
    body: object,
    context: RunContext,
  ): Promise<unknown> {
    const started = Date.now();
    const taskId = newTaskId();
    const own = new AbortController();
    const signal = context.signal ? AbortSignal.any([context.signal, own.signal]) : own.signal;
    const watch = new TaskWatch({
      client: this.client,
      taskId,
      path,
      intervalMs: this.progressIntervalMs,
      runTimeoutMs: this.timeoutMs,
      queueTimeoutMs: this.queueTimeoutMs,
      onProgress: context.onProgress,
      onTimeout: (error) => own.abort(error),
    });
    let answer: unknown;
    try {
      answer = await this.client.request(
        'POST',
        path,
        { ...body, force_task_id: taskId },
        // The watch's deadlines decide; this one only catches a watch that cannot ask.
        { signal, capability, timeoutMs: this.queueTimeoutMs + this.timeoutMs },
      );
    } catch (error) {
      if (signal.aborted) {
        void stopTask(this.client, taskId, {
          intervalMs: this.progressIntervalMs,
          giveUpMs: this.queueTimeoutMs + this.timeoutMs,
        }).then(
          (how) => this.logger.log(`A1111 ${path} ${taskId} abandoned: ${how}`),
          (err: unknown) => this.logger.warn(`A1111 could not stop ${taskId}: ${String(err)}`),
        );
      } else {
        this.logger.warn(`A1111 ${path} failed after ${Date.now() - started} ms: ${String(error)}`);
      }
      // Our own deadline aborts with a timeout A1111Error; the caller's abort with its reason.
      throw context.signal?.aborted ? context.signal.reason : own.signal.aborted ? own.signal.reason : error;
    } finally {
      watch.stop();
    }
    // 200 with a half-denoised image is what an interrupted run answers. Seen while it ran, or
    // right after: the flag still set and nothing begun since (a new request would clear it).
    const after = await interruptedSinceBegin(this.client, { timeoutMs: 10_000 }).catch(() => undefined);
    if (watch.sawInterrupt || (after?.interrupted && after.idle)) {
      this.logger.warn(`A1111 ${path} ${taskId} was interrupted on the server: its image is not used`);
      throw new A1111Error('server', `The A1111 ${capability} run was interrupted on the server`);
    }
    this.logger.log(`A1111 ${path} done in ${Date.now() - started} ms`);
    return answer;
  }

  private done(image: EncodedImage, context: RunContext): EncodedImage {
    context.onProgress?.(1);
    return image;
  }
}

function firstImage(answer: unknown, what: string): string {
  const images = isRecord(answer) ? answer.images : undefined;
  if (!Array.isArray(images) || typeof images[0] !== 'string' || !images[0]) {
    throw new A1111Error('protocol', `A1111 ${what} answered without an image`);
  }
  return images[0];
}

function stringField(answer: unknown, key: string, what: string): string {
  const value = isRecord(answer) ? answer[key] : undefined;
  if (typeof value !== 'string' || !value)
    throw new A1111Error('protocol', `A1111 ${what} answered without an image`);
  return value;
}
