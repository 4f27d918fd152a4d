import { createHash, randomBytes } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import sharp from 'sharp';
import {
  closeServer,
  listenLocally,
  paintMaskPng,
  patchFacePng,
  readBody,
  sendHtmlError,
} from './fake-server-kit';
import { signReplicateWebhook } from './replicate-webhook';

/**
 * A stand-in for Replicate's HTTP API in tests, with its routes, JSON shapes and errors:
 *
 * - POST /v1/predictions {version, input, webhook?, webhook_events_filter?} and
 *   POST /v1/models/{owner}/{name}/predictions {input, …}: 201 with the prediction `starting`;
 *   it is `processing` (logs with tqdm percentages) and then `succeeded` after `delayMs`, its
 *   output a file URL on this server. A webhook gets the finished prediction, signed with
 *   `webhookSecret` (webhook-id, webhook-timestamp, webhook-signature headers).
 * - GET /v1/predictions/{id}, POST /v1/predictions/{id}/cancel, GET /v1/account,
 *   GET /v1/models/{owner}/{name}[/versions/{id}] (404 for what `versions` does not know)
 * - the files API: POST /v1/files (multipart `content`) → {id, …, urls: {get}}; a prediction
 *   input naming that urls.get reads the uploaded bytes; GET and DELETE /v1/files/{id}
 * - errors as Replicate's problem JSON: 401 without the token, 404 for an unknown version, 422
 *   for a missing input, 429 (`rateLimitNext`) with Retry-After
 *
 * The output: generate → a gradient of input width×height; inpaint → the image with the mask's
 * white area magenta; superResolve (input.scale) → the image ×scale; faceSwap → a green patch on
 * input_image. `failNext` makes the next prediction end `failed` with that error; `hang` keeps
 * predictions processing until canceled.
 */
export interface FakeReplicateOptions {
  port?: number;
  token: string;
  /** Known model versions and what each does. */
  versions: Record<string, 'generate' | 'inpaint' | 'superResolve' | 'faceSwap'>;
  /** whsec_… used to sign webhooks. */
  webhookSecret?: string;
}

export interface ReplicateRecordedRequest {
  method: string;
  path: string;
  body: unknown;
  headers: IncomingHttpHeaders;
}

interface FakePrediction {
  id: string;
  version: string;
  kind: 'generate' | 'inpaint' | 'superResolve' | 'faceSwap';
  status: 'starting' | 'processing' | 'succeeded' | 'failed' | 'canceled';
  input: Record<string, unknown>;
  output: string[] | null;
  error: string | null;
  logs: string;
  webhook?: string;
  created_at: string;
  completed_at?: string;
  timers: NodeJS.Timeout[];
}

export class FakeReplicateServer {
  readonly requests: ReplicateRecordedRequest[] = [];
  delayMs = 0;
  /** How long the answer to a creation takes; the prediction exists (and runs) from the start. */
  createLatencyMs = 0;
  /** Where output URLs point (default: this server's /files); a model may return any string. */
  outputOrigin?: string;
  hang = false;
  /** The face swap model finds no face: the target comes back unchanged. */
  noFace = false;
  /** Deliver webhooks to this origin instead of the webhook URL's own (a tunnel, in tests). */
  deliverTo?: string;
  /** Webhook deliveries made: status of the studio's answer. */
  readonly deliveries: { predictionId: string; status: number }[] = [];
  private readonly predictions = new Map<string, FakePrediction>();
  private readonly files = new Map<string, Buffer>();
  /** Files uploaded through POST /v1/files, by id (DELETE /v1/files/{id} removes them). */
  readonly uploads = new Map<string, { name: string; contentType: string; bytes: Buffer }>();
  private rateLimited: { times: number; retryAfterSeconds: number | null } = {
    times: 0,
    retryAfterSeconds: 0,
  };
  private htmlErrors: number[] = [];
  private failures: string[] = [];

