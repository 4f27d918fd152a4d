import { JobMessages } from '@studio/contracts';
import { Capability, CapabilityUnavailableError, EngineInputError } from '../engine.port';
import { EngineLogger } from '../logger';

/**
 * Why a call to the remote server failed when the request itself was fine: the job pipeline
 * retries these (anything but EngineInputError / CapabilityUnavailableError is retried).
 * - timeout: no complete answer within the timeout
 * - network: connection refused or reset, DNS failure
 * - server: HTTP 5xx, or 408/429 (busy)
 * - auth: HTTP 401/403, the credentials in the configuration are wrong or missing
 * - protocol: an answer that is not what the API promises (not JSON, no image, undecodable image)
 */
export type A1111ErrorKind = 'timeout' | 'network' | 'server' | 'auth' | 'protocol';

export class A1111Error extends Error {
  constructor(
    readonly kind: A1111ErrorKind,
    message: string,
    readonly status?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'A1111Error';
  }
}

export interface A1111ClientOptions {
  baseUrl: string;
  username?: string;
  password?: string;
  token?: string;
  timeoutMs: number;
  logger: EngineLogger;
}

export interface RequestOptions {
  /** The caller's cancellation: rejects with `signal.reason`. */
  signal?: AbortSignal;
  timeoutMs?: number;
  /** The capability the call serves: a missing route (HTTP 404 "Not Found") makes it unavailable. */
  capability?: Capability;
}

/** How much of the server's error text goes into a message. */
const DETAIL_CHARS = 200;

/**
 * JSON over HTTP to an Automatic1111-compatible server: authentication, a timeout per request,
 * cancellation, and the mapping of failures to the engine port's error types.
 */
export class A1111Client {
  /** The server's base URL without credentials: safe to log. */
  readonly url: string;
  private readonly authorization?: string;
  private readonly inflight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: A1111ClientOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw new Error('A1111 engine: baseUrl is not a valid URL');
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new Error('A1111 engine: baseUrl must be an http: or https: URL');
    }
    // fetch refuses URLs with credentials: take them out into basic auth.
    let username = options.username;
    let password = options.password;
    if (base.username || base.password) {
      username ??= decodeURIComponent(base.username);
      password ??= decodeURIComponent(base.password);
      base.username = '';
      base.password = '';
    }
    if (username !== undefined && options.token !== undefined) {
      throw new Error('A1111 engine: configure either username/password or a token, not both');
    }
    if (username !== undefined) {
      const pair = `${username}:${password ?? ''}`;
      this.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    } else if (options.token !== undefined) {
      this.authorization = `Bearer ${options.token}`;
    }
    base.search = '';
    base.hash = '';
    this.url = base.href.replace(/\/+$/, '');
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<unknown> {
    const { signal, capability } = opts;
    const timeoutMs = opts.timeoutMs ?? this.options.timeoutMs;
    signal?.throwIfAborted();
    if (this.closed) throw new A1111Error('network', 'The A1111 engine is closed');

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    this.inflight.add(controller);
    const where = `${method} ${path.split('?')[0]}`;
    try {
      let status: number;
      let text: string;
      try {
        const headers: Record<string, string> = { accept: 'application/json' };
        if (body !== undefined) headers['content-type'] = 'application/json';
        if (this.authorization) headers.authorization = this.authorization;
        const response = await fetch(`${this.url}${path}`, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: controller.signal,
        });
        status = response.status;
        text = await response.text(); // the body is read under the same timeout
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        if (timedOut) {
          throw new A1111Error('timeout', `A1111 ${where} timed out after ${timeoutMs} ms`, undefined, {
            cause: error,
          });
        }
        if (this.closed)
          throw new A1111Error('network', 'The A1111 engine is closed', undefined, { cause: error });
        throw new A1111Error(
          'network',
          `A1111 server ${this.url} unreachable (${where}): ${describeNetworkError(error)}`,
          undefined,
          { cause: error },
        );
      }
      if (status < 200 || status >= 300) throw this.httpError(status, text, where, capability);
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new A1111Error('protocol', `A1111 ${where} answered with something other than JSON`, status, {
          cause: error,
        });
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      this.inflight.delete(controller);
    }
  }

  /**
   * Polls GET /sdapi/v1/progress every `intervalMs` (one poll at a time) and reports rising
   * fractions below 1. Failed polls are ignored. The server's progress is global: with other
   * clients on the same server it may describe their job.
   */
  pollProgress(onProgress: (fraction: number) => void, intervalMs: number): { stop(): void } {
    const stopper = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let best = 0;
    const poll = async () => {
      try {
        const answer = await this.request('GET', '/sdapi/v1/progress?skip_current_image=true', undefined, {
          signal: stopper.signal,
          timeoutMs: Math.min(this.options.timeoutMs, Math.max(2000, intervalMs * 4)),
        });
        const progress = isRecord(answer) ? answer.progress : undefined;
        if (!stopper.signal.aborted && typeof progress === 'number' && Number.isFinite(progress)) {
          const fraction = Math.min(0.99, Math.max(0, progress));
          if (fraction > best) {
            best = fraction;
            onProgress(fraction);
          }
        }
      } catch {
        // progress is a nicety: the call itself decides success or failure
      }
      if (!stopper.signal.aborted) timer = setTimeout(poll, intervalMs);
    };
    timer = setTimeout(poll, intervalMs);
    return {
      stop: () => {
        stopper.abort();
        clearTimeout(timer);
      },
    };
  }

  /** Aborts every request in flight; later requests fail at once. */
  close(): void {
    this.closed = true;
    for (const controller of this.inflight)
      controller.abort(new A1111Error('network', 'The A1111 engine is closed'));
    this.inflight.clear();
  }

  private httpError(status: number, text: string, where: string, capability?: Capability): Error {
    const detail = errorDetail(text);
    const suffix = detail ? `: ${detail}` : '';
    if (status === 401 || status === 403) {
      return new A1111Error(
        'auth',
        `A1111 server ${this.url} refused the credentials (HTTP ${status} on ${where}${suffix}); ` +
          'check the engine username/password or token',
        status,
      );
    }
    if (status === 408 || status === 429 || status >= 500) {
      return new A1111Error('server', `A1111 ${where} failed with HTTP ${status}${suffix}`, status);
    }
    if (status === 404 && capability && (!detail || detail === 'Not Found')) {
      // The route itself is missing: API not enabled (--api) or the extension not installed.
      this.options.logger.warn(
        `A1111 server ${this.url} has no ${where} (HTTP 404): ${capability} unavailable`,
      );
      return new CapabilityUnavailableError(capability);
    }
    if (status === 413) return new EngineInputError('bad_image', JobMessages.imageTooLarge);
    const noFace = noFaceError(detail);
    if (noFace) return noFace;
    return new EngineInputError(
      'bad_request',
      `The image server rejected the request${suffix || ` (HTTP ${status})`}`,
    );
  }
}

