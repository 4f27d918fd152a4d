import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import sharp from 'sharp';
import {
  closeServer,
  gradientPng,
  listenLocally,
  paintMaskPng,
  patchFacePng,
  readBodyUpTo,
  restoreFacePng,
  sendHtmlError,
} from './fake-server-kit';

/**
 * A stand-in for an Automatic1111-compatible GPU server in tests: the same routes and JSON shapes,
 * deterministic images made with sharp instead of a model.
 *
 * - POST /sdapi/v1/txt2img: a gradient of width×height
 * - POST /sdapi/v1/img2img: init_images[0] with the mask's white area painted magenta
 * - POST /sdapi/v1/extra-single-image: the image resized by upscaling_resize
 * - POST /reactor/image: target_image with a green patch in its middle third (the "face"); with
 *   `noFace` set, target_image unchanged, as ReActor does when it finds no face
 * - one work request at a time, the others wait (the `queue_lock` of modules/api/api.py); a
 *   request whose client has gone is still worked on when its turn comes (FastAPI runs the
 *   endpoint to its end), only its answer is dropped
 * - txt2img/img2img take `force_task_id` and track it as modules/progress.py does:
 *   POST /internal/progress {id_task} → {active, queued, completed, progress, …}
 * - GET /sdapi/v1/progress: the running request's elapsed fraction of its delay, `state.job`,
 *   `state.interrupted` (set by an interrupt, cleared when the next request begins), and
 *   `current_task` null (api.py imports modules.progress.current_task by value, so the real
 *   server always answers null there)
 * - POST /sdapi/v1/interrupt is global: whatever txt2img/img2img runs, whoever sent it, stops at
 *   once and answers 200 with its half-denoised image (grey noise here, `HALF_DENOISED_MEAN`)
 * - GET /sdapi/v1/options, GET /reactor/models, GET /internal/ping
 * - anything else: 404 {"detail":"Not Found"}
 *
 * With `auth`, every route but /internal/ping wants that basic auth or bearer token (401
 * otherwise). Bodies over `bodyLimitBytes` get 413, bad JSON 422, undecodable images 500
 * (A1111's "Invalid encoded image").
 */
export interface FakeA1111Options {
  /** Default 0: a free port. */
  port?: number;
  auth?: { username: string; password: string } | { token: string };
  /** Default 32 MiB. */
  bodyLimitBytes?: number;
}

export interface RecordedRequest {
  method: string;
  /** Without the query string */
  path: string;
  query: string;
  /** Parsed JSON with long strings (base64 images) cut to their first 64 characters + "…(N chars)" */
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** What an interrupted sampler hands back in the fake: gaussian noise around this grey level. */
export const HALF_DENOISED_MEAN = 128;

/** Paths that do work (and so wait `delayMs`, and answer `failNext`). */
const WORK = new Set([
  '/sdapi/v1/txt2img',
  '/sdapi/v1/img2img',
  '/sdapi/v1/extra-single-image',
  '/reactor/image',
]);
const KEPT_CHARS = 64;
/** Work routes whose sampler an interrupt stops (the others finish regardless). */
const SAMPLING = new Set(['/sdapi/v1/txt2img', '/sdapi/v1/img2img']);

/** One work request, waiting for the lock or holding it. */
interface WorkJob {
  /** force_task_id (txt2img/img2img only), else a label like "/sdapi/v1/extra-single-image#3" */
  label: string;
  taskId?: string;
  path: string;
  delayMs: number;
  started?: number;
  interrupted: boolean;
  begin?: () => void;
  end?: () => void;
}

export class FakeA1111Server {
  /** Every request received, progress polls included, oldest first. */
  readonly requests: RecordedRequest[] = [];
  /** How long work routes take before answering, in ms. */
  delayMs = 0;
  /**
   * Models (and 'ReActor', the extension) the server lacks: left out of /sdapi/v1/sd-models,
   * /sdapi/v1/upscalers, /sdapi/v1/face-restorers and /reactor/models.
   */
  readonly missingModels = new Set<string>();
  /** ReActor finds no face: /reactor/image returns the target unchanged (but see restoreUnswapped). */
  noFace = false;
  /**
   * ReActor restores faces (face_restorer other than "None") even when it swapped none (as its
   * swap_face does on the gender-mismatch path, and ComfyUI's ReActor node always): with `noFace`
   * the target comes back restored, not unchanged.
   */
  restoreUnswapped = false;
  /** false: a server before 1.6, which ignores force_task_id (/internal/progress never knows it). */
  trackTasks = true;
  /**
   * A hung server (a wedged GPU driver, a proxy that keeps the socket): every request is read and
   * never answered, progress polls included, until reset() or close() drops the connections.
   */
  stall = false;
  /** Work routes answer 200 with bytes that are not an image (a truncated or corrupt result). */
  garbageImages = false;
  private readonly stalled = new Set<ServerResponse>();
  private readonly failures: { status: number; body: unknown }[] = [];
  /** Labels (force_task_id, or path#n) of the requests an interrupt stopped. */
  readonly interrupted: string[] = [];
  private current?: WorkJob;
  private readonly waiting: WorkJob[] = [];
  private readonly finishedTasks: string[] = [];
  private stateInterrupted = false;
  private counter = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly bodyLimit: number;

