import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { WebhookMessages } from '@studio/contracts';
import {
  hostOf,
  parseWebhookUrl,
  resolveChecked,
  UnsafeWebhookUrl,
  type AddressPolicy,
} from './address-guard';

/** What one attempt came to: the receiver's status code, or why there was none. */
export interface AttemptResult {
  ok: boolean;
  statusCode?: number;
  error?: string;
}

/** At most this much of an answer is read (and thrown away). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * The connection's name lookup, checked: every address the name has now is checked by the guard
 * before the socket connects, so a name that pointed at a public address when it was registered
 * and points into a private network now (DNS rebinding) is refused at delivery.
 */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : undefined;
        const usable = wanted ? addresses.filter((a) => a.family === wanted) : addresses;
        if (usable.length === 0) {
          callback(
            Object.assign(new Error(WebhookMessages.unresolvable(hostname)), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        } else if (options.all) {
          (callback as unknown as (err: null, all: { address: string; family: number }[]) => void)(
            null,
            usable,
          );
        } else {
          callback(null, usable[0].address, usable[0].family);
        }
      },
      (err: Error) => callback(Object.assign(err, { code: 'EREFUSED' }), '', 0),
    );
  };
}

/**
 * POSTs one signed delivery: a short timeout, no redirects followed (a 3xx is a failure), and the
 * address checked on the way (an address literal here, a name through the connection's lookup).
 */
export async function sendWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: { policy: AddressPolicy; timeoutMs: number },
): Promise<AttemptResult> {
  let url: URL;
  try {
    url = parseWebhookUrl(rawUrl, options.policy);
    // A literal address never goes through the lookup: check it here.
    const host = hostOf(url);
    if (isIP(host)) await resolveChecked(host, options.policy);
  } catch (err) {
    return { ok: false, error: err instanceof UnsafeWebhookUrl ? err.message : String(err) };
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'AI-Studio-Webhooks/1.0',
          ...headers,
        },
        lookup: guardedLookup(options.policy),
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) res.destroy();
        });
        const done = () => {
          if (status >= 200 && status < 300) settle({ ok: true, statusCode: status });
          else if (status >= 300 && status < 400)
            settle({ ok: false, statusCode: status, error: WebhookMessages.redirect(status) });
          else settle({ ok: false, statusCode: status, error: `The receiver answered ${status}` });
        };
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(() => {
      settle({ ok: false, error: WebhookMessages.timeout(options.timeoutMs) });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (err: Error) => settle({ ok: false, error: err.message }));
    req.end(body);
  });
}
