import type { EngineFault } from '@studio/contracts';
import { EncodedImage, EngineReadiness } from '../engine.port';
import { A1111Error } from './a1111-error';
import { FINISH_AS, finishImage, FinishOptions, refuseUnchanged } from './remote-images';

/**
 * Why a call to a remote engine (ComfyUI, Replicate) failed when the request itself was fine. The
 * job pipeline retries these (anything but EngineInputError / CapabilityUnavailableError).
 * - timeout: no answer, or the remote job did not finish, in time
 * - network: connection refused or reset, DNS failure
 * - server: HTTP 5xx or 408, or the remote job was interrupted
 * - rate_limited: HTTP 429; `retryAfterMs` from the Retry-After header when given
 * - auth: HTTP 401/403, wrong or missing credentials in the configuration
 * - protocol: an answer that is not what the API promises
 */
export type RemoteErrorKind = 'timeout' | 'network' | 'server' | 'rate_limited' | 'auth' | 'protocol';

export class RemoteEngineError extends Error {
  constructor(
    readonly kind: RemoteErrorKind,
    message: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'RemoteEngineError';
  }
}

export interface RemoteHttpOptions {
  /** Name used in messages: "ComfyUI", "Replicate". */
  engine: string;
  baseUrl: string;
  /** Sent with every request (authentication). */
  headers?: Record<string, string>;
  /** Per request, the whole answer included. */
  timeoutMs: number;
}

export interface SendOptions {
  json?: unknown;
  form?: FormData;
  signal?: AbortSignal;
  timeoutMs?: number;
  headers?: Record<string, string>;
  /** Largest answer accepted, in bytes (default 64 MiB). */
  maxBytes?: number;
}

export interface RemoteAnswer {
  status: number;
  headers: Headers;
  body: Buffer;
}

const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

/**
 * HTTP to a remote engine: fixed headers, a timeout per request, the caller's cancellation
 * (rejects with `signal.reason`), and network failures as RemoteEngineError. Statuses are the
 * caller's to interpret.
 */
export class RemoteHttp {
  /** The base URL without a trailing slash (never carries credentials: safe to log). */
  readonly url: string;
  private readonly inflight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: RemoteHttpOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new Error(`${options.engine} engine: the URL is not valid`);
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error(`${options.engine} engine: the URL must be http: or https:`);
    }
    if (base.username || base.password) {
      throw new Error(`${options.engine} engine: put credentials in the token setting, not in the URL`);
    }
    base.search = '';
    base.hash = '';
    this.url = base.href.replace(/\/+$/, '');
  }

  /** Headers for other transports to the same server (the ComfyUI websocket). */
  get headers(): Record<string, string> {
    return { ...this.options.headers };
  }

  /** `path` is relative to the base URL; an absolute URL is fetched as it is (result files). */
  async send(method: 'GET' | 'POST' | 'DELETE', path: string, opts: SendOptions = {}): Promise<RemoteAnswer> {
    const { signal } = opts;
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs;
    const engine = this.options.engine;
    signal?.throwIfAborted();
    if (this.closed) throw new RemoteEngineError('network', `The ${engine} engine is closed`);
    const absolute = /^https?:\/\//.test(path);
    const where = `${method} ${absolute ? new URL(path).pathname : path.split('?')[0]}`;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.inflight.add(controller);
    try {
      const headers: Record<string, string> = { ...opts.headers };
      // Credentials go only to the configured server, never to another host named in an answer.
      if (!absolute || new URL(path).origin === new URL(this.url).origin) {
        Object.assign(headers, this.options.headers);
      }
      let body: string | FormData | undefined;
      if (opts.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(opts.json);
      } else if (opts.form) {
        body = opts.form;
      }
      const response = await fetch(absolute ? path : `${this.url}${path}`, {
        method,
        headers,
        body,
        signal: controller.signal,
      });
      const bytes = await readLimited(response, opts.maxBytes ?? DEFAULT_MAX_BYTES, engine, where);
      return { status: response.status, headers: response.headers, body: bytes };
    } catch (error) {
      if (error instanceof RemoteEngineError) throw error;
      if (signal?.aborted) throw signal.reason;
      if (timedOut) {
        throw new RemoteEngineError(
          'timeout',
          `${engine} ${where} timed out after ${timeoutMs} ms`,
          undefined,
          undefined,
          {
            cause: error,
          },
        );
      }
      if (this.closed) throw new RemoteEngineError('network', `The ${engine} engine is closed`);
      throw new RemoteEngineError(
        'network',
        `${engine} server ${this.url} unreachable (${where}): ${describeNetworkError(error)}`,
        undefined,
        undefined,
        { cause: error },
      );
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(controller);
    }
  }

  /** Aborts every request in flight; later requests fail at once. */
  close(): void {
    this.closed = true;
    for (const controller of this.inflight) {
      controller.abort(new RemoteEngineError('network', `The ${this.options.engine} engine is closed`));
    }
    this.inflight.clear();
  }
}

