import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request a receiver got: its headers, its raw body (as signed), when, and the answer given. */
export interface ReceivedWebhook {
  id: string;
  path: string;
  headers: Record<string, string>;
  body: string;
  json: { type: string; timestamp: string; data: Record<string, unknown> };
  at: number;
  status: number;
}

/**
 * A webhook receiver on 127.0.0.1 for the tests and the bench: records every request and answers
 * as `answer` says (200 unless told). Tests wait for what they need (`waitFor`), never for time.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** Connections opened to it, requests or not (the SSRF tests count them). */
  connections = 0;
  answer: (request: Omit<ReceivedWebhook, 'status'>) => number = () => 200;
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private readonly waiters = new Set<() => void>();

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = flatten(req.headers);
        let json: ReceivedWebhook['json'];
        try {
          json = JSON.parse(body) as ReceivedWebhook['json'];
        } catch {
          json = { type: '?', timestamp: '', data: {} };
        }
        const request = {
          id: headers['webhook-id'] ?? '',
          path: req.url ?? '',
          headers,
          body,
          json,
          at: Date.now(),
        };
        const status = this.answer(request);
        this.received.push({ ...request, status });
        res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
        for (const wake of [...this.waiters]) wake();
      });
    });
    this.server.on('connection', (socket) => {
      this.connections += 1;
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `check` passes on what has been received (at each new request), or fails after the bound. */
  waitFor<T>(check: (received: ReceivedWebhook[]) => T | undefined | false, timeoutMs = 60_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const look = () => {
        const result = check(this.received);
        if (result === undefined || result === false) return false;
        this.waiters.delete(look);
        clearTimeout(timer);
        resolve(result);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(look);
        reject(new Error(`the receiver did not get what was awaited (${this.received.length} requests)`));
      }, timeoutMs);
      if (!look()) this.waiters.add(look);
    });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}
