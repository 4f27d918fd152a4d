import { JobMessages } from '@studio/contracts';
import { Capability, CapabilityUnavailableError, EngineInputError } from '../engine.port';
import { EngineLogger } from '../logger';
import { A1111Error } from './a1111-error';
import { RemoteEngineError, RemoteHttp } from './remote-http';

export { A1111Error } from './a1111-error';
export type { A1111ErrorKind } from './a1111-error';

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
 * JSON over HTTP to an Automatic1111-compatible server: authentication (credentials in the URL
 * become basic auth), and the mapping of failures to the engine port's error types. The transport
 * (timeout per request, cancellation, close) is RemoteHttp's, as for the other remote engines.
 */
export class A1111Client {
  /** The server's base URL without credentials: safe to log. */
  readonly url: string;
  private readonly http: RemoteHttp;

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
    const headers: Record<string, string> = { accept: 'application/json' };
    if (username !== undefined) {
      const pair = `${username}:${password ?? ''}`;
      headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
    } else if (options.token !== undefined) {
      headers.authorization = `Bearer ${options.token}`;
    }
    this.http = new RemoteHttp({
      engine: 'A1111',
      baseUrl: base.href,
      headers,
      timeoutMs: options.timeoutMs,
    });
    this.url = this.http.url;
  }

  async request(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<unknown> {
    const { signal, capability } = opts;
    const where = `${method} ${path.split('?')[0]}`;
    let status: number;
    let text: string;
    try {
      // No size cap, as before: an ×8 upscale comes back as one large base64 string.
      const answer = await this.http.send(method, path, {
        json: body,
        signal,
        timeoutMs: opts.timeoutMs,
        maxBytes: Number.POSITIVE_INFINITY,
      });
      status = answer.status;
      text = new TextDecoder().decode(answer.body); // as fetch's text(): UTF-8, BOM dropped
    } catch (error) {
      // Same kinds and messages; A1111Error is what the engine's callers know.
      if (error instanceof RemoteEngineError) {
        const kind = error.kind === 'rate_limited' ? 'server' : error.kind;
        throw new A1111Error(kind, error.message, error.status, { cause: error.cause });
      }
      throw error;
    }
    if (status < 200 || status >= 300) throw this.httpError(status, text, where, capability);
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new A1111Error('protocol', `A1111 ${where} answered with something other than JSON`, status, {
        cause: error,
      });
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
    this.http.close();
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
  // A1111's exception handler answers {error: the class name, detail, body, errors: str(e)}:
  // the message is in `errors`, the class name alone says little.
  for (const key of ['errors', 'message', 'error'] as const) {
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
