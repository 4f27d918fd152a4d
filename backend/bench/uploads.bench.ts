/**
 * Upload memory benchmark: the API's peak resident memory while clients push large multipart
 * bodies it should refuse, beside a bare Node http server that reads and discards the same bytes.
 *  1. Six concurrent 60 MB uploads to faceSwapVideo with its feature flag off (one user).
 *  2. Eight concurrent clone requests of 30 parts × 14 MB (Clone0..Clone29, one user with credits).
 *  3. The same clone requests sent chunked (no Content-Length), so only counting can stop them.
 * Each server runs in a child process; the parent samples /proc/<pid>/status (VmRSS) every 5 ms.
 */
import 'reflect-metadata';
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { serveBenchApp } from './bench-client';
import { peakDuring, rssOf } from './process-memory';

const MB = 1024 * 1024;
const ROLE = process.env.UPLOADS_BENCH_ROLE;

interface Ready {
  port: number;
  cookie: string;
}

/** The raw baseline: a bare http server that reads every byte, keeps none, and answers 200. */
function serveRaw(): void {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{}'));
  });
  server.listen(0, '127.0.0.1', () => {
    process.send!({ port: (server.address() as AddressInfo).port, cookie: '' } satisfies Ready);
  });
}

function startChild(role: 'app' | 'raw'): Promise<{ child: ChildProcess; ready: Ready }> {
  const child = fork(__filename, [], {
    execArgv: ['-r', 'ts-node/register'],
    env: { ...process.env, UPLOADS_BENCH_ROLE: role },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (ready) => resolve({ child, ready: ready as Ready }));
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
}

interface Part {
  name: string;
  bytes: number;
}

interface Outcome {
  status: number;
  /** Bytes written by the client before the answer came (or the connection closed). */
  sentBeforeAnswer: number;
}

const BOUNDARY = '----studiobenchboundary';
const CHUNK = Buffer.alloc(MB, 0x5a);

/**
 * One multipart POST, written 1 MB at a time with back-pressure; stops writing when the server has
 * answered or closed the connection (as a browser does).
 */
function upload(
  port: number,
  path: string,
  cookie: string,
  parts: Part[],
  chunked: boolean,
): Promise<Outcome> {
  const heads = parts.map((p) =>
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.name}.bin"\r\n` +
        'Content-Type: application/octet-stream\r\n\r\n',
    ),
  );
  const tail = Buffer.from(`--${BOUNDARY}--\r\n`);
  const length = heads.reduce((n, h, i) => n + h.length + parts[i].bytes + 2, 0) + tail.length;
  const headers: http.OutgoingHttpHeaders = {
    cookie,
    'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
  };
  if (!chunked) headers['content-length'] = length;
  return new Promise((resolve) => {
    let sent = 0;
    let answered: Outcome | undefined;
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false });
    req.on('response', (res) => {
      answered = { status: res.statusCode ?? 0, sentBeforeAnswer: sent };
      res.resume();
      res.on('end', () => resolve(answered!));
      res.on('error', () => resolve(answered!));
    });
    req.on('error', () => resolve(answered ?? { status: 0, sentBeforeAnswer: sent }));
    const write = (data: Buffer) =>
      new Promise<boolean>((done) => {
        if (answered || req.destroyed) return done(false);
        sent += data.length;
        if (req.write(data)) return done(true);
        const onDrain = () => {
          req.off('close', onClose);
          done(!answered);
        };
        const onClose = () => {
          req.off('drain', onDrain);
          done(false);
        };
        req.once('drain', onDrain);
        req.once('close', onClose);
      });
    void (async () => {
      for (let i = 0; i < parts.length; i += 1) {
        if (!(await write(heads[i]))) return;
        for (let left = parts[i].bytes; left > 0; left -= CHUNK.length) {
          if (!(await write(left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)))) return;
        }
        if (!(await write(Buffer.from('\r\n')))) return;
      }
      if (await write(tail)) req.end();
    })();
  });
}

const videoParts: Part[] = [
  { name: 'SwapVideo0', bytes: 60 * MB },
  { name: 'SwapVideo1', bytes: 256 * 1024 },
];
const cloneParts: Part[] = Array.from({ length: 30 }, (_, i) => ({ name: `Clone${i}`, bytes: 14 * MB }));

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;

async function scenario(
  label: string,
  servers: { name: string; pid: number; ready: Ready }[],
  count: number,
  path: string,
  parts: Part[],
  chunked: boolean,
): Promise<void> {
  const total = parts.reduce((n, p) => n + p.bytes, 0);
  console.log(`\n== ${label}: ${count} concurrent × ${mb(total)}${chunked ? ' (chunked)' : ''} ==`);
  for (const server of servers) {
    const idle = rssOf(server.pid);
    const t0 = performance.now();
    let outcomes: Outcome[] = [];
    const peak = await peakDuring(server.pid, async () => {
      outcomes = await Promise.all(
        Array.from({ length: count }, () =>
          upload(server.ready.port, path, server.ready.cookie, parts, chunked),
        ),
      );
    });
    const seconds = (performance.now() - t0) / 1000;
    const statuses = outcomes.map((o) => o.status).join(',');
    const sent = Math.max(...outcomes.map((o) => o.sentBeforeAnswer));
    console.log(
      `${server.name}: idle ${mb(idle)}, peak ${mb(peak)}, +${mb(peak - idle)} | answers ${statuses} | ` +
        `most bytes sent before an answer ${mb(sent)} | ${seconds.toFixed(1)} s`,
    );
  }
}

async function main(): Promise<void> {
  const raw = await startChild('raw');
  const app = await startChild('app');
  const servers = [
    { name: 'raw http server (discards)', pid: raw.child.pid!, ready: raw.ready },
    { name: 'API', pid: app.child.pid!, ready: app.ready },
  ];
  try {
    await scenario('faceSwapVideo, flag off', servers, 6, '/api/faceSwapVideo', videoParts, false);
    await scenario('generateNoise Clone0..29', servers, 8, '/api/generateNoise', cloneParts, false);
    await scenario('generateNoise Clone0..29', servers, 8, '/api/generateNoise', cloneParts, true);
  } finally {
    raw.child.kill();
    app.child.kill();
  }
}

if (ROLE === 'app') {
  serveBenchApp('up', 1000).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else if (ROLE === 'raw') {
  serveRaw();
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
