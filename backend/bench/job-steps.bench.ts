/**
 * npm run bench -- job-steps (issue 54, 2): where each millisecond of one job goes, from the
 * browser's submission to the job.completed push on its socket, for a 1 MP super resolution
 * (512 px x2) and a 1 MP face swap (a 1024 px target), on the real app (its worker inline, the
 * local engine, the content check, provenance on with a development certificate, local storage).
 * The app's own services are wrapped (this bench only) to time each step: the submission (HTTP:
 * upload, checks, reservation, record, queue), the queue wait, the job's start (its record), the
 * stored inputs read, the engine (its input decode and output encode included: they happen in the
 * engine pool's thread), the content check, the marking (ProvenanceService.markOutputs), the copy
 * hashes, the storage writes, the items' database writes, the job's success (record, capture) and
 * the push until the socket has it. BENCH_JOB_STEPS_RUNS jobs per tool (default 3), one at a time;
 * medians.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { benchSigning, testFaceFiles } from './bench-signing';
import { io } from 'socket.io-client';
import { JobFields, JobSocketEvents, SocketEvents, type JobSocketPayloads } from '@studio/contracts';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { EngineRegistry } from '../src/modules/engines';
import { FoldersService } from '../src/modules/folders/folders.service';
import { JobLifecycle } from '../src/modules/generation/job-lifecycle.service';
import { ProvenanceService } from '../src/modules/provenance/provenance.service';
import { StoragePort } from '../src/modules/storage';
import { CopyFinder } from '../src/modules/takedown/copy-finder';
import { ContentSafety } from '../src/modules/content-safety/content-safety.service';
import { benchUser } from './bench-client';

const RUNS = Number(process.env.BENCH_JOB_STEPS_RUNS ?? 3);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
};

const SUBMISSION = 'submission (the HTTP answer)';
const QUEUED = 'submitted -> the worker starts it';
const PUSH = 'push (success recorded -> the socket has it)';
const TOTAL = 'total (submission -> the socket has it)';
const ORDER = [
  SUBMISSION,
  QUEUED,
  'job started (record)',
  'storage reads (inputs)',
  'engine (decode, work, encode)',
  'content check',
  'marking (all of it)',
  'copy hashes',
  'items stored (storage + database)',
  'storage writes (inputs, outputs)',
  'job succeeded (record, capture, push sent)',
  PUSH,
  TOTAL,
];

/** Time spent per step during the current job (steps may nest: storage inside items). */
let spent: Map<string, number> | undefined;
const at: Record<string, number> = {};