  private constructor(
    private server: Server,
    private readonly options: FakeA1111Options,
    /** http://127.0.0.1:port */
    readonly url: string,
  ) {
    this.bodyLimit = options.bodyLimitBytes ?? 32 * 1024 * 1024;
    this.listenTo(server);
  }

  private listenTo(server: Server): void {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch(() => res.destroy());
    });
  }

  /** The server goes down: its port closed, connections dropped (connection refused from now). */
  async down(): Promise<void> {
    await closeServer(this.server);
  }

  /** Back up on the same port after down(). */
  async up(): Promise<void> {
    const { server } = await listenLocally(Number(new URL(this.url).port));
    this.server = server;
    this.listenTo(server);
  }

  static async start(options: FakeA1111Options = {}): Promise<FakeA1111Server> {
    const { server, url } = await listenLocally(options.port);
    return new FakeA1111Server(server, options, url);
  }

  /**
   * The next work request answers `status` with `body` (JSON) instead of working; `body` 'html':
   * a reverse proxy's HTML error page (nginx's 502 when the server behind it fell over).
   */
  failNext(
    status: number,
    body: unknown = { error: 'HTTPException', detail: `Fake failure ${status}` },
  ): void {
    this.failures.push({ status, body });
  }

  /** The recorded requests to `path` (without query string). */
  requestsTo(path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  private has(names: string[]): string[] {
    return names.filter((name) => !this.missingModels.has(name));
  }

  /** The label of the request holding the lock (its force_task_id, else path#n). */
  get runningLabel(): string | undefined {
    return this.current?.label;
  }

  /** The labels of the requests waiting for the lock, first first. */
  get waitingLabels(): string[] {
    return this.waiting.map((job) => job.label);
  }

  /**
   * Another client's txt2img (no force_task_id) taking `delayMs`: its HTTP answer, once it comes.
   * Resolves when the request has reached the server.
   */
  async queueOther(delayMs: number): Promise<{ answer: Promise<{ images: string[] }> }> {
    const before = this.requests.length;
    const saved = this.delayMs;
    this.delayMs = delayMs;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    const auth = this.options.auth;
    if (auth) {
      headers.authorization =
        'token' in auth
          ? `Bearer ${auth.token}`
          : `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}`;
    }
    const answer = fetch(`${this.url}/sdapi/v1/txt2img`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'another client', width: 64, height: 64 }),
    }).then((r) => r.json() as Promise<{ images: string[] }>);
    answer.catch(() => undefined);
    while (!this.requests.slice(before).some((r) => r.path === '/sdapi/v1/txt2img')) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    this.delayMs = saved;
    return { answer };
  }

  /** Between tests: no request running or waiting, knobs back to their defaults, records emptied. */
  reset(): void {
    for (const job of [...this.waiting.splice(0), ...(this.current ? [this.current] : [])]) {
      job.interrupted = true;
      job.begin?.();
      job.end?.();
    }
    this.current = undefined;
    this.stateInterrupted = false;
    this.stall = false;
    this.garbageImages = false;
    for (const res of this.stalled) res.destroy();
    this.stalled.clear();
    this.requests.length = 0;
    this.interrupted.length = 0;
    this.failures.length = 0;
    this.delayMs = 0;
    this.noFace = false;
    this.restoreUnswapped = false;
    this.missingModels.clear();
    this.trackTasks = true;
  }

  async close(): Promise<void> {
    this.reset();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [path, query = ''] = (req.url ?? '/').split('?');
    const method = req.method ?? 'GET';
    const raw = await readBodyUpTo(req, this.bodyLimit);
    let body: unknown;
    let bodyError: string | undefined;
    if (raw === 'too large') {
      bodyError = 'too large';
    } else if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        bodyError = 'bad json';
      }
    }
    this.requests.push({ method, path, query, body: shorten(body), headers: req.headers });
    if (this.stall) {
      this.stalled.add(res);
      res.once('close', () => this.stalled.delete(res));
      return;
    }

    if (path !== '/internal/ping' && !this.authorized(req.headers.authorization)) {
      return send(
        res,
        401,
        { error: 'HTTPException', detail: 'Incorrect username or password' },
        {
          'www-authenticate': 'Basic',
        },
      );
    }
    if (bodyError === 'too large') return send(res, 413, { detail: 'Request body too large' });
    if (bodyError) {
      return send(res, 422, {
        detail: [{ loc: ['body'], msg: 'Invalid JSON', type: 'value_error.jsondecode' }],
      });
    }
    const work = method === 'POST' && WORK.has(path);
    const failure = work ? this.failures.shift() : undefined;
    if (failure) {
      if (failure.body === 'html') return sendHtmlError(res, failure.status);
      return send(res, failure.status, failure.body);
    }

    try {
      const request = isObject(body) ? body : {};
      if (work) {
        const job = await this.work(path, request);
        if (job.interrupted && SAMPLING.has(path)) return send(res, 200, await halfDenoised(request));
      }
      if (res.destroyed) return;
      if (work && this.garbageImages) {
        const garbage = Buffer.from('\x89PNG\r\n\x1a\n not really an image').toString('base64');
        return send(res, 200, { images: [garbage], image: garbage, parameters: request, info: '{}' });
      }
      const answer = await this.route(method, path, request);
      if (!answer) return send(res, 404, { detail: 'Not Found' });
      send(res, answer.status ?? 200, answer.body);
    } catch (error) {
      if (res.destroyed) return;
      // modules/api/api.py handle_exception: the class name in `error`, the message in `errors`.
      send(res, 500, {
        error: error instanceof Error ? error.name : 'Exception',
        detail: '',
        body: '',
        errors: error instanceof Error ? error.message : String(error),
      });
    }
  }

  private async route(
    method: string,
    path: string,
    body: Record<string, unknown>,
  ): Promise<{ status?: number; body: unknown } | undefined> {
    const route = `${method} ${path}`;
    switch (route) {
      case 'GET /internal/ping':
        return { body: {} };
      case 'GET /sdapi/v1/options':
        return { body: { sd_model_checkpoint: 'fake.safetensors', samples_format: 'png' } };
      case 'GET /reactor/models':
        if (this.missingModels.has('ReActor')) return undefined; // the extension not installed: 404
        return { body: { models: this.has(['inswapper_128.onnx']) } };
      case 'GET /sdapi/v1/sd-models':
        return {
          body: this.has(['fake.safetensors']).map((name) => ({
            title: `${name} [0123456789]`,
            model_name: name.replace(/\.safetensors$/, ''),
            filename: `/models/Stable-diffusion/${name}`,
          })),
        };
      case 'GET /sdapi/v1/upscalers':
        return {
          body: this.has(['None', 'Lanczos', 'R-ESRGAN 4x+']).map((name) => ({ name, scale: 4 })),
        };
      case 'GET /sdapi/v1/face-restorers':
        return { body: this.has(['CodeFormer', 'GFPGAN']).map((name) => ({ name, cmd_dir: null })) };
      case 'POST /sdapi/v1/interrupt':
        // shared.state.interrupt(): global, whoever's request runs.
        this.stateInterrupted = true;
        if (this.current && SAMPLING.has(this.current.path) && !this.current.interrupted) {
          this.current.interrupted = true;
          this.interrupted.push(this.current.label);
          this.current.end?.();
        }
        return { body: {} };
      case 'GET /sdapi/v1/progress':
        return { body: this.progress() };
      case 'POST /internal/progress':
        return { body: this.taskProgress(typeof body.id_task === 'string' ? body.id_task : '') };
      case 'POST /sdapi/v1/txt2img': {
        const width = int(body.width, 512);
        const height = int(body.height, 512);
        if (!width || !height || width > 4096 || height > 4096)
          return invalid('width/height', 'invalid size');
        return { body: { images: [await gradient(width, height)], parameters: body, info: '{}' } };
      }
      case 'POST /sdapi/v1/img2img': {
        const init = Array.isArray(body.init_images) ? body.init_images[0] : undefined;
        if (typeof init !== 'string') return { status: 404, body: { detail: 'Init image not found' } };
        const image = await paintMask(
          decodeImage(init),
          typeof body.mask === 'string' ? decodeImage(body.mask) : undefined,
        );
        return { body: { images: [image], parameters: {}, info: '{}' } };
      }
      case 'POST /sdapi/v1/extra-single-image': {
        if (typeof body.image !== 'string') return invalid('image', 'field required');
        const factor = typeof body.upscaling_resize === 'number' ? body.upscaling_resize : 2;
        let image = await upscale(decodeImage(body.image), factor);
        // The extras' face restoration (codeformer_visibility / gfpgan_visibility above 0).
        if (Number(body.codeformer_visibility ?? 0) > 0 || Number(body.gfpgan_visibility ?? 0) > 0) {
          image = (await restoreFacePng(Buffer.from(image, 'base64'))).toString('base64');
        }
        return { body: { image, html_info: '' } };
      }
      case 'POST /reactor/image': {
        if (typeof body.source_image !== 'string' || typeof body.target_image !== 'string') {
          return invalid('source_image', 'field required');
        }
        decodeImage(body.source_image);
        const target = decodeImage(body.target_image);
        const restorer = typeof body.face_restorer === 'string' ? body.face_restorer : 'None';
        const restores = restorer !== 'None' && (!this.noFace || this.restoreUnswapped);
        let image = this.noFace ? await reencode(target) : await patchFace(target);
        if (restores) image = (await restoreFacePng(Buffer.from(image, 'base64'))).toString('base64');
        return { body: { image } };
      }
      default:
        return undefined;
    }
  }

  private authorized(header: string | undefined): boolean {
    const auth = this.options.auth;
    if (!auth) return true;
    if ('token' in auth) return header === `Bearer ${auth.token}`;
    const expected = Buffer.from(`${auth.username}:${auth.password}`).toString('base64');
    return header === `Basic ${expected}`;
  }

  /** The running request's elapsed fraction of its delay (below 1), 0 when idle. */
  private fraction(): number {
    const job = this.current;
    if (!job?.started) return 0;
    return job.delayMs > 0 ? Math.min(0.99, (Date.now() - job.started) / job.delayMs) : 0.99;
  }

  /** Like A1111: 0 and job_count 0 when idle, else the running job's fraction. */
  private progress(): Record<string, unknown> {
    const progress = this.fraction();
    const busy = this.current !== undefined;
    return {
      progress,
      eta_relative: busy ? Math.max(0, (1 - progress) * 10) : 0,
      state: {
        skipped: false,
        interrupted: this.stateInterrupted,
        job: busy ? 'scripts_txt2img' : '',
        job_count: busy ? 1 : 0,
        job_no: 0,
      },
      current_image: null,
      textinfo: null,
      current_task: null,
    };
  }

  /** modules/progress.py progressapi: this task's place (running, waiting, done) and progress. */
  private taskProgress(id: string): Record<string, unknown> {
    const active = id !== '' && this.current?.taskId === id;
    const queued = this.waiting.some((job) => job.taskId === id);
    const completed = this.finishedTasks.includes(id);
    if (!active) {
      return {
        active,
        queued,
        completed,
        id_live_preview: -1,
        textinfo: queued ? 'In queue...' : 'Waiting...',
      };
    }
    const progress = this.fraction();
    return {
      active,
      queued,
      completed,
      progress,
      eta: 1,
      live_preview: null,
      id_live_preview: -1,
      textinfo: null,
    };
  }

  /**
   * Waits for the lock, then holds it `delayMs` (less when interrupted). Whether the client is
   * still there does not matter, as on the real server.
   */
  private async work(path: string, body: Record<string, unknown>): Promise<WorkJob> {
    const taskId =
      this.trackTasks && SAMPLING.has(path) && typeof body.force_task_id === 'string' && body.force_task_id
        ? body.force_task_id
        : undefined;
    const job: WorkJob = {
      label: taskId ?? `${path}#${++this.counter}`,
      taskId,
      path,
      delayMs: this.delayMs,
      interrupted: false,
    };
    await new Promise<void>((resolve) => {
      job.begin = resolve;
      this.waiting.push(job);
      this.pump();
    });
    if (!job.interrupted) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => job.end?.(), job.delayMs);
        this.timers.add(timer);
        job.end = () => {
          clearTimeout(timer);
          this.timers.delete(timer);
          resolve();
        };
      });
    }
    if (this.current === job) {
      this.current = undefined;
      if (taskId) this.finishedTasks.push(taskId);
      this.pump();
    }
    return job;
  }

  /** The next waiting request takes the lock (shared.state.begin clears `interrupted`). */
  private pump(): void {
    if (this.current) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.current = next;
    next.started = Date.now();
    this.stateInterrupted = false;
    next.begin?.();
  }
}