  private constructor(
    private readonly server: Server,
    private readonly options: FakeReplicateOptions,
    readonly url: string,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((error: unknown) =>
        send(res, 500, { title: 'Internal', detail: String(error), status: 500 }),
      );
    });
  }

  static async start(options: FakeReplicateOptions): Promise<FakeReplicateServer> {
    const { server, url } = await listenLocally(options.port);
    return new FakeReplicateServer(server, options, url);
  }

  /**
   * The next `times` API calls answer 429 with Retry-After `retryAfterSeconds`; null: without
   * Retry-After (as a proxy's or a burst limit's 429 may come).
   */
  rateLimitNext(times: number, retryAfterSeconds: number | null = 0): void {
    this.rateLimited = { times, retryAfterSeconds };
  }

  /** The next API call gets a reverse proxy's HTML error page with `status` (a Cloudflare/nginx 502). */
  htmlErrorNext(status = 502): void {
    this.htmlErrors.push(status);
  }

  /** The next prediction fails with this error (the model's own message). */
  failNext(error: string): void {
    this.failures.push(error);
  }

  requestsTo(pattern: RegExp): ReplicateRecordedRequest[] {
    return this.requests.filter((r) => pattern.test(`${r.method} ${r.path}`));
  }

  prediction(id: string): Omit<FakePrediction, 'timers'> | undefined {
    return this.predictions.get(id);
  }

  async close(): Promise<void> {
    for (const p of this.predictions.values()) p.timers.forEach(clearTimeout);
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    let body: unknown;
    const type = req.headers['content-type'] ?? '';
    let form: FormData | undefined;
    if (type.startsWith('multipart/form-data')) {
      form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      body = Object.fromEntries(
        [...form.entries()].map(([k, v]) => [k, typeof v === 'string' ? v : `(file ${v.size} bytes)`]),
      );
    } else if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 400, { title: 'Bad request', detail: 'Invalid JSON', status: 400 });
      }
    }
    this.requests.push({ method, path, body: shorten(body), headers: req.headers });
    const file = /^\/files\/([\w-]+\.png)$/.exec(path);
    if (method === 'GET' && file) {
      const bytes = this.files.get(file[1]);
      if (!bytes) return send(res, 404, { detail: 'Not found' });
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
      res.end(bytes);
      return;
    }
    if (req.headers.authorization !== `Bearer ${this.options.token}`) {
      return send(res, 401, {
        title: 'Unauthenticated',
        detail: 'You did not pass a valid authentication token',
        status: 401,
      });
    }
    const htmlError = this.htmlErrors.shift();
    if (htmlError) return sendHtmlError(res, htmlError);
    if (this.rateLimited.times > 0) {
      this.rateLimited.times--;
      const seconds = this.rateLimited.retryAfterSeconds;
      return send(
        res,
        429,
        {
          title: 'Request was throttled',
          detail: `Request was throttled.${seconds === null ? '' : ` Your rate limit resets in ~${seconds}s.`}`,
          status: 429,
        },
        seconds === null ? {} : { 'retry-after': String(seconds) },
      );
    }
    if (method === 'GET' && path === '/v1/account') {
      return send(res, 200, {
        type: 'organization',
        username: 'studio-ops',
        name: 'Studio Ops',
        github_url: null,
      });
    }
    if (method === 'POST' && path === '/v1/files') return this.createFile(res, form);
    const upload = /^\/v1\/files\/([\w-]+)$/.exec(path);
    if (upload && method === 'DELETE') {
      this.uploads.delete(upload[1]);
      res.writeHead(204).end();
      return;
    }
    if (upload && method === 'GET') {
      const file = this.uploads.get(upload[1]);
      if (!file) return send(res, 404, { title: 'Not found', detail: 'Not found', status: 404 });
      return send(res, 200, this.fileView(upload[1], file));
    }
    const described = /^\/v1\/models\/([^/]+)\/([^/]+)(?:\/versions\/([^/]+))?$/.exec(path);
    if (method === 'GET' && described) {
      const [, owner, name, version] = described;
      const known = version ? this.options.versions[version] : this.options.versions[`${owner}/${name}`];
      if (!known) return send(res, 404, { title: 'Not found', detail: 'Not found', status: 404 });
      return send(
        res,
        200,
        version
          ? { id: version, created_at: new Date(0).toISOString(), cog_version: '0.9.0', openapi_schema: {} }
          : { url: `https://replicate.com/${owner}/${name}`, owner, name, visibility: 'public' },
      );
    }
    const model = /^\/v1\/models\/([^/]+)\/([^/]+)\/predictions$/.exec(path);
    if (method === 'POST' && (path === '/v1/predictions' || model)) {
      const version = model
        ? `${model[1]}/${model[2]}`
        : String((body as { version?: unknown })?.version ?? '');
      return this.create(res, version, (body ?? {}) as Record<string, unknown>);
    }
    const one = /^\/v1\/predictions\/([\w-]+)(\/cancel)?$/.exec(path);
    if (one) {
      const prediction = this.predictions.get(one[1]);
      if (!prediction)
        return send(res, 404, { title: 'Not found', detail: 'Prediction not found', status: 404 });
      if (method === 'POST' && one[2]) {
        if (!['succeeded', 'failed', 'canceled'].includes(prediction.status))
          this.end(prediction, 'canceled');
        return send(res, 200, this.view(prediction));
      }
      if (method === 'GET' && !one[2]) return send(res, 200, this.view(prediction));
    }
    send(res, 404, { title: 'Not found', detail: 'Not found', status: 404 });
  }

  /** POST /v1/files: multipart with the file in `content` (and optional JSON `metadata`). */
  private async createFile(res: ServerResponse, form: FormData | undefined): Promise<void> {
    const content = form?.get('content');
    if (!content || typeof content === 'string') {
      return send(res, 400, { title: 'Bad request', detail: 'content: a file is required', status: 400 });
    }
    const id = randomBytes(13).toString('hex').slice(0, 26);
    const file = {
      name: content.name || 'file',
      contentType: content.type || 'application/octet-stream',
      bytes: Buffer.from(await content.arrayBuffer()),
    };
    this.uploads.set(id, file);
    send(res, 201, this.fileView(id, file));
  }

  private fileView(id: string, file: { name: string; contentType: string; bytes: Buffer }) {
    return {
      id,
      name: file.name,
      content_type: file.contentType,
      size: file.bytes.length,
      checksums: { sha256: createHash('sha256').update(file.bytes).digest('hex') },
      metadata: {},
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
      urls: { get: `${this.url}/v1/files/${id}` },
    };
  }

  private create(res: ServerResponse, version: string, body: Record<string, unknown>): void {
    const kind = this.options.versions[version];
    if (!kind && version.includes('/')) {
      return send(res, 404, {
        title: 'Not found',
        detail: 'The requested resource could not be found.',
        status: 404,
      });
    }
    if (!kind) {
      return send(res, 422, {
        title: 'Invalid version or not permitted',
        detail: "The specified version does not exist (or perhaps you don't have permission to use it?)",
        status: 422,
      });
    }
    const input = (body.input ?? {}) as Record<string, unknown>;
    const required = {
      generate: ['prompt'],
      inpaint: ['prompt', 'image', 'mask'],
      superResolve: ['image'],
      faceSwap: ['input_image', 'swap_image'],
    }[kind];
    const missing = required.filter((k) => typeof input[k] !== 'string');
    if (missing.length > 0) {
      return send(res, 422, {
        title: 'Input validation failed',
        detail: `- input: ${missing[0]} is required`,
        status: 422,
        invalid_fields: missing.map((field) => ({
          type: 'required',
          field: 'input',
          description: `${field} is required`,
        })),
      });
    }
    const id = randomBytes(13).toString('hex').slice(0, 26);
    const prediction: FakePrediction = {
      id,
      version,
      kind,
      status: 'starting',
      input,
      output: null,
      error: null,
      logs: '',
      webhook: typeof body.webhook === 'string' ? body.webhook : undefined,
      created_at: new Date().toISOString(),
      timers: [],
    };
    this.predictions.set(id, prediction);
    if (this.createLatencyMs > 0) {
      setTimeout(() => send(res, 201, this.view(prediction)), this.createLatencyMs).unref();
    } else {
      send(res, 201, this.view(prediction));
    }
    const failure = this.failures.shift();
    prediction.timers.push(
      setTimeout(() => {
        prediction.status = 'processing';
        prediction.logs = 'Using seed: 1234\n 50%|█████     | 10/20 [00:01<00:01]\n';
      }, this.delayMs / 2),
    );
    if (this.hang) return;
    prediction.timers.push(
      setTimeout(() => {
        if (prediction.status === 'canceled') return;
        if (failure) {
          prediction.error = failure;
          prediction.logs += 'Traceback (most recent call last):\n';
          this.end(prediction, 'failed');
          return;
        }
        void this.render(prediction).then(
          (png) => {
            const name = `${id}.png`;
            this.files.set(name, png);
            prediction.output = [`${this.outputOrigin ?? this.url}/files/${name}`];
            prediction.logs += '100%|██████████| 20/20 [00:02<00:00]\n';
            this.end(prediction, 'succeeded');
          },
          (error: unknown) => {
            prediction.error = `cannot identify image file: ${String(error)}`;
            this.end(prediction, 'failed');
          },
        );
      }, this.delayMs),
    );
  }

  private end(prediction: FakePrediction, status: 'succeeded' | 'failed' | 'canceled'): void {
    prediction.timers.forEach(clearTimeout);
    prediction.status = status;
    prediction.completed_at = new Date().toISOString();
    if (prediction.webhook) void this.deliver(prediction);
  }

  private async deliver(prediction: FakePrediction): Promise<void> {
    const body = JSON.stringify(this.view(prediction));
    const id = `msg_${randomBytes(8).toString('hex')}`;
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
    };
    if (this.options.webhookSecret)
      headers['webhook-signature'] = signReplicateWebhook(this.options.webhookSecret, id, timestamp, body);
    try {
      const target = new URL(prediction.webhook!);
      const url = this.deliverTo ? `${this.deliverTo}${target.pathname}${target.search}` : target.href;
      const answer = await fetch(url, { method: 'POST', headers, body });
      this.deliveries.push({ predictionId: prediction.id, status: answer.status });
    } catch {
      this.deliveries.push({ predictionId: prediction.id, status: 0 });
    }
  }

  private view(p: FakePrediction) {
    return {
      id: p.id,
      model: p.version.split(':')[0],
      version: p.version,
      input: shorten(p.input),
      logs: p.logs,
      output: p.output,
      error: p.error,
      status: p.status,
      created_at: p.created_at,
      completed_at: p.completed_at ?? null,
      urls: {
        get: `${this.url}/v1/predictions/${p.id}`,
        cancel: `${this.url}/v1/predictions/${p.id}/cancel`,
      },
      metrics: p.status === 'succeeded' ? { predict_time: this.delayMs / 1000 } : {},
    };
  }

  private async render(p: FakePrediction): Promise<Buffer> {
    const image = (key: string) => {
      const text = String(p.input[key]);
      // A files API URL (urls.get of an upload), else a data URL.
      const upload = text.startsWith(`${this.url}/v1/files/`)
        ? this.uploads.get(text.slice(text.lastIndexOf('/') + 1))
        : undefined;
      if (upload) return upload.bytes;
      if (!text.startsWith('data:')) throw new Error(`cannot fetch ${text.slice(0, 80)}`);
      return Buffer.from(text.slice(text.indexOf(',') + 1), 'base64');
    };
    switch (p.kind) {
      case 'generate': {
        const width = Number(p.input.width ?? 512);
        const height = Number(p.input.height ?? 512);
        const data = Buffer.alloc(width * height * 3);
        for (let i = 0; i < width * height; i++)
          data.set([Math.round((255 * (i % width)) / width), 80, 160], i * 3);
        return sharp(data, { raw: { width, height, channels: 3 } })
          .png()
          .toBuffer();
      }
      case 'inpaint': {
        return paintMaskPng(image('image'), image('mask'));
      }
      case 'superResolve': {
        const input = image('image');
        const scale = Number(p.input.scale ?? 4);
        const { width = 0, height = 0 } = await sharp(input).metadata();
        return sharp(input)
          .resize(Math.round(width * scale), Math.round(height * scale), { fit: 'fill' })
          .png()
          .toBuffer();
      }
      case 'faceSwap': {
        const target = image('input_image');
        if (this.noFace) return sharp(target).png().toBuffer();
        return patchFacePng(target);
      }
    }
  }
}

export function startFakeReplicate(options: FakeReplicateOptions): Promise<FakeReplicateServer> {
  return FakeReplicateServer.start(options);
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  const type = status >= 400 ? 'application/problem+json' : 'application/json';
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Data URLs cut short in recorded requests and echoed inputs. */
function shorten(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > 128 ? `${value.slice(0, 64)}…(${value.length} chars)` : value;
  if (Array.isArray(value)) return value.map(shorten);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shorten(v)]));
  }
  return value;
}
