import { API_PREFIX, Messages, type ApiResponse } from '@studio/contracts';
import { isStudioUnavailable, NO_RESPONSE, STUDIO_NOT_ANSWERING, studioAvailability } from './availability';
import { retryAfterMs, retryDelayMs, RetryPolicy } from './retryPolicy';

export { NO_RESPONSE };

export interface ApiResult<T> {
  status: number;
  ok: boolean;
  /** The parsed `{message, content}` answer, or null when the body was not JSON. */
  body: ApiResponse<T> | null;
  /** The wait a 503 or 429 asked for (its Retry-After), in milliseconds. */
  retryAfter?: number;
}

/**
 * Calls the API on the same origin. The session is an httpOnly cookie, so every call
 * includes credentials. Never throws: network failures are logged (spec section 8) and
 * come back with status NO_RESPONSE.
 *
 * While the studio is briefly unavailable (isStudioUnavailable) a read (GET) is asked again with
 * backoff (retryPolicy.ts), at once when the studio is back, for up to RetryPolicy.readBudgetMs; a
 * page opened during an outage so fills in by itself. Writes are sent once: repeating a submission
 * or a payment the server may have taken could do it twice; their screens keep the form as it was.
 */
export async function apiRequest<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  payload?: unknown,
  extraHeaders?: Record<string, string>,
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...extraHeaders, Accept: 'application/json' };
  const init: RequestInit = { method, credentials: 'include', headers };
  if (payload !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(payload);
  }
  return method === 'GET' ? read<T>(path, init) : send<T>(path, init);
}

async function read<T>(path: string, init: RequestInit): Promise<ApiResult<T>> {
  const started = Date.now();
  const epoch = studioAvailability.epoch;
  for (let attempt = 0; ; attempt += 1) {
    const result = await send<T>(path, init);
    if (!isStudioUnavailable(result.status, result.body?.content)) return result;
    const wait = retryDelayMs(attempt, result.retryAfter);
    // Past the budget the screen shows its own error; the banner stays until the studio is back.
    if (Date.now() - started + wait > RetryPolicy.readBudgetMs) return result;
    await studioAvailability.waitForBack(wait);
    if (studioAvailability.epoch !== epoch) return result;
  }
}

/**
 * Posts a multipart form (files and fields) with the same never-throw contract as apiRequest.
 * The browser sets the multipart Content-Type with its boundary, so none is given here.
 */
export function apiUpload<T>(
  path: string,
  form: FormData,
  extraHeaders?: Record<string, string>,
): Promise<ApiResult<T>> {
  return send<T>(path, {
    method: 'POST',
    credentials: 'include',
    headers: { ...extraHeaders, Accept: 'application/json' },
    body: form,
  });
}

async function send<T>(path: string, init: RequestInit): Promise<ApiResult<T>> {
  let response: Response;
  try {
    response = await fetch(`${API_PREFIX}${path}`, init);
  } catch (error) {
    console.error(`${init.method} ${API_PREFIX}${path} failed`, error);
    studioAvailability.reportUnavailable();
    return { status: NO_RESPONSE, ok: false, body: null };
  }
  const result: ApiResult<T> = {
    status: response.status,
    ok: response.ok,
    body: await readJson<T>(response),
    retryAfter: retryAfterMs(response.headers?.get('Retry-After')),
  };
  // One view of the studio for the whole page: the banner (StudioBanner) follows it.
  if (isStudioUnavailable(result.status, result.body?.content)) {
    // Only a 503 is the server's own word (its message says nothing was charged).
    studioAvailability.reportUnavailable(result.status === 503);
  } else if (result.ok) {
    studioAvailability.reportAnswered();
  }
  return result;
}

export const apiGet = <T>(path: string) => apiRequest<T>('GET', path);

export const apiPost = <T>(path: string, payload?: unknown, extraHeaders?: Record<string, string>) =>
  apiRequest<T>('POST', path, payload, extraHeaders);

export const apiPut = <T>(path: string, payload?: unknown) => apiRequest<T>('PUT', path, payload);

export const apiPatch = <T>(path: string, payload?: unknown) => apiRequest<T>('PATCH', path, payload);

export const apiDelete = <T>(path: string) => apiRequest<T>('DELETE', path);

/** A query string from the defined, non-empty values, in the order given. */
export function queryString(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}

async function readJson<T>(response: Response): Promise<ApiResponse<T> | null> {
  try {
    return (await response.json()) as ApiResponse<T>;
  } catch {
    return null;
  }
}

/**
 * What to show for a failed call: the server's own message when it sent one; when the studio did
 * not answer, that it is briefly unavailable (without the server's "nothing was charged", which
 * only the server can know).
 */
export function errorText(result: ApiResult<unknown>): string {
  const content = result.body?.content;
  if (typeof content === 'string' && content.length > 0) return content;
  return isStudioUnavailable(result.status, content) ? STUDIO_NOT_ANSWERING : Messages.serverError;
}
