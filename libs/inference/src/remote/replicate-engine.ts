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
import { errorDetail, isRecord, noFaceError } from './a1111-client';
import {
  checkGenerateSize,
  FINISH_AS,
  prepareImage,
  prepareMask,
  roundTo8,
  PreparedImage,
  upscaleFactor,
} from './remote-images';
import {
  finishRemoteFaceSwap,
  finishRemoteImage,
  parseJson,
  RemoteAnswer,
  RemoteEngineError,
  RemoteHttp,
  sleep,
  statusError,
  untilAborted,
  failedReadiness,
} from './remote-http';

const ENGINE = 'Replicate';
/** Where Replicate serves prediction output files (https://replicate.delivery/…). */
const REPLICATE_FILES_HOST = 'replicate.delivery';
/**
 * Inputs up to this size go inline as data URLs; larger ones through the files API. Replicate
 * recommends data URLs only for small files (about 1 MB); its clients refuse them past 10 MB.
 */
export const DATA_URL_MAX_BYTES = 1_000_000;

export const REPLICATE_TOOLS = ['generate', 'inpaint', 'superResolve', 'faceSwap'] as const;
export type ReplicateTool = (typeof REPLICATE_TOOLS)[number];

/** Pushed prediction updates (the studio's webhook route), so a job need not poll often. */
export interface PredictionUpdates {
  /** Resolves with the prediction the webhook delivered, or undefined after `timeoutMs`. */
  wait(predictionId: string, timeoutMs: number, signal?: AbortSignal): Promise<unknown>;
}

export interface ReplicateEngineOptions {
  token: string;
  /** Default https://api.replicate.com */
  apiUrl?: string;
  /**
   * The model per tool: `owner/name:version`, a bare version id, or `owner/name` (the model's
   * latest version, for official models). A tool without one is not offered.
   */
  models: Partial<Record<ReplicateTool, string>>;
  /** Extra input fields per tool, merged over the studio's (model-specific settings). */
  inputs?: Partial<Record<ReplicateTool, Record<string, unknown>>>;
  /** Where Replicate should POST the finished prediction (the studio's webhook route). */
  webhookUrl?: string;
  updates?: PredictionUpdates;
  /** Polling without a webhook, ms. Default 1000. */
  pollIntervalMs?: number;
  /** Polling as a safety net with a webhook, ms. Default 15000. */
  webhookPollIntervalMs?: number;
  /** A whole prediction, ms. Default 600000. */
  jobTimeoutMs?: number;
  requestTimeoutMs?: number;
  /**
   * 429s waited out before the job's own retry takes over: for their Retry-After, else with
   * exponential back-off (see rateLimitBackoffMs). Default 8 (about 2.5 min without Retry-After).
   */
  rateLimitRetries?: number;
  /** First wait after a 429 without Retry-After, ms; doubled each time, with jitter. Default 2000. */
  rateLimitBackoffMs?: number;
  /** Longest single wait for a 429, ms. Default 30000. */
  maxRetryAfterMs?: number;
  maxInputSide?: number;
  logger?: EngineLogger;
}

/** A prediction's fields this engine reads. */
interface Prediction {
  id: string;
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  output?: unknown;
  error?: unknown;
  logs?: unknown;
}

/**
 * The InferenceEngine on Replicate's predictions API: POST /v1/predictions (images as data URLs),
 * followed by the webhook (when the studio has a public address) or by polling
 * GET /v1/predictions/{id}; the output file downloaded; POST …/cancel when abandoned.
 */
export class ReplicateEngine implements InferenceEngine {
  readonly name = 'replicate';
  readonly capabilities: ReadonlySet<Capability>;
  private readonly http: RemoteHttp;
  private readonly logger: EngineLogger;

  constructor(private readonly options: ReplicateEngineOptions) {
    this.http = new RemoteHttp({
      engine: ENGINE,
      baseUrl: options.apiUrl ?? 'https://api.replicate.com',
      headers: { authorization: `Bearer ${options.token}` },
      timeoutMs: options.requestTimeoutMs ?? 30_000,
    });
    this.capabilities = new Set<Capability>(REPLICATE_TOOLS.filter((tool) => options.models[tool]));
    this.logger = options.logger ?? silentLogger;
  }

