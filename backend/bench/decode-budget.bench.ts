/**
 * Decoding budgets (issue 35): peak resident memory of the API and every process it started (the
 * provenance child, ffmpeg/ffprobe), summed over its process tree and sampled every 5 ms, while
 *  1. 12 parallel JSON data-URL uploads of 16 MB (base64 of a 12 MB file; superResolution), beside
 *     the same bytes as multipart;
 *  2. 20 parallel pixel bombs to every route that takes an image (verify, and each tool with the
 *     rest of its request complete, one user per request), beside the same requests with random
 *     bytes of the same size (the raw cost of receiving them and answering 4xx); bombs: the issue's
 *     6000x6000 PNG of zeros, a 7000x7000 one, a flat 6000x6000 JPEG, and a 6000x6000 PNG padded
 *     with noise to the densest file the pixels-per-byte rule lets through (decoded, in the decoder
 *     process); each answer's time, and another signed-in user's GET /api/jobs meanwhile.
 * The app runs in a child process with provenance on (a development chain made here).
 */
import 'reflect-metadata';
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomFillSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { writeTestVideo } from '../test/fixtures';
import { logIn, serveBenchApp } from './bench-client';
import { peakDuring, treeRss, treeRssOf } from './process-memory';

const MB = 1024 * 1024;
const BENCH_ADMIN = 'decodebenchadmin';
const BENCH_ADMIN_PASSWORD = 'decode-bench-admin-1';
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

/** Latencies of another user's GET /api/jobs, one after another, until `until` settles. */
async function probeLatency(port: number, cookie: string, until: Promise<unknown>): Promise<number[]> {
  let done = false;
  void until.finally(() => (done = true));
  const times: number[] = [];
  while (!done) {
    const t0 = performance.now();
    await new Promise<void>((resolve) =>
      http.get({ host: '127.0.0.1', port, path: '/api/jobs', agent: false, headers: { cookie } }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      }),
    );
    times.push(performance.now() - t0);
  }
  return times;
}

