import { createHmac, randomBytes } from 'node:crypto';
import { WEBHOOK_HEADERS, WEBHOOK_SECRET_PREFIX } from '@studio/contracts';

/** Random bytes of a new signing secret (Standard Webhooks asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` and the base64 of 32 random bytes (Standard Webhooks). */
export function newWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The key a secret stands for: the bytes of its base64 part. */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  return Buffer.from(encoded, 'base64');
}

/**
 * The Standard Webhooks signature of one attempt: `v1,` and the base64 HMAC-SHA256, under the
 * secret's key, of `<id>.<timestamp>.<body>` (the timestamp in whole seconds since 1970).
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest('base64');
  return `v1,${mac}`;
}

/** The headers of one attempt, signed now (each attempt and replay gets its own timestamp). */
export function webhookHeaders(
  secret: string,
  id: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: String(timestamp),
    [WEBHOOK_HEADERS.signature]: signWebhook(secret, id, timestamp, body),
  };
}
