import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync, closeSync } from 'node:fs';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Socket } from 'socket.io-client';
import { JobMessages, type JobView } from '@studio/contracts';
import { startFakeA1111, type FakeA1111Server } from '@studio/inference';
import {
  balanceOf,
  connectSocket,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
  type SeenEvent,
} from '../../../test/clients';
import {
  expectFaultEnd,
  health,
  METRICS_TOKEN,
  recordJobEnds,
  scrape,
  scrapeFailures,
  submitGenerate,
} from '../../../test/job-faults';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * The content store failing past the box (issue 53 point 6): the local disk full while an output
 * is written (a real ENOSPC from a 1 MiB tmpfs), and an S3 bucket answering 503 or stalling (moto
 * behind a small proxy that injects the fault). Generate runs on a fake Automatic1111. Each job
 * ends once, refunded, the user told the store failed, /api/health and /metrics showing it, no
 * half-written file left; the next write that succeeds clears the fault.
 */

const smallPng = () =>
  sharp({ create: { width: 32, height: 32, channels: 3, background: '#468' } })
    .png()
    .toBuffer();

/** A super-resolution submission of a small picture (multipart): the answer, whatever it is. */
async function uploadPhoto(user: Client) {
  return user.agent
    .post('/api/superResolution')
    .field('author', user.username)
    .attach('original', await smallPng(), 'photo.png');
}

async function jobSucceeds(user: Client, job: JobView): Promise<void> {
  await eventually(async () => {
    const view = (await user.agent.get(`/api/jobs/${job._id}`)).body.content as JobView;
    expect({ state: view.state, error: view.error }).toEqual({ state: 'succeeded' });
  });
}

/** Every file under `dir`, relative paths. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

function asRoot(command: string, args: string[]): void {
  if (process.getuid?.() === 0) execFileSync(command, args, { stdio: 'pipe' });
  else execFileSync('sudo', ['-n', command, ...args], { stdio: 'pipe' });
}

describe('the local disk full while an output is written', () => {
  let mountPoint: string;
  let storage: string;
  let filler: string;
  let a1111: FakeA1111Server;
  let t: TestApp;
  let user: Client;
  let socket: Socket;
  let seen: SeenEvent[];

  beforeAll(async () => {
    mountPoint = mkdtempSync(join(tmpdir(), 'studio-full-'));
    // A real ENOSPC needs a small file system: a tmpfs, which needs root (or CAP_SYS_ADMIN); not
    // root, the test asks sudo without a password, as npm test's own package installs do.
    try {
      asRoot('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mountPoint]);
    } catch (err) {
      throw new Error(`this test mounts a 1 MiB tmpfs for a real "disk full" and could not: ${String(err)}`);
    }
    storage = join(mountPoint, 'storage');
    mkdirSync(storage);
    filler = join(mountPoint, 'filler');
    a1111 = await startFakeA1111();
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_BACKOFF_MS: '50',
      METRICS_TOKEN,
      ENGINE_GENERATE: 'a1111',
      A1111_URL: a1111.url,
      STORAGE_DIR: storage,
    });
    user = await signIn(t, uniqueName('diskfull'));
    await grantCredits(t, user.username, 100);
    socket = await connectSocket(t, user.cookie);
    seen = recordJobEnds(socket);
  }, 60_000);

  afterAll(async () => {
    socket?.close();
    await t?.close();
    await a1111?.close();
    if (mountPoint) {
      asRoot('umount', [mountPoint]);
      rmSync(mountPoint, { recursive: true, force: true });
    }
  });

  /** Fills the file system to the last byte. */
  function fillDisk(): void {
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(4096, 1);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
    } finally {
      closeSync(fd);
    }
  }

  it('fails the job once, refunded, "its disk is full", without a second GPU run or a part file', async () => {
    const before = await balanceOf(user);
    const failuresBefore = await scrapeFailures(t, { tool: 'generate', reason: 'storage_full' });
    fillDisk();
    const job = await submitGenerate(user);
    await expectFaultEnd({
      t,
      user,
      seen,
      job,
      tool: 'generate',
      before,
      message: JobMessages.storageFull,
      reason: 'storage_full',
      failuresBefore,
    });
    // A full disk is not retried: the GPU made the image once.
    expect(a1111.requestsTo('/sdapi/v1/txt2img')).toHaveLength(1);
    expect(filesUnder(storage)).toEqual([]);
    const report = await health(t);
    expect(report).toMatchObject({ status: 'degraded', storage: 'full' });
    expect(await scrape(t, 'studio_storage_fault', { fault: 'full' })).toBe(1);

    // An upload while the disk is full: 503 with the same words, nothing charged, nothing kept.
    const upload = await uploadPhoto(user);
    expect(upload.status).toBe(503);
    expect(upload.headers['retry-after']).toBeDefined();
    expect(upload.body).toMatchObject({ message: 'error', content: JobMessages.storageFull });
    const dataUrl = `data:image/png;base64,${(await smallPng()).toString('base64')}`;
    const json = await user.agent.post('/api/superResolution').send({ original: dataUrl });
    expect(json.status).toBe(503);
    expect(json.body).toMatchObject({ message: 'error', content: JobMessages.storageFull });
    expect(await balanceOf(user)).toBe(before);
    expect(filesUnder(storage)).toEqual([]);

    // Space again: the next job is stored, and health says so.
    rmSync(filler);
    const next = await submitGenerate(user);
    await jobSucceeds(user, next);
    expect(filesUnder(storage)).toHaveLength(1);
    await eventually(async () => expect((await health(t)).storage).toBe('up'));
    expect(await scrape(t, 'studio_storage_fault')).toBe(0);
  }, 120_000);
});