/** A multipart body of text fields and files. */
function form(fields: Record<string, string>, files: [field: string, data: Buffer, name: string][]) {
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
    );
  }
  for (const [field, data, name] of files) {
    parts.push(
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="${name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      data,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return { type: MULTIPART, data: Buffer.concat(parts) };
}

interface UploadRoute {
  name: string;
  path: string;
  public?: boolean;
  /** The whole request, with `file` where the route reads the untrusted image. */
  body: (file: Buffer, folder: string) => { type: string; data: Buffer };
}

/** Every route that takes an image, each request complete but for the image under test. */
function pixelBombRoutes(face: Buffer, mask: Buffer, clip: Buffer): UploadRoute[] {
  const inpaint = (folder: string) => ({ folder, prompt: 'smile', amount: '1' });
  const swap = (folder: string) => ({ folder, consent: 'true' });
  return [
    {
      name: 'verify (public)',
      path: '/api/verify',
      public: true,
      body: (f) => form({}, [['file', f, 'a.png']]),
    },
    {
      name: 'generateNoise',
      path: '/api/generateNoise',
      body: (f) => form({ amount: '1' }, [['original', f, 'a.png']]),
    },
    {
      name: 'superResolution',
      path: '/api/superResolution',
      body: (f) => form({}, [['original', f, 'a.png']]),
    },
    {
      name: 'superResolution (JSON data URL)',
      path: '/api/superResolution',
      body: (f) => ({
        type: 'application/json',
        data: Buffer.from(JSON.stringify({ original: `data:image/png;base64,${f.toString('base64')}` })),
      }),
    },
    {
      name: 'inpaintImage',
      path: '/api/inpaintImage',
      body: (f, folder) =>
        form(inpaint(folder), [
          ['original', f, 'a.png'],
          ['mask', mask, 'm.png'],
        ]),
    },
    {
      name: 'bulkInpaintImage (extra image)',
      path: '/api/bulkInpaintImage',
      body: (f, folder) =>
        form(inpaint(folder), [
          ['original', face, 'a.jpg'],
          ['mask', mask, 'm.png'],
          ['extra1', f, 'b.png'],
        ]),
    },
    {
      name: 'faceSwap/check (target)',
      path: '/api/faceSwap/check',
      body: (f) =>
        form({}, [
          ['Swap0', face, 'a.jpg'],
          ['Swap1', f, 'b.png'],
        ]),
    },
    {
      name: 'faceSwap (target)',
      path: '/api/faceSwap',
      body: (f, folder) =>
        form(swap(folder), [
          ['Swap0', face, 'a.jpg'],
          ['Swap1', f, 'b.png'],
        ]),
    },
    {
      name: 'faceSwapVideo/check (face)',
      path: '/api/faceSwapVideo/check',
      body: (f) =>
        form({}, [
          ['SwapVideo0', clip, 'c.mp4'],
          ['SwapVideo1', f, 'a.png'],
        ]),
    },
    {
      name: 'faceSwapVideo (face)',
      path: '/api/faceSwapVideo',
      body: (f, folder) =>
        form({ ...swap(folder), length: '1' }, [
          ['SwapVideo0', clip, 'c.mp4'],
          ['SwapVideo1', f, 'a.png'],
        ]),
    },
  ];
}

const zeroPng = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .png({ compressionLevel: 9 })
    .toBuffer();
const flatJpeg = (side: number) =>
  sharp({ create: { width: side, height: side, channels: 3, background: '#808080' } })
    .jpeg({ quality: 50 })
    .toBuffer();

/** A PNG of zeros whose first rows are noise, so that its file holds one byte per 32 pixels. */
async function paddedPng(side: number): Promise<Buffer> {
  const raw = Buffer.alloc(side * side * 4);
  const noisyRows = Math.ceil((side * side) / 32 / (side * 4)) + 2;
  randomFillSync(raw, 0, noisyRows * side * 4);
  return sharp(raw, { raw: { width: side, height: side, channels: 4 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/** Turns the video face swap on (a feature flag), as the bench's admin. */
async function setVideoFlag(port: number): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  const cookie = await logIn(base, BENCH_ADMIN, BENCH_ADMIN_PASSWORD);
  const res = await fetch(`${base}/api/admin/flags`, {
    method: 'PUT',
    headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ videoFaceSwap: true }),
  });
  if (res.status !== 200) throw new Error(`flags: ${res.status}`);
}

/** A folder of each bench user's own (another user's would be refused before the image is read). */
async function makeBenchFolders(port: number, cookies: string[]): Promise<string[]> {
  const folders: string[] = [];
  for (const cookie of cookies) {
    const res = await fetch(`http://127.0.0.1:${port}/api/makeFolder`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ title: 'bench' }),
    });
    folders.push(((await res.json()) as { content: { _id: string } }).content._id);
  }
  return folders;
}

/** Cancels every open job of the bench users, so a row's jobs do not run into the next row. */
async function settle(port: number, cookies: string[]): Promise<void> {
  const base = `http://127.0.0.1:${port}`;
  for (const cookie of cookies) {
    const jobs = (await (await fetch(`${base}/api/jobs`, { headers: { cookie } })).json()) as {
      content: { id: string; state: string }[];
    };
    for (const job of jobs.content.filter((j) => j.state === 'queued' || j.state === 'running')) {
      await fetch(`${base}/api/jobs/${job.id}/cancel`, {
        method: 'POST',
        headers: { cookie, 'sec-fetch-site': 'same-origin' },
      });
    }
  }
}