function wrap<T extends object>(target: T, method: keyof T & string, step: string, onStart?: () => void) {
  const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
  (target as Record<string, unknown>)[method] = async (...args: unknown[]) => {
    onStart?.();
    const t0 = performance.now();
    try {
      return await original(...args);
    } finally {
      spent?.set(step, (spent.get(step) ?? 0) + performance.now() - t0);
    }
  };
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'job-steps-bench-'));
  const signing = await benchSigning(dir);
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'warn',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_WAIT_MS: '0',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_PREFIX: `jobsteps${Date.now().toString(36)}`,
    STORAGE_DIR: path.join(dir, 'storage'),
    PROVENANCE_CERT_CHAIN: signing.certChain,
    PROVENANCE_PRIVATE_KEY: signing.privateKey,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;

  const lifecycle = app.get(JobLifecycle, { strict: false });
  wrap(lifecycle, 'started', 'job started (record)', () => (at.started = performance.now()));
  wrap(
    lifecycle,
    'succeeded',
    'job succeeded (record, capture, push sent)',
    () => (at.succeeded = performance.now()),
  );
  const storage = app.get(StoragePort, { strict: false });
  wrap(storage, 'read', 'storage reads (inputs)');
  wrap(storage, 'put', 'storage writes (inputs, outputs)');
  const registry = app.get(EngineRegistry, { strict: false });
  for (const [tool, method] of [
    ['superResolution', 'superResolve'],
    ['faceSwap', 'faceSwap'],
  ] as const) {
    const engine = registry.engineFor(tool)!;
    wrap(engine, method, 'engine (decode, work, encode)');
  }
  const safety = app.get(ContentSafety, { strict: false });
  wrap(safety, 'inspect', 'content check');
  wrap(safety, 'judgeOutputs', 'content check');
  wrap(app.get(ProvenanceService, { strict: false }), 'markOutputs', 'marking (all of it)');
  const copies = app.get(CopyFinder, { strict: false });
  for (const method of ['fingerprint', 'isBlocked', 'record'] as const) wrap(copies, method, 'copy hashes');
  wrap(app.get(FoldersService, { strict: false }), 'addItems', 'items stored (storage + database)');

  const { cookie } = await benchUser(app, base, 'steps', 100_000, { ageAssured: true });
  const socket = io(base, { transports: ['websocket'], extraHeaders: { cookie } });
  await new Promise((resolve) => socket.once(SocketEvents.ready, resolve));

  const made = await fetch(`${base}/api/makeFolder`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ title: 'bench' }),
  });
  const folder = ((await made.json()) as { content: { _id: string } }).content._id;

  const faces = testFaceFiles(2);
  const face = (i: number, side: number) =>
    sharp(faces[i % faces.length])
      .resize(side, side, { fit: 'cover' })
      .png()
      .toBuffer();

  const submit = async (route: string, files: Record<string, Buffer>, fields: Record<string, string>) => {
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    for (const [name, data] of Object.entries(files))
      form.append(name, new Blob([new Uint8Array(data)], { type: 'image/png' }), `${name}.png`);
    const res = await fetch(`${base}${route}`, { method: 'POST', body: form, headers: { cookie } });
    const body = (await res.json()) as { content: { job: { _id: string } } };
    if (res.status !== 200) throw new Error(`${route}: ${res.status} ${JSON.stringify(body)}`);
    return body.content.job._id;
  };

  let target = 1;
  const tools = [
    {
      name: 'super resolution 1 MP (512 px x2)',
      send: async (i: number) =>
        submit('/api/superResolution', { original: await face(i, 512) }, { scale: '2', folder }),
    },
    {
      name: 'face swap 1 MP (1024 px target)',
      send: async () => {
        // the first target the engine accepts with the first face (faces turned alike), then always it
        for (; target < faces.length; target++) {
          try {
            return await submit(
              '/api/faceSwap',
              { [JobFields.swapFace]: await face(0, 512), [JobFields.swapTarget]: await face(target, 1024) },
              { consent: 'true', folder },
            );
          } catch (err) {
            if (!String(err).includes(': 400 ')) throw err;
          }
        }
        throw new Error('no test face pair the face swap accepts');
      },
    },
  ];

  console.log(
    `job steps bench: ${RUNS} jobs per tool, one at a time; medians, ms (load average ${loadavg()[0].toFixed(1)})`,
  );
  for (const tool of tools) {
    const runs: Map<string, number>[] = [];
    // a first job loads the tool's models and starts the provenance child: not timed
    for (let i = -1; i < RUNS; i++) {
      spent = new Map();
      const done = new Promise<{ at: number; ok: boolean; jobId: string; message?: string }>((resolve) => {
        socket.once(JobSocketEvents.completed, ({ job }: JobSocketPayloads['job.completed']) =>
          resolve({ at: performance.now(), ok: true, jobId: job._id }),
        );
        socket.once(JobSocketEvents.failed, ({ job, message }: JobSocketPayloads['job.failed']) =>
          resolve({ at: performance.now(), ok: false, jobId: job._id, message }),
        );
      });
      const t0 = performance.now();
      const jobId = await tool.send(i + 1);
      const answered = performance.now();
      const end = await done;
      socket.removeAllListeners(JobSocketEvents.completed);
      socket.removeAllListeners(JobSocketEvents.failed);
      if (!end.ok || end.jobId !== jobId)
        throw new Error(`${tool.name}: job ${jobId} did not succeed: ${end.message}`);
      spent.set(SUBMISSION, answered - t0);
      spent.set(QUEUED, at.started - t0);
      spent.set(PUSH, end.at - at.succeeded);
      spent.set(TOTAL, end.at - t0);
      if (i >= 0) runs.push(spent);
    }
    spent = undefined;
    console.log(`\n${tool.name}:`);
    for (const step of ORDER)
      console.log(
        `  ${step.padEnd(46)} ${median(runs.map((r) => r.get(step) ?? 0))
          .toFixed(1)
          .padStart(9)}`,
      );
  }
  console.log(`\nload average ${loadavg()[0].toFixed(1)} at the end`);
  socket.close();
  await app.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