/** The no-face error for a server message that says no face was found, else undefined. */
export function noFaceError(message: string | undefined): EngineInputError | undefined {
  if (
    !message ||
    !/no\s+(source\s+|target\s+)?faces?\b|faces?\s+(was\s+|were\s+)?not\s+found/i.test(message)
  ) {
    return undefined;
  }
  return /source/i.test(message)
    ? new EngineInputError('no_face_source', JobMessages.noFaceSource)
    : new EngineInputError('no_face_target', JobMessages.noFaceTarget);
}

/**
 * The server's explanation from an error body: FastAPI's `detail` (a string, or a list of
 * validation errors with `loc` and `msg`), A1111's `error`/`errors`, or the start of the text.
 */
export function errorDetail(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    const plain = text
      .replace(/<[^>]*>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim();
    return plain ? truncate(plain) : undefined;
  }
  if (typeof parsed === 'string') return truncate(parsed);
  if (!isRecord(parsed)) return undefined;
  const { detail } = parsed;
  if (typeof detail === 'string' && detail) return truncate(detail);
  if (Array.isArray(detail) && detail.length > 0) {
    const parts = detail.map((item) => {
      if (!isRecord(item)) return String(item);
      const loc = Array.isArray(item.loc) ? item.loc.join('.') : undefined;
      const msg = typeof item.msg === 'string' ? item.msg : JSON.stringify(item);
      return loc ? `${loc}: ${msg}` : msg;
    });
    return truncate(parts.join('; '));
  }
  for (const key of ['error', 'errors', 'message'] as const) {
    const value = parsed[key];
    if (typeof value === 'string' && value) return truncate(value);
  }
  return undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function truncate(text: string): string {
  return text.length > DETAIL_CHARS ? `${text.slice(0, DETAIL_CHARS - 1)}…` : text;
}

function describeNetworkError(error: unknown): string {
  // Duck-typed: fetch's errors come from another realm under jest, where instanceof Error fails.
  const cause = isObject(error) ? error.cause : undefined;
  if (isObject(cause) && typeof cause.code === 'string') return cause.code;
  if (isObject(cause) && typeof cause.message === 'string') return cause.message;
  return isObject(error) && typeof error.message === 'string' ? error.message : String(error);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