/** The image decoder process (libs/inference/src/decoders/image-decoder-child.cjs) of the app. */
const decoderRss = (pid: number) => treeRssOf(pid, /image-decoder-child/);

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

    // 2. pixel bombs on every upload route, each request otherwise complete (so nothing refuses it
    // before its image is read), beside the same requests with a file of the same size that is not
    // an image (the raw cost of receiving 20 uploads and answering 4xx)
    await setVideoFlag(port);
    const face = readFileSync(path.join(ROOT, 'libs', 'inference', 'fixtures', 'cgi-model-22.jpg'));
    const mask = await sharp({ create: { width: 64, height: 64, channels: 4, background: '#fff' } })
      .png()
      .toBuffer();
    const clipDir = mkdtempSync(path.join(tmpdir(), 'decode-bench-clip-'));
    const clip = readFileSync(writeTestVideo(path.join(clipDir, 'clip.mp4'), 1));
    const folders = await makeBenchFolders(port, cookies);
    const routes = pixelBombRoutes(face, mask, clip);
    const other = cookies[20];
    // load the engine pool's models (face analysis, content classifier) once, so that their first
    // load does not count as a row's growth
    const warm = form({}, [
      ['Swap0', face, 'a.jpg'],
      ['Swap1', face, 'b.jpg'],
    ]);
    await post(port, '/api/faceSwap/check', other, warm.type, warm.data);
    const idleProbe = await probeLatency(port, other, new Promise((resolve) => setTimeout(resolve, 2000)));
    console.log(
      `\nidle app: tree RSS ${mb(treeRss(pid))}; another user's GET /api/jobs p50 ${pct(idleProbe, 50).toFixed(1)} ms, ` +
        `p99 ${pct(idleProbe, 99).toFixed(1)} ms`,
    );
    const bombs: [string, Buffer][] = [
      ["6000x6000 PNG of zeros (the issue's bomb)", await zeroPng(6000)],
      ['7000x7000 PNG of zeros (over every pixel budget)', await zeroPng(7000)],
      ['6000x6000 flat JPEG q50', await flatJpeg(6000)],
      [
        '6000x6000 PNG padded with noise to 1 byte per 32 px (the densest bomb the rule lets through)',
        await paddedPng(6000),
      ],
    ];
    for (const [what, bomb] of bombs) {
      const baseline = randomBytes(bomb.length);
      console.log(
        `\n== 20 parallel uploads per route: ${what}, ${(bomb.length / 1024).toFixed(0)} KB; baseline: the same size of random bytes ==`,
      );
      for (const route of routes) {
        const rows: string[] = [];
        for (const [label, file] of [
          ['baseline', baseline],
          ['bomb', bomb],
        ] as const) {
          const idle = treeRss(pid);
          let answers: { status: number; ms: number }[] = [];
          let probe: number[] = [];
          let decoderPeak = 0;
          const peak = await peakDuring(
            pid,
            async () => {
              const load = Promise.all(
                Array.from({ length: 20 }, (_, i) => {
                  const body = route.body(file, folders[i]);
                  return post(port, route.path, route.public ? '' : cookies[i], body.type, body.data);
                }),
              );
              decoderPeak = await peakDuring(
                pid,
                async () => ([answers, probe] = await Promise.all([load, probeLatency(port, other, load)])),
                decoderRss,
              );
            },
            treeRss,
          );
          const statuses = answers.map((a) => a.status);
          rows.push(
            `${label} +${mb(peak - idle)} (decoder process peak ${mb(decoderPeak)}), ` +
              `${[...new Set(statuses)].map((s) => `${s}x${statuses.filter((x) => x === s).length}`).join(' ')}, ` +
              `slowest ${pct(
                answers.map((a) => a.ms),
                100,
              ).toFixed(0)} ms, other user p99 ${pct(probe, 99).toFixed(0)} ms`,
          );
          await settle(port, cookies);
        }
        console.log(`${route.name.padEnd(32)} | ${rows.join(' | ')}`);
      }
    }
    rmSync(clipDir, { recursive: true, force: true });
  } finally {
    child.kill();
  }
}

if (process.env.DECODE_BENCH_ROLE === 'app') {
  // JOB_WAIT_MS 0: a tool answers once its job is queued (the bench measures uploads, not jobs)
  // 21 users: 20 send, the last one's requests are timed meanwhile
  serveBenchApp('dec', 100000, 21, {
    JOB_WAIT_MS: '0',
    // the adult tools' age check would answer 403 before any image is read
    AGE_ASSURANCE: 'off',
    ADMIN_USERNAME: BENCH_ADMIN,
    ADMIN_PASSWORD: BENCH_ADMIN_PASSWORD,
  }).catch((err) => {
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