  get url(): string {
    return this.http.url;
  }

  /**
   * GET /v1/account (the token works), then each tool's model: GET /v1/models/{owner}/{name}
   * (/versions/{id} for a pinned version; a bare version id cannot be looked up). A 404 is a
   * model missing (or not visible to this account). Replicate shows no queue. Never rejects.
   */
  async status(): Promise<EngineStatus> {
    let detail: string;
    try {
      const answer = await this.http.send('GET', '/v1/account', { timeoutMs: 5000 });
      const account = this.expectOk(answer, 'GET /v1/account');
      const name = isRecord(account) ? String(account.username ?? account.name ?? '?') : '?';
      detail = `account ${name}`;
    } catch (error) {
      // Busy is not down: jobs wait out 429s themselves.
      if (error instanceof RemoteEngineError && error.kind === 'rate_limited') {
        return { reachable: true, detail: 'answers, but is rate limiting this account' };
      }
      return {
        reachable: false,
        readiness: failedReadiness(error),
        detail: `Replicate at ${this.url} does not answer: ${(error as Error).message}`,
      };
    }
    const checks = REPLICATE_TOOLS.filter((tool) => this.options.models[tool]).map(async (tool) => {
      const model = this.options.models[tool]!;
      const path = modelPath(model);
      if (!path) return undefined;
      const answer = await this.http.send('GET', path, { timeoutMs: 5000 }).catch(() => undefined);
      return answer?.status === 404 ? { capability: tool as Capability, what: `model ${model}` } : undefined;
    });
    const missing = (await Promise.all(checks)).filter((m) => m !== undefined);
    return {
      reachable: true,
      readiness: missing.length > 0 ? 'models_missing' : 'ready',
      ...(missing.length > 0 && { missing }),
      detail,
    };
  }

  async generate(request: GenerateRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.model('generate');
    const { width, height } = request;
    checkGenerateSize(width, height);
    const bytes = await this.predict(
      'generate',
      { prompt: request.prompt, width: roundTo8(width), height: roundTo8(height) },
      context,
    );
    return this.done(await finishRemoteImage(ENGINE, bytes, FINISH_AS.generated(width, height)), context);
  }

  async inpaint(request: InpaintRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.model('inpaint');
    const image = await prepareImage(request.image, this.options.maxInputSide ?? 2048);
    const mask = await prepareMask(request.mask, image.width, image.height);
    const bytes = await this.predict(
      'inpaint',
      { prompt: request.prompt, image: inputFile(image), mask: inputFile(mask) },
      context,
    );
    return this.done(await finishRemoteImage(ENGINE, bytes, FINISH_AS.inpainted(image)), context);
  }

  async superResolve(request: SuperResolveRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.model('superResolve');
    const scale = upscaleFactor(request.scale);
    const image = await prepareImage(request.image, this.options.maxInputSide ?? 2048);
    const bytes = await this.predict('superResolve', { image: inputFile(image), scale }, context);
    return this.done(await finishRemoteImage(ENGINE, bytes, FINISH_AS.upscaled(image, scale)), context);
  }

  async faceSwap(request: FaceSwapRequest, context: RunContext = {}): Promise<EncodedImage> {
    this.model('faceSwap');
    const maxSide = this.options.maxInputSide ?? 2048;
    const [face, target] = await Promise.all([
      prepareImage(request.face, maxSide),
      prepareImage(request.target, maxSide),
    ]);
    const bytes = await this.predict(
      'faceSwap',
      { input_image: inputFile(target), swap_image: inputFile(face) },
      context,
    );
    return this.done(await finishRemoteFaceSwap(ENGINE, bytes, target.base64), context);
  }

  async clone(_request: CloneRequest, _context?: RunContext): Promise<EncodedImage[]> {
    throw new CapabilityUnavailableError('clone');
  }

  async faceSwapVideo(_request: FaceSwapVideoRequest, _context?: RunContext): Promise<void> {
    throw new CapabilityUnavailableError('faceSwapVideo');
  }

  async close(): Promise<void> {
    this.http.close();
  }

  private model(tool: ReplicateTool): string {
    const model = this.options.models[tool];
    if (!model) throw new CapabilityUnavailableError(tool);
    return model;
  }

