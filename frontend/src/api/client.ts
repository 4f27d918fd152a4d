import { API_PREFIX, Messages, type ApiResponse } from '@studio/contracts';

/** Status used when a request never reached the server (network failure). */
export const NO_RESPONSE = 0;

export interface ApiResult<T> {
  status: number;
  ok: boolean;
  /** The parsed `{message, content}` answer, or null when the body was not JSON. */
  body: ApiResponse<T> | null;
}

/**
 * Calls the API on the same origin. The session is an httpOnly cookie, so every call
 * includes credentials. Never throws: network failures are logged (spec section 8) and
 * come back with status NO_RESPONSE.
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
  return send<T>(path, init);
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
    return { status: NO_RESPONSE, ok: false, body: null };
  }
  return { status: response.status, ok: response.ok, body: await readJson<T>(response) };
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

/** What to show for a failed call: the server's own message when it sent one. */
export function errorText(result: ApiResult<unknown>): string {
  const content = result.body?.content;
  return typeof content === 'string' && content.length > 0 ? content : Messages.serverError;
}
