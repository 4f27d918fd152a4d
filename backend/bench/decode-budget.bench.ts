/**
 * Decoding budgets (issue 35): peak resident memory of the API and every process it started (the
 * provenance child, ffmpeg/ffprobe), summed over its process tree and sampled every 5 ms, while
 *  1. 12 parallel JSON data-URL uploads of 16 MB (base64 of a 12 MB file; superResolution), beside
 *     the same bytes as multipart;
 *  2. 20 parallel pixel bombs (a 140 KB PNG declaring 6000x6000, and one declaring 7000x7000) to
 *     every upload route (the public verify page and each image tool; one user, as an attacker
 *     would be), beside the idle app; each answer's time, and the time of a normal request
 *     (GET /api/health, anonymous) measured meanwhile.
 * The app runs in a child process with provenance on (a development chain made here).
 */
import 'reflect-metadata';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { serveBenchApp } from './bench-client';
import { peakDuring, treeRss } from './process-memory';

const MB = 1024 * 1024;
const ROOT = path.resolve(__dirname, '..', '..');

interface Ready {
  port: number;
  /** One signed-in user per parallel request: the per-user upload slots (3) do not cut the load. */
  cookies: string[];
}

function post(
  port: number,
  route: string,
  cookie: string,
  type: string,
  body: Buffer,
): Promise<{ status: number; ms: number }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = http.request({
      host: '127.0.0.1',
      port,
      path: route,
      method: 'POST',
      agent: false,
      headers: { cookie, 'content-type': type, 'content-length': body.length },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0 }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - t0 }));
    req.end(body);
  });
}

const BOUNDARY = '----decodebench';
const multipart = (field: string, file: Buffer) =>
  Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="a.png"\r\n` +
        'Content-Type: image/png\r\n\r\n',
    ),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;

/** Latencies of GET /api/health, one after another, until `until` settles. */
async function probeLatency(port: number, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const times: number[] = [];
  while (!done) {
    const t0 = performance.now();
    await new Promise<void>((resolve) =>
      http.get({ host: '127.0.0.1', port, path: '/api/health', agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      }),
    );
    times.push(performance.now() - t0);
  }
  return times;
}

const mb = (bytes: number) => `${(bytes / MB).toFixed(0)} MB`;
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
};

async function main(): Promise<void> {
  const certs = mkdtempSync(path.join(tmpdir(), 'decode-bench-'));
  execFileSync('bash', [path.join(ROOT, 'deploy', 'local', 'make-signing-cert.sh'), certs, 'Bench']);
  const child: ChildProcess = fork(__filename, [], {
    execArgv: ['-r', 'ts-node/register'],
    env: {
      ...process.env,
      DECODE_BENCH_ROLE: 'app',
      PROVENANCE_CERT_CHAIN: path.join(certs, 'chain.pem'),
      PROVENANCE_PRIVATE_KEY: path.join(certs, 'signer.key'),
      PROVENANCE_PYTHON: path.join(ROOT, '.tools', 'provenance', 'bin', 'python'),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<Ready>((resolve) => child.once('message', (m) => resolve(m as Ready)));
  const pid = child.pid!;
  const { port, cookies } = ready;
  try {
    // warm the provenance child with one small verify (it starts on first use)
    const small = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#777' } })
      .png()
      .toBuffer();
    await post(port, '/api/verify', '', MULTIPART, multipart('file', small));

    // 1. data URLs: 12 MB of noise as a PNG-typed data URL (16 MB of base64)
    const noise = Buffer.alloc(12 * MB);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const json = Buffer.from(
      JSON.stringify({ original: `data:image/png;base64,${noise.toString('base64')}` }),
    );
    console.log(`\n== 12 parallel uploads of ${mb(json.length)} to /api/superResolution ==`);
    for (const [label, type, body] of [
      ['multipart (same bytes, raw baseline)', MULTIPART, multipart('original', noise)],
      ['JSON data URL', 'application/json', json],
    ] as const) {
      const idle = treeRss(pid);
      let answers: { status: number; ms: number }[] = [];
      const peak = await peakDuring(
        pid,
        async () => {
          answers = await Promise.all(
            Array.from({ length: 12 }, (_, i) => post(port, '/api/superResolution', cookies[i], type, body)),
          );
        },
        treeRss,
      );
      console.log(
        `${label}: idle ${mb(idle)}, peak ${mb(peak)}, +${mb(peak - idle)} | answers ` +
          `${[...new Set(answers.map((a) => a.status))].join(',')} | slowest ${pct(
            answers.map((a) => a.ms),
            100,
          ).toFixed(0)} ms`,
      );
    }

    // 2. pixel bombs on every upload route: 36 MP (over verify's budget, within the tools' 40 MP)
    // and 49 MP (over every budget)
    const routes: [string, string][] = [
      ['/api/verify', 'file'],
      ['/api/generateNoise', 'original'],
      ['/api/superResolution', 'original'],
      ['/api/inpaintImage', 'original'],
      ['/api/bulkInpaintImage', 'original'],
      ['/api/faceSwap/check', 'Swap0'],
      ['/api/faceSwap', 'Swap0'],
    ];
    const idleHealth = await probeLatency(port, new Promise((resolve) => setTimeout(resolve, 2000)));
    console.log(
      `\nidle app: tree RSS ${mb(treeRss(pid))}; GET /api/health p50 ${pct(idleHealth, 50).toFixed(1)} ms, ` +
        `p99 ${pct(idleHealth, 99).toFixed(1)} ms`,
    );
    for (const side of [6000, 7000]) {
      const bomb = await sharp({
        create: { width: side, height: side, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
      })
        .png({ compressionLevel: 9 })
        .toBuffer();
      console.log(
        `\n== 20 parallel pixel bombs (${(bomb.length / 1024).toFixed(0)} KB PNG declaring ${side}x${side}) per route ==`,
      );
      for (const [route, field] of routes) {
        const idle = treeRss(pid);
        let answers: { status: number; ms: number }[] = [];
        let health: number[] = [];
        const peak = await peakDuring(
          pid,
          async () => {
            const load = Promise.all(
              Array.from({ length: 20 }, (_, i) =>
                post(
                  port,
                  route,
                  route === '/api/verify' ? '' : cookies[i],
                  MULTIPART,
                  multipart(field, bomb),
                ),
              ),
            );
            [answers, health] = await Promise.all([load, probeLatency(port, load)]);
          },
          treeRss,
        );
        const statuses = answers.map((a) => a.status);
        console.log(
          `${route}: +${mb(peak - idle)} (idle ${mb(idle)}, peak ${mb(peak)}) | answers ` +
            `${[...new Set(statuses)].map((s) => `${s}x${statuses.filter((x) => x === s).length}`).join(' ')} | ` +
            `slowest answer ${pct(
              answers.map((a) => a.ms),
              100,
            ).toFixed(0)} ms | health meanwhile p50 ` +
            `${pct(health, 50).toFixed(1)} ms, p99 ${pct(health, 99).toFixed(1)} ms (${health.length})`,
        );
      }
    }
  } finally {
    child.kill();
  }
}

if (process.env.DECODE_BENCH_ROLE === 'app') {
  // JOB_WAIT_MS 0: a tool answers once its job is queued (the bench measures uploads, not jobs)
  serveBenchApp('dec', 100000, 20, { JOB_WAIT_MS: '0' }).catch((err) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