  /**
   * Creates the prediction, follows it to its end and downloads its first output. Input images
   * go inline as data URLs, or through the files API past DATA_URL_MAX_BYTES (deleted after).
   */
  private async predict(
    tool: ReplicateTool,
    input: Record<string, unknown>,
    context: RunContext,
  ): Promise<Buffer> {
    const uploaded: string[] = [];
    try {
      return await this.predictWith(tool, await this.sendFiles(input, uploaded, context.signal), context);
    } finally {
      for (const url of uploaded) this.deleteFile(url);
    }
  }

  /** `input` with its InputFiles as data URLs or files API URLs (their URLs pushed on `uploaded`). */
  private async sendFiles(
    input: Record<string, unknown>,
    uploaded: string[],
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      if (!(value instanceof InputFile)) {
        out[key] = value;
      } else if (value.bytes.length <= DATA_URL_MAX_BYTES) {
        out[key] = `data:${value.mime};base64,${value.bytes.toString('base64')}`;
      } else {
        out[key] = await this.uploadFile(value, key, signal);
        uploaded.push(out[key] as string);
      }
    }
    return out;
  }

  /** POST /v1/files (multipart `content`): the file's `urls.get`, which a prediction's input may name. */
  private async uploadFile(file: InputFile, key: string, signal?: AbortSignal): Promise<string> {
    const extension = file.mime.split('/')[1];
    const created = await this.withRateLimit(
      () => {
        const form = new FormData();
        form.append('content', new Blob([file.bytes], { type: file.mime }), `${key}.${extension}`);
        return this.http.send('POST', '/v1/files', { form, signal });
      },
      'POST /v1/files',
      undefined,
      signal,
    );
    const url = isRecord(created) && isRecord(created.urls) ? created.urls.get : undefined;
    if (typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new RemoteEngineError('protocol', 'Replicate POST /v1/files answered without urls.get');
    }
    return url;
  }

  /** Uploaded inputs are not needed once the prediction ended (Replicate would keep them a day). */
  private deleteFile(url: string): void {
    if (new URL(url).origin !== new URL(this.url).origin) return; // only ever the API's own files
    this.http
      .send('DELETE', url, { timeoutMs: 10_000 })
      .catch((err: unknown) => this.logger.warn(`Replicate file delete failed: ${String(err)}`));
  }

  private async predictWith(
    tool: ReplicateTool,
    input: Record<string, unknown>,
    context: RunContext,
  ): Promise<Buffer> {
    const { signal } = context;
    signal?.throwIfAborted();
    const started = Date.now();
    const model = this.model(tool);
    const [path, version] = creationRoute(model);
    const body: Record<string, unknown> = { input: { ...input, ...this.options.inputs?.[tool] } };
    if (version) body.version = version;
    if (this.options.webhookUrl) {
      body.webhook = this.options.webhookUrl;
      body.webhook_events_filter = ['completed'];
    }
    // The creation itself is not aborted: once Replicate has the request the prediction runs (and
    // is paid for), and only the id in its answer lets a cancelled job cancel it. A cancel
    // meanwhile rejects at once and cancels the prediction when the answer names it.
    const creation = this.withRateLimit(
      () => this.http.send('POST', path, { json: body }),
      `POST ${path}`,
      tool,
      signal,
    ).then(toPrediction);
    let created: Prediction;
    try {
      created = await untilAborted(creation, signal);
    } catch (error) {
      if (signal?.aborted) {
        creation.then(
          (p) => this.cancel(p.id),
          () => undefined,
        );
      }
      throw error;
    }
    let prediction = created;
    try {
      prediction = await this.follow(created, context, started);
    } catch (error) {
      const abandoned = signal?.aborted || (error instanceof RemoteEngineError && error.kind === 'timeout');
      if (abandoned) this.cancel(created.id);
      throw error;
    }
    const url = firstOutput(prediction.output);
    if (!url)
      throw new RemoteEngineError(
        'protocol',
        `Replicate prediction ${prediction.id} succeeded without an output`,
      );
    const image = url.startsWith('data:')
      ? Buffer.from(url.slice(url.indexOf(',') + 1), 'base64')
      : await this.download(url, signal);
    this.logger.log(`Replicate ${tool} prediction ${prediction.id} done in ${Date.now() - started} ms`);
    return image;
  }

  private async follow(prediction: Prediction, context: RunContext, started: number): Promise<Prediction> {
    const { signal } = context;
    const deadline = started + (this.options.jobTimeoutMs ?? 600_000);
    const pushed = this.options.webhookUrl ? this.options.updates : undefined;
    const interval = pushed
      ? (this.options.webhookPollIntervalMs ?? 15_000)
      : (this.options.pollIntervalMs ?? 1000);
    let best = 0;
    let current = prediction;
    for (;;) {
      const fraction = logProgress(current.logs);
      if (fraction > best) {
        best = fraction;
        context.onProgress?.(fraction);
      }
      if (current.status === 'succeeded') return current;
      if (current.status === 'failed') throw predictionFailure(current);
      if (current.status === 'canceled') {
        throw new RemoteEngineError('server', `Replicate prediction ${current.id} was canceled`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new RemoteEngineError(
          'timeout',
          `The Replicate prediction ${current.id} did not finish in time`,
        );
      }
      const wait = Math.min(interval, left);
      const delivered = pushed ? await pushed.wait(current.id, wait, signal) : await sleep(wait, signal);
      signal?.throwIfAborted();
      const fromWebhook = isRecord(delivered) && delivered.id === current.id ? delivered : undefined;
      current = fromWebhook
        ? toPredictionRecord(fromWebhook)
        : toPrediction(
            await this.withRateLimit(
              () => this.http.send('GET', `/v1/predictions/${encodeURIComponent(current.id)}`, { signal }),
              'GET /v1/predictions/{id}',
              undefined,
              signal,
            ),
          );
    }
  }

  private cancel(id: string): void {
    this.http
      .send('POST', `/v1/predictions/${encodeURIComponent(id)}/cancel`, { timeoutMs: 10_000 })
      .catch((err: unknown) => this.logger.warn(`Replicate cancel of ${id} failed: ${String(err)}`));
  }

  /** Sends, waiting out 429s (Retry-After, else exponential back-off) a few times; other answers mapped. */
  private async withRateLimit(
    send: () => Promise<RemoteAnswer>,
    where: string,
    tool: ReplicateTool | undefined,
    signal?: AbortSignal,
  ): Promise<unknown> {
    const retries = this.options.rateLimitRetries ?? 8;
    const cap = this.options.maxRetryAfterMs ?? 30_000;
    const base = this.options.rateLimitBackoffMs ?? 2000;
    for (let attempt = 0; ; attempt++) {
      const answer = await send();
      try {
        return this.expectOk(answer, where, tool);
      } catch (error) {
        if (!(error instanceof RemoteEngineError) || error.kind !== 'rate_limited' || attempt >= retries)
          throw error;
        // Without Retry-After (a proxy's or a burst limit's 429): doubling waits with jitter, so
        // the workers that were limited together do not all come back at the same moment.
        const backoff = Math.min(cap, base * 2 ** attempt) * (0.5 + Math.random() / 2);
        const wait = Math.round(Math.min(cap, error.retryAfterMs ?? backoff));
        this.logger.warn(`Replicate rate limit on ${where}: waiting ${wait} ms`);
        await sleep(wait, signal);
      }
    }
  }

  private expectOk(answer: RemoteAnswer, where: string, tool?: ReplicateTool): unknown {
    if (answer.status >= 200 && answer.status < 300) return parseJson(ENGINE, answer, where);
    const detail = errorDetail(answer.body.toString('utf8'));
    const mapped = statusError(ENGINE, answer.status, where, detail, answer.headers);
    if (mapped) throw mapped;
    if (answer.status === 404 && tool) {
      this.logger.warn(`Replicate has no model ${this.options.models[tool]} (HTTP 404): ${tool} unavailable`);
      throw new CapabilityUnavailableError(tool);
    }
    throw new EngineInputError(
      'bad_request',
      `The GPU service refused the request${detail ? `: ${detail}` : ` (HTTP ${answer.status})`}`,
    );
  }

  private async download(url: string, signal?: AbortSignal): Promise<Buffer> {
    if (!isReplicateFile(url, this.url)) {
      // A model's output may be any string; the studio fetches only Replicate's own files, never an
      // address a model names (an internal service, the cloud metadata endpoint).
      throw new RemoteEngineError('protocol', 'The Replicate prediction output is not a Replicate file URL');
    }
    const answer = await this.http.send('GET', url, { signal });
    if (answer.status !== 200) {
      throw (
        statusError(ENGINE, answer.status, 'GET output', undefined) ??
        new RemoteEngineError(
          'protocol',
          `Replicate output ${new URL(url).pathname} answered HTTP ${answer.status}`,
        )
      );
    }
    return answer.body;
  }

  private done(image: EncodedImage, context: RunContext): EncodedImage {
    context.onProgress?.(1);
    return image;
  }
}

