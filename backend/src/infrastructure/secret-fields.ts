/**
 * What never reaches a log (issue 52): the one list of request and response headers, and of body
 * and query-string fields, that carry a credential, a token or a signature. The logging module
 * (logging.module.ts) masks them in every line it writes: in the request's and the response's
 * headers, in the logged URL's query string and parsed query, and in any logged object's fields.
 * Names are compared without regard to case. A new route that takes a secret adds its name here.
 */

/** Headers, lower-case as Node hands them over. */
export const SECRET_HEADERS: readonly string[] = [
  // Personal API keys (`Bearer sk_studio_…`) and the Prometheus METRICS_TOKEN.
  'authorization',
  'proxy-authorization',
  // Where other APIs take keys: a caller may send one of ours there by mistake.
  'x-api-key',
  // The session, as the browser sends it and as login sets it.
  'cookie',
  'set-cookie',
  // Signed webhooks: Stripe's payments, Persona's age checks, Standard Webhooks (Replicate).
  'stripe-signature',
  'persona-signature',
  'webhook-signature',
];

/** Fields of a JSON body or a query string. */
export const SECRET_FIELDS: readonly string[] = [
  // Register, login, password change (`currentPassword`, new `password`) and reset, account deletion.
  'password',
  'currentPassword',
  'newPassword',
  // The mailed links: email verification and password reset (`/verify-email?token=…`).
  'token',
  // Patreon secrets; API keys' and webhook endpoints' secrets in the answers that make them.
  'secret',
  // Where other APIs take keys and tokens in a query string.
  'apiKey',
  'api_key',
  'access_token',
];

/** What a masked value is written as. */
export const REDACTED = '[Redacted]';

const secretHeaders = new Set(SECRET_HEADERS.map((name) => name.toLowerCase()));
const secretFields = new Set(SECRET_FIELDS.map((name) => name.toLowerCase()));

export const isSecretHeader = (name: string): boolean => secretHeaders.has(name.toLowerCase());
export const isSecretField = (name: string): boolean => secretFields.has(name.toLowerCase());

/** A copy of the headers with every secret one's value masked. */
export function withoutSecretHeaders<T extends object>(headers: T): T {
  return maskKeys(headers, isSecretHeader);
}

/** A copy of a parsed query or body with every secret field's value masked (top level). */
export function withoutSecretFields<T extends object>(fields: T): T {
  return maskKeys(fields, isSecretField);
}

/** A URL (path and query string, as logged) with the values of secret query parameters masked. */
export function withoutSecretParams(url: string): string {
  const start = url.indexOf('?');
  if (start < 0) return url;
  const hash = url.indexOf('#', start);
  const end = hash < 0 ? url.length : hash;
  const params = url
    .slice(start + 1, end)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=');
      const name = eq < 0 ? param : param.slice(0, eq);
      return isSecretField(decodedName(name)) && eq >= 0 ? `${name}=${REDACTED}` : param;
    });
  return `${url.slice(0, start)}?${params.join('&')}${url.slice(end)}`;
}

/** A query parameter's name as the app reads it (`%74oken`, `token[]` are `token` too). */
function decodedName(name: string): string {
  let decoded = name.replace(/\+/g, ' ');
  try {
    decoded = decodeURIComponent(decoded);
  } catch {
    // a malformed escape: match the name as written
  }
  return decoded.replace(/\[.*$/, '');
}

function maskKeys<T extends object>(source: T, secret: (name: string) => boolean): T {
  if (!source || typeof source !== 'object') return source;
  const copy: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(source)) copy[name] = secret(name) ? REDACTED : value;
  return copy as T;
}