/** Starts a fake Automatic1111 server on 127.0.0.1. */
export function startFakeA1111(options: FakeA1111Options = {}): Promise<FakeA1111Server> {
  return FakeA1111Server.start(options);
}

/** What an interrupted txt2img/img2img answers: 200 with the half-denoised image (noise here). */
async function halfDenoised(body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const width = int(body.width, 512) || 512;
  const height = int(body.height, 512) || 512;
  const image = await sharp({
    create: {
      width,
      height,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: HALF_DENOISED_MEAN, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  return { images: [image.toString('base64')], parameters: {}, info: '{}' };
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body ?? null);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function invalid(field: string, msg: string) {
  return { status: 422, body: { detail: [{ loc: ['body', field], msg, type: 'value_error' }] } };
}

/** A copy of a parsed JSON body with long strings shortened. */
function shorten(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length > KEPT_CHARS * 2 ? `${value.slice(0, KEPT_CHARS)}…(${value.length} chars)` : value;
  }
  if (Array.isArray(value)) return value.map(shorten);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function int(value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

class InvalidImage extends Error {
  constructor() {
    super('Invalid encoded image');
  }
}

function decodeImage(base64: string): Buffer {
  const comma = base64.startsWith('data:') ? base64.indexOf(',') : -1;
  const bytes = Buffer.from(comma >= 0 ? base64.slice(comma + 1) : base64, 'base64');
  if (bytes.length === 0) throw new InvalidImage();
  return bytes;
}

async function png(pipeline: sharp.Sharp): Promise<string> {
  try {
    return (await pipeline.png().toBuffer()).toString('base64');
  } catch {
    throw new InvalidImage();
  }
}

async function gradient(width: number, height: number): Promise<string> {
  return (await gradientPng(width, height)).toString('base64');
}

async function paintMask(image: Buffer, mask: Buffer | undefined): Promise<string> {
  if (!mask) return reencode(image);
  try {
    return (await paintMaskPng(image, mask, true)).toString('base64');
  } catch {
    throw new InvalidImage();
  }
}

async function upscale(image: Buffer, factor: number): Promise<string> {
  try {
    const { width = 0, height = 0 } = await sharp(image).metadata();
    return await png(
      sharp(image).resize(Math.round(width * factor), Math.round(height * factor), { fit: 'fill' }),
    );
  } catch {
    throw new InvalidImage();
  }
}

async function patchFace(image: Buffer): Promise<string> {
  try {
    return (await patchFacePng(image)).toString('base64');
  } catch {
    throw new InvalidImage();
  }
}

function reencode(image: Buffer): Promise<string> {
  return png(sharp(image));
}