/** Where a model (or its pinned version) is described: undefined for a bare version id. */
function modelPath(model: string): string | undefined {
  const [name, version] = model.split(':');
  if (!name.includes('/')) return undefined;
  const [owner, slug] = name.split('/').map(encodeURIComponent);
  return `/v1/models/${owner}/${slug}${version ? `/versions/${encodeURIComponent(version)}` : ''}`;
}

/** `owner/name:version` or a version id → /v1/predictions with the version; `owner/name` → the model's route. */
function creationRoute(model: string): [string, string | undefined] {
  const colon = model.indexOf(':');
  if (colon >= 0) return ['/v1/predictions', model.slice(colon + 1)];
  if (model.includes('/')) {
    const [owner, name] = model.split('/');
    return [`/v1/models/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/predictions`, undefined];
  }
  return ['/v1/predictions', model];
}

function toPrediction(body: unknown): Prediction {
  if (!isRecord(body)) throw new RemoteEngineError('protocol', 'Replicate answered without a prediction');
  return toPredictionRecord(body);
}

function toPredictionRecord(body: Record<string, unknown>): Prediction {
  const statuses = ['starting', 'processing', 'succeeded', 'failed', 'canceled'];
  if (typeof body.id !== 'string' || !statuses.includes(String(body.status))) {
    throw new RemoteEngineError('protocol', 'Replicate answered with a prediction without id or status');
  }
  return body as unknown as Prediction;
}