/** Parses a JSON answer body; anything else is a protocol error. */
export function parseJson(engine: string, answer: RemoteAnswer, where: string): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown;
  } catch (error) {
    throw new RemoteEngineError(
      'protocol',
      `${engine} ${where} answered with something other than JSON`,
      answer.status,
      undefined,
      {
        cause: error,
      },
    );
  }
}

/** Retry-After (seconds or an HTTP date) in ms, or undefined. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The common mapping of failed statuses that are not the request's fault. */
export function statusError(
  engine: string,
  status: number,
  where: string,
  detail: string | undefined,
  headers?: Headers,
) {
  const suffix = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403) {
    return new RemoteEngineError(
      'auth',
      `${engine} refused the credentials (HTTP ${status} on ${where}${suffix}); check the token in the configuration`,
      status,
    );
  }
  if (status === 429) {
    return new RemoteEngineError(
      'rate_limited',
      `${engine} is rate limiting (HTTP 429 on ${where}${suffix})`,
      status,
      headers && retryAfterMs(headers),
    );
  }
  if (status === 408 || status >= 500) {
    return new RemoteEngineError('server', `${engine} ${where} failed with HTTP ${status}${suffix}`, status);
  }
  return undefined;
}

/** finishImage with the error named for this engine. */
export async function finishRemoteImage(
  engine: string,
  bytes: Buffer,
  options: FinishOptions,
): Promise<EncodedImage> {
  try {
    return await finishImage(bytes.toString('base64'), options);
  } catch (error) {
    if (error instanceof A1111Error) {
      throw new RemoteEngineError(
        'protocol',
        `The ${engine} server sent an image that cannot be decoded`,
        undefined,
        undefined,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** A face swap's result: "no face" when it is the target unchanged, else finished as JPEG. */
export async function finishRemoteFaceSwap(
  engine: string,
  result: Buffer,
  targetBase64: string,
): Promise<EncodedImage> {
  await refuseUnchanged(result, targetBase64);
  return finishRemoteImage(engine, result, FINISH_AS.faceSwapped);
}

/**
 * `work`, or a rejection with the signal's reason as soon as it aborts; `work` itself goes on
 * (a remote job being created, whose id the caller still needs to cancel it).
 */
export function untilAborted<T>(work: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const done = () => {
      signal?.removeEventListener('abort', abort);
      resolve();
    };
    const timer = setTimeout(done, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}

async function readLimited(
  response: Response,
  maxBytes: number,
  engine: string,
  where: string,
): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'));
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw new RemoteEngineError(
      'protocol',
      `${engine} ${where} answered with more than ${maxBytes} bytes`,
      response.status,
    );
  }
  if (!response.body) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > maxBytes) {
      throw new RemoteEngineError(
        'protocol',
        `${engine} ${where} answered with more than ${maxBytes} bytes`,
        response.status,
      );
    }
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks);
}

function describeNetworkError(error: unknown): string {
  const cause = isObject(error) ? error.cause : undefined;
  if (isObject(cause) && typeof cause.code === 'string') return cause.code;
  if (isObject(cause) && typeof cause.message === 'string') return cause.message;
  return isObject(error) && typeof error.message === 'string' ? error.message : String(error);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * What a remote engine's failure says about the server, in terms a user is told (issue 53): it
 * does not answer ('down'), it answers too late ('timeout'), it reports its own error
 * ('server_error'), or its answer cannot be read, an undecodable image above all ('bad_output').
 * Undefined for anything else (credentials, rate limits, input errors, cancels).
 */
export type RemoteFault = EngineFault;

export function remoteFaultOf(error: unknown): RemoteFault | undefined {
  if (!(error instanceof RemoteEngineError) && !(error instanceof A1111Error)) return undefined;
  switch (error.kind) {
    case 'network':
      return 'down';
    case 'timeout':
      return 'timeout';
    case 'server':
      return 'server_error';
    case 'protocol':
      return 'bad_output';
    default:
      return undefined;
  }
}

/** A failed status probe's readiness: credentials refused ('unauthorised'), else 'unreachable'. */
export function failedReadiness(error: unknown): EngineReadiness {
  const kind = isObject(error) ? error.kind : undefined;
  return kind === 'auth' ? 'unauthorised' : 'unreachable';
}
