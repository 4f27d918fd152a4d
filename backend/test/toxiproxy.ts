import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { exited, freePort } from './processes';

const ROOT = join(__dirname, '../..');

/**
 * Shopify's toxiproxy (deploy/local/lib.sh's ensure_toxiproxy builds it into .tools/bin): a TCP
 * proxy between the app and one of its parts, whose faults are set over its HTTP API. The client
 * is these few calls over fetch (the npm client would be a dependency for five requests).
 */
export interface Toxiproxy {
  /** http://127.0.0.1:port of its API. */
  readonly api: string;
  /** A proxy from a free port on 127.0.0.1 to `upstream` (host:port). */
  proxy(name: string, upstream: string): Promise<ToxicProxy>;
  /** Ends the server (and every proxy). */
  stop(): Promise<void>;
}

/** The attributes of each toxic the fault suite uses (toxiproxy's README lists them all). */
export type Toxic =
  /** Every chunk waits `latency` ms (± jitter) before it passes. */
  | { type: 'latency'; attributes: { latency: number; jitter?: number } }
  /** Data stops passing; the connection is closed after `timeout` ms (0: never, it hangs). */
  | { type: 'timeout'; attributes: { timeout: number } }
  /** The connection is reset (TCP RST) after `timeout` ms. */
  | { type: 'reset_peer'; attributes: { timeout: number } };

export interface ToxicProxy {
  readonly name: string;
  /** 127.0.0.1:port that the app connects to instead of the upstream. */
  readonly listen: string;
  readonly port: number;
  /** Adds a toxic on both directions (one per type at a time); returns a function that removes it. */
  add(toxic: Toxic): Promise<() => Promise<void>>;
  /** Disabled: open connections are closed and new ones refused, as if the part were gone. */
  setEnabled(enabled: boolean): Promise<void>;
}

export function toxiproxyBinary(): string {
  return process.env.TOXIPROXY_BIN ?? join(ROOT, '.tools/bin/toxiproxy-server');
}

/** Starts a toxiproxy server of the caller's own on a free port; resolves once its API answers. */
export async function startToxiproxy(): Promise<Toxiproxy> {
  const binary = toxiproxyBinary();
  if (!existsSync(binary)) throw new Error(`no toxiproxy at ${binary}: run npm test once (ensure_toxiproxy)`);
  const port = await freePort();
  const api = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(binary, ['-host', '127.0.0.1', '-port', String(port)], {
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const deadline = Date.now() + 30_000;
  while (
    !(await fetch(`${api}/version`).then(
      (r) => r.ok,
      () => false,
    ))
  ) {
    if (child.exitCode !== null) throw new Error(`toxiproxy exited at start (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error('toxiproxy did not answer in 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`toxiproxy ${method} ${path}: ${res.status} ${await res.text()}`);
    return res.status === 204 ? undefined : ((await res.json()) as Record<string, unknown>);
  };

  return {
    api,
    async proxy(name, upstream) {
      const listenPort = await freePort();
      const listen = `127.0.0.1:${listenPort}`;
      await call('POST', '/proxies', { name, listen, upstream, enabled: true });
      return {
        name,
        listen,
        port: listenPort,
        async add(toxic) {
          const names = (['downstream', 'upstream'] as const).map((stream) => `${toxic.type}_${stream}`);
          for (const [i, stream] of (['downstream', 'upstream'] as const).entries()) {
            await call('POST', `/proxies/${name}/toxics`, { name: names[i], stream, toxicity: 1, ...toxic });
          }
          return async () => {
            for (const toxicName of names) await call('DELETE', `/proxies/${name}/toxics/${toxicName}`);
          };
        },
        async setEnabled(enabled) {
          await call('POST', `/proxies/${name}`, { enabled });
        },
      };
    },
    async stop() {
      const gone = exited(child);
      child.kill('SIGTERM');
      await gone;
    },
  };
}