/** A failed prediction: the model's own error. Out-of-memory and internal errors are retried. */
function predictionFailure(prediction: Prediction): Error {
  const text =
    typeof prediction.error === 'string'
      ? prediction.error
      : JSON.stringify(prediction.error ?? 'unknown error');
  const noFace = noFaceError(text);
  if (noFace) return noFace;
  if (/out of memory|CUDA|internal (server )?error|timed? ?out|try again|unavailable/i.test(text)) {
    return new RemoteEngineError(
      'server',
      `Replicate prediction ${prediction.id} failed: ${text.slice(0, 200)}`,
    );
  }
  return new EngineInputError('bad_request', `The GPU service could not do it: ${text.slice(0, 200)}`);
}

/** Replicate serves outputs from replicate.delivery (https) or from the API's own origin (files API). */
export function isReplicateFile(url: string, apiUrl: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.origin === new URL(apiUrl).origin) return true;
  const host = parsed.hostname;
  return (
    parsed.protocol === 'https:' &&
    (host === REPLICATE_FILES_HOST || host.endsWith(`.${REPLICATE_FILES_HOST}`))
  );
}

function firstOutput(output: unknown): string | undefined {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return output.find((item): item is string => typeof item === 'string');
  if (isRecord(output)) return firstOutput(output.image ?? output.output ?? Object.values(output)[0]);
  return undefined;
}

/** The last percentage in the model's logs (tqdm bars: " 45%|████"), as a fraction below 1. */
function logProgress(logs: unknown): number {
  if (typeof logs !== 'string') return 0;
  const matches = [...logs.matchAll(/(\d{1,3})%\|/g)];
  const last = matches.at(-1);
  return last ? Math.min(0.99, Number(last[1]) / 100) : 0;
}

/** An input image, sent as a data URL or through the files API depending on its size. */
class InputFile {
  readonly bytes: Buffer;
  readonly mime: string;
  constructor(image: PreparedImage) {
    this.bytes = Buffer.from(image.base64, 'base64');
    this.mime = image.base64.startsWith('/9j/')
      ? 'image/jpeg'
      : image.base64.startsWith('UklG')
        ? 'image/webp'
        : 'image/png';
  }
}

function inputFile(image: PreparedImage): InputFile {
  return new InputFile(image);
}
