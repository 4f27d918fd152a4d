import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for Persona (withpersona.com), written from its public API docs, as the GPU servers'
 * fakes are: the inquiries API (create from a template with a reference-id, retrieve; JSON:API
 * bodies, Bearer key, Persona-Version header), the hosted flow's /verify page (a form where the
 * "person" finishes: adult, or under 18 and declined, as an age-check template would decide), and
 * webhooks delivered to the studio signed `Persona-Signature: t=<unix>,v1=<HMAC-SHA256 hex of
 * "t.body">` with the webhook secret.
 */
export interface FakePersona {
  url: string;
  /** Where events are posted (the studio's /api/age-assurance/persona/webhook). */
  webhookUrl?: string;
  /** Inquiries as the fake holds them. */
  inquiries: Map<string, { id: string; status: string; referenceId: string; templateId: string }>;
  /** Every webhook it delivered: the raw body and the signature header, for replays in tests. */
  delivered: { body: string; signature: string; status: number }[];
  /** Sets an inquiry's status as Persona would and delivers the events to the webhook. */
  decide(inquiryId: string, status: 'approved' | 'declined' | 'failed' | 'expired'): Promise<void>;
  /** An event for an inquiry, its raw body and a signature (of `secret`, at `t`, by default now). */
  event(name: string, inquiryId: string, options?: { t?: number; secret?: string }): SignedEvent;
  close(): Promise<void>;
}

export interface SignedEvent {
  body: string;
  signature: string;
}

export function personaSignature(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/** The key, template and webhook secret the tests' fake and app share. */
export const FAKE_PERSONA_ACCOUNT = {
  apiKey: 'persona_sandbox_test-key',
  templateId: 'itmpl_AgeCheck18Plus',
  webhookSecret: 'wbhsec_test-webhook-secret',
} as const;

/** The app's settings that point it at a fake (start the app, then set `fake.webhookUrl`). */
export function personaSettings(fake: FakePersona): Record<string, string> {
  return {
    PERSONA_API_KEY: FAKE_PERSONA_ACCOUNT.apiKey,
    PERSONA_INQUIRY_TEMPLATE_ID: FAKE_PERSONA_ACCOUNT.templateId,
    PERSONA_WEBHOOK_SECRET: FAKE_PERSONA_ACCOUNT.webhookSecret,
    PERSONA_API_URL: fake.url,
    PERSONA_FLOW_URL: fake.url,
  };
}

/** Where the studio takes Persona's webhooks. */
export const personaWebhookUrl = (appUrl: string) => `${appUrl}/api/age-assurance/persona/webhook`;

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

export async function startFakePersona(
  options: { apiKey: string; templateId: string; webhookSecret: string } = FAKE_PERSONA_ACCOUNT,
): Promise<FakePersona> {
  const inquiries: FakePersona['inquiries'] = new Map();
  const delivered: FakePersona['delivered'] = [];

  const resource = (inquiryId: string) => {
    const inquiry = inquiries.get(inquiryId)!;
    return {
      type: 'inquiry',
      id: inquiry.id,
      attributes: {
        status: inquiry.status,
        'reference-id': inquiry.referenceId,
        'created-at': new Date().toISOString(),
      },
      relationships: { template: { data: { type: 'inquiry-template', id: inquiry.templateId } } },
    };
  };

  const event = (
    name: string,
    inquiryId: string,
    opts: { t?: number; secret?: string } = {},
  ): SignedEvent => {
    const body = JSON.stringify({
      data: {
        type: 'event',
        id: id('evt'),
        attributes: {
          name,
          payload: {
            data: inquiries.has(inquiryId) ? resource(inquiryId) : { type: 'inquiry', id: inquiryId },
          },
          'created-at': new Date().toISOString(),
        },
      },
    });
    const t = opts.t ?? Math.floor(Date.now() / 1000);
    return { body, signature: personaSignature(opts.secret ?? options.webhookSecret, t, body) };
  };

  const fake: FakePersona = {
    url: '',
    inquiries,
    delivered,
    event,
    async decide(inquiryId, status) {
      const inquiry = inquiries.get(inquiryId);
      if (!inquiry) throw new Error(`no inquiry ${inquiryId}`);
      // completed first, then the decision, as Persona's workflows send them
      inquiry.status = status === 'approved' || status === 'declined' ? 'completed' : status;
      await deliver(event('inquiry.completed', inquiryId));
      inquiry.status = status;
      await deliver(event(`inquiry.${status}`, inquiryId));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  async function deliver(signed: SignedEvent): Promise<void> {
    if (!fake.webhookUrl) return;
    const res = await fetch(fake.webhookUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Persona-Signature': signed.signature },
      body: signed.body,
    });
    delivered.push({ ...signed, status: res.status });
  }

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  const errors = (res: ServerResponse, status: number, title: string) =>
    json(res, status, { errors: [{ title }] });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', fake.url);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');

    // The hosted flow: the page, and its form's answer (the person finishes the check).
    if (url.pathname === '/verify' && req.method === 'GET') {
      const inquiryId = url.searchParams.get('inquiry-id') ?? '';
      if (!inquiries.has(inquiryId)) return errors(res, 404, 'Inquiry not found');
      inquiries.get(inquiryId)!.status = 'pending';
      res
        .writeHead(200, { 'Content-Type': 'text/html' })
        .end(
          `<form method="post" action="/verify?${url.searchParams}"><button name="result" value="adult">Adult</button>` +
            '<button name="result" value="under-18">Under 18</button></form>',
        );
      return;
    }
    if (url.pathname === '/verify' && req.method === 'POST') {
      const inquiryId = url.searchParams.get('inquiry-id') ?? '';
      if (!inquiries.has(inquiryId)) return errors(res, 404, 'Inquiry not found');
      const result = new URLSearchParams(raw).get('result');
      await fake.decide(inquiryId, result === 'adult' ? 'approved' : 'declined');
      const back = new URL(url.searchParams.get('redirect-uri') ?? '/', fake.url);
      back.searchParams.set('inquiry-id', inquiryId);
      res.writeHead(302, { Location: back.toString() }).end();
      return;
    }

    // The API: a Bearer key and an API version on every call.
    if (req.headers.authorization !== `Bearer ${options.apiKey}`) return errors(res, 401, 'Unauthorized');
    if (!req.headers['persona-version']) return errors(res, 400, 'Persona-Version header required');
    if (url.pathname === '/api/v1/inquiries' && req.method === 'POST') {
      const attributes = (JSON.parse(raw) as { data?: { attributes?: Record<string, string> } }).data
        ?.attributes;
      const templateId = attributes?.['inquiry-template-id'];
      if (templateId !== options.templateId) return errors(res, 422, 'Invalid inquiry template');
      const inquiry = {
        id: id('inq'),
        status: 'created',
        referenceId: attributes?.['reference-id'] ?? '',
        templateId,
      };
      inquiries.set(inquiry.id, inquiry);
      return json(res, 201, { data: resource(inquiry.id) });
    }
    const match = /^\/api\/v1\/inquiries\/([^/]+)$/.exec(url.pathname);
    if (match && req.method === 'GET') {
      if (!inquiries.has(match[1])) return errors(res, 404, 'Record not found');
      return json(res, 200, { data: resource(match[1]) });
    }
    return errors(res, 404, 'Not found');
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => errors(res, 500, String(err)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
