import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Replicate signs webhooks the Standard Webhooks way: HMAC-SHA256, keyed with the base64 part of
 * the secret (`whsec_…`, from GET /v1/webhooks/default/secret), over
 * `${webhook-id}.${webhook-timestamp}.${raw body}`; `webhook-signature` lists `v1,<base64>`
 * signatures separated by spaces. A few lines of node:crypto, so no SDK for it.
 */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

export function signReplicateWebhook(
  secret: string,
  id: string,
  timestamp: number,
  body: string | Buffer,
): string {
  return `v1,${hmac(secret, id, String(timestamp), body)}`;
}

export type WebhookCheck = { ok: true } | { ok: false; reason: string };

export function verifyReplicateWebhook(
  secret: string,
  headers: { id?: string; timestamp?: string; signature?: string },
  body: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): WebhookCheck {
  const { id, timestamp, signature } = headers;
  if (!id || !timestamp || !signature) return { ok: false, reason: 'Missing webhook signature headers' };
  if (!/^\d+$/.test(timestamp)) return { ok: false, reason: 'Bad webhook timestamp' };
  // A replay of an old delivery is refused even with its valid signature.
  if (Math.abs(nowSeconds - Number(timestamp)) > WEBHOOK_TOLERANCE_SECONDS) {
    return { ok: false, reason: 'Webhook timestamp too old or in the future' };
  }
  const expected = Buffer.from(hmac(secret, id, timestamp, body), 'base64');
  for (const part of signature.split(' ')) {
    const [version, value] = part.split(',');
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'Invalid webhook signature' };
}

function hmac(secret: string, id: string, timestamp: string, body: string | Buffer): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest('base64');
}
