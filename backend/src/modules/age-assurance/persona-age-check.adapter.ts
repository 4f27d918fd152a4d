import { createHmac, timingSafeEqual } from 'node:crypto';
import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import { AgeAssuranceMessages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import {
  AgeProviderPort,
  WebhookRejected,
  type ProviderCheck,
  type ProviderCheckState,
  type ProviderEvent,
} from './age-provider.port';

/** The API version the adapter is written against (Persona pins behaviour per version). */
export const PERSONA_API_VERSION = '2023-01-05';

/**
 * How far a webhook's signed time may be from ours. Persona signs `t` when it sends; its guidance
 * (and Stripe's, whose scheme it follows) is to refuse old timestamps so a captured request cannot
 * be replayed later; within the window a replay is harmless (the check is settled once).
 */
export const PERSONA_SIGNATURE_TOLERANCE_SECONDS = 300;

/** Persona's inquiry statuses, as the studio reads them (https://docs.withpersona.com, Inquiries). */
const STATES: Record<string, ProviderCheckState> = {
  approved: 'approved',
  declined: 'declined',
  failed: 'declined',
  expired: 'declined',
};

interface InquiryResource {
  data?: { id?: string; type?: string; attributes?: { status?: string; 'reference-id'?: string | null } };
}

interface PersonaEvent {
  data?: {
    id?: string;
    type?: string;
    attributes?: { name?: string; payload?: InquiryResource };
  };
}

/**
 * Persona (withpersona.com): an inquiry is created from the operator's age-check template with
 * the account's id as reference-id, the user goes through Persona's hosted flow, and Persona
 * posts inquiry events to the webhook, signed `Persona-Signature: t=<unix>,v1=<hex HMAC-SHA256 of
 * "t.body">` (two space-separated pairs while a secret rotates).
 */
@Injectable()
export class PersonaAgeCheck extends AgeProviderPort {
  readonly name = 'persona';

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  get configured(): boolean {
    return Boolean(this.config.PERSONA_API_KEY);
  }

  async start(input: { userId: string; returnUrl: string }): Promise<{ reference: string; url: string }> {
    const created = (await this.call('POST', '/api/v1/inquiries', {
      data: {
        attributes: {
          'inquiry-template-id': this.config.PERSONA_INQUIRY_TEMPLATE_ID,
          'reference-id': input.userId,
        },
      },
    })) as InquiryResource;
    const reference = created.data?.id;
    if (!reference) throw new ServiceUnavailableException('The age-check provider gave no inquiry');
    // An inquiry made by API and not yet opened is entered by its id (no session token needed).
    const url = new URL('/verify', this.config.PERSONA_FLOW_URL);
    url.searchParams.set('inquiry-id', reference);
    url.searchParams.set('redirect-uri', input.returnUrl);
    return { reference, url: url.toString() };
  }

  async retrieve(reference: string): Promise<ProviderCheck | null> {
    const found = (await this.call(
      'GET',
      `/api/v1/inquiries/${encodeURIComponent(reference)}`,
    )) as InquiryResource | null;
    const inquiry = found?.data;
    if (!inquiry || inquiry.type !== 'inquiry' || inquiry.id !== reference) return null;
    const status = inquiry.attributes?.status ?? 'unknown';
    return {
      reference,
      userId: inquiry.attributes?.['reference-id'] ?? '',
      state: STATES[status] ?? 'pending',
      providerStatus: status,
    };
  }

  verifyWebhook(rawBody: Buffer, signatureHeader: string | undefined, now: Date): ProviderEvent {
    const secret = this.config.PERSONA_WEBHOOK_SECRET;
    if (!secret || !signatureHeader) throw new WebhookRejected('bad_signature');
    // One `t=...,v1=...` set, or two separated by a space while the secret is being rotated.
    const signed = signatureHeader
      .trim()
      .split(/\s+/)
      .map(parseSignature)
      .find((pair) => pair && matches(pair.v1, hmacHex(secret, `${pair.t}.`, rawBody)));
    if (!signed) throw new WebhookRejected('bad_signature');
    const age = Math.abs(now.getTime() / 1000 - Number(signed.t));
    if (age > PERSONA_SIGNATURE_TOLERANCE_SECONDS) throw new WebhookRejected('stale');
    const event = (JSON.parse(rawBody.toString('utf8')) ?? {}) as PersonaEvent;
    const subject = event.data?.attributes?.payload?.data;
    return {
      eventId: event.data?.id ?? '',
      name: event.data?.attributes?.name ?? '',
      reference: subject?.type === 'inquiry' && typeof subject.id === 'string' ? subject.id : '',
    };
  }

  /** One JSON:API call; a 404 is null (an unknown inquiry), other failures are the provider's (503). */
  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown> {
    if (!this.configured) throw new ServiceUnavailableException(AgeAssuranceMessages.providerNotConfigured);
    const res = await fetch(new URL(path, this.config.PERSONA_API_URL), {
      method,
      headers: {
        Authorization: `Bearer ${this.config.PERSONA_API_KEY}`,
        'Persona-Version': PERSONA_API_VERSION,
        Accept: 'application/json',
        ...(body ? { 'Content-Type': 'application/json' } : {}),
      },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(15_000),
    }).catch((err: unknown) => {
      throw new ServiceUnavailableException('The age-check provider cannot be reached', { cause: err });
    });
    if (res.status === 404) return null;
    if (!res.ok) throw new ServiceUnavailableException(`The age-check provider answered ${res.status}`);
    return res.json();
  }
}

function parseSignature(part: string): { t: string; v1: string } | null {
  const fields = new Map(
    part.split(',').map((kv) => {
      const at = kv.indexOf('=');
      return [kv.slice(0, at), kv.slice(at + 1)] as const;
    }),
  );
  const t = fields.get('t');
  const v1 = fields.get('v1');
  return t && /^\d{1,12}$/.test(t) && v1 ? { t, v1 } : null;
}

export function hmacHex(secret: string, prefix: string, body: Buffer): string {
  return createHmac('sha256', secret).update(prefix).update(body).digest('hex');
}

/** Constant-time comparison of two hex digests (different lengths never match). */
function matches(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