/** What the proxy in front of moto does with each request. */
type S3Mode = 'pass' | 'unavailable' | 'stall';

/** A tiny HTTP proxy to moto that answers 503 or holds requests unanswered when told. */
async function startS3Proxy(target: string): Promise<{
  url: string;
  mode: S3Mode;
  requests: number;
  byMethod: Record<string, number>;
  close(): Promise<void>;
}> {
  const held = new Set<ServerResponse>();
  const state = {
    url: '',
    mode: 'pass' as S3Mode,
    requests: 0,
    /** Requests per HTTP method (PUT: a store, GET: a read). */
    byMethod: {} as Record<string, number>,
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    state.requests++;
    state.byMethod[req.method ?? ''] = (state.byMethod[req.method ?? ''] ?? 0) + 1;
    if (state.mode === 'stall') {
      held.add(res);
      res.once('close', () => held.delete(res));
      return;
    }
    if (state.mode === 'unavailable') {
      req.resume();
      res.writeHead(503, { 'content-type': 'application/xml' });
      res.end(
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>ServiceUnavailable</Code>' +
          '<Message>Service is unable to handle request.</Message></Error>',
      );
      return;
    }
    const forward = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}

/** A bucket of its own on moto (TEST_S3_ENDPOINT), and the settings of an app storing in it through `proxyUrl`. */
async function s3Settings(endpoint: string | undefined, proxyUrl: () => string) {
  if (!endpoint) throw new Error('TEST_S3_ENDPOINT is not set: run the tests with `npm test`');
  const bucket = `studio-${randomBytes(4).toString('hex')}`;
  const admin = new S3Client({
    region: 'us-east-1',
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  admin.destroy();
  return () => ({
    STORAGE_DRIVER: 's3',
    S3_BUCKET: bucket,
    S3_ENDPOINT: proxyUrl(),
    S3_FORCE_PATH_STYLE: 'true',
    S3_ACCESS_KEY_ID: 'test',
    S3_SECRET_ACCESS_KEY: 'test',
  });
}

describe('S3 answering 503 or stalling while an output is written', () => {
  const endpoint = process.env.TEST_S3_ENDPOINT;
  let proxy: Awaited<ReturnType<typeof startS3Proxy>>;
  let a1111: FakeA1111Server;
  let t: TestApp;
  let user: Client;
  let socket: Socket;
  let seen: SeenEvent[];

  beforeAll(async () => {
    const settings = await s3Settings(endpoint, () => proxy.url);
    proxy = await startS3Proxy(endpoint!);
    a1111 = await startFakeA1111();
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_BACKOFF_MS: '50',
      METRICS_TOKEN,
      ENGINE_GENERATE: 'a1111',
      A1111_URL: a1111.url,
      ...settings(),
      // A stalled request is given up after this (each of the SDK's 3 tries).
      S3_TIMEOUT_MS: '500',
    });
    user = await signIn(t, uniqueName('s3fault'));
    await grantCredits(t, user.username, 100);
    socket = await connectSocket(t, user.cookie);
    seen = recordJobEnds(socket);
  }, 60_000);

  beforeEach(() => {
    proxy.mode = 'pass';
    a1111.reset();
  });

  afterAll(async () => {
    socket?.close();
    await t?.close();
    await a1111?.close();
    await proxy?.close();
  });

  it.each([['unavailable' as const], ['stall' as const]])(
    '%s: the job ends once, refunded, "its storage did not answer"; health and metric say so',
    async (mode) => {
      const before = await balanceOf(user);
      const failuresBefore = await scrapeFailures(t, { tool: 'generate', reason: 'storage_unavailable' });
      proxy.mode = mode;
      const job = await submitGenerate(user);
      await expectFaultEnd({
        t,
        user,
        seen,
        job,
        tool: 'generate',
        before,
        message: JobMessages.storageUnavailable,
        reason: 'storage_unavailable',
        failuresBefore,
      });
      expect(proxy.requests).toBeGreaterThan(0);
      expect(await health(t)).toMatchObject({ status: 'degraded', storage: 'unavailable' });
      expect(await scrape(t, 'studio_storage_fault', { fault: 'unavailable' })).toBe(1);
      // An upload meanwhile: 503 with the same words, nothing charged.
      const upload = await uploadPhoto(user);
      expect(upload.status).toBe(503);
      expect(upload.body).toMatchObject({ message: 'error', content: JobMessages.storageUnavailable });
      expect(await balanceOf(user)).toBe(before);

      // S3 answers again: the next job is stored, and health says so.
      proxy.mode = 'pass';
      const next = await submitGenerate(user);
      await jobSucceeds(user, next);
      await eventually(async () => expect((await health(t)).storage).toBe('up'));
      expect(await scrape(t, 'studio_storage_fault')).toBe(0);
    },
    120_000,
  );
});

describe('S3 stalling while a person waits on it', () => {
  let proxy: Awaited<ReturnType<typeof startS3Proxy>>;
  let t: TestApp;
  let user: Client;
  let picture: string;

  beforeAll(async () => {
    const settings = await s3Settings(process.env.TEST_S3_ENDPOINT, () => proxy.url);
    proxy = await startS3Proxy(process.env.TEST_S3_ENDPOINT!);
    // The jobs' wait is far longer than this test may take: only the request path's own
    // (REQUEST_STORE_WAIT_MS, one try) can answer in time.
    t = await startTestApp({ JOB_WAIT_MS: '0', ...settings(), S3_TIMEOUT_MS: '600000' });
    user = await signIn(t, uniqueName('s3wait'));
    await grantCredits(t, user.username, 100);
    const upload = await uploadPhoto(user);
    expect(upload.status).toBe(200);
    const job = upload.body.content.job as JobView;
    await jobSucceeds(user, job);
    picture = ((await user.agent.get(`/api/jobs/${job._id}`)).body.content as JobView).items[0].url;
  }, 60_000);

  afterAll(async () => {
    proxy.mode = 'pass';
    await t?.close();
    await proxy?.close();
  });

  it('a submission and a download answer 503 after one try each, nothing charged', async () => {
    const before = await balanceOf(user);
    proxy.mode = 'stall';
    proxy.byMethod = {};
    const upload = await uploadPhoto(user);
    expect(upload.status).toBe(503);
    expect(upload.headers['retry-after']).toBeDefined();
    expect(upload.body).toMatchObject({ message: 'error', content: JobMessages.storageUnavailable });
    expect(proxy.byMethod.PUT).toBe(1);
    expect(await balanceOf(user)).toBe(before);

    const download = await user.agent.get(picture);
    expect(download.status).toBe(503);
    expect(download.headers['retry-after']).toBeDefined();
    expect(proxy.byMethod.GET).toBe(1);

    // Answering again: the same submission is taken.
    proxy.mode = 'pass';
    const again = await uploadPhoto(user);
    expect(again.status).toBe(200);
  }, 60_000);
});
