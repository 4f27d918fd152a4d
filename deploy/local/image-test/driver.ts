/**
 * The image test's driver (deploy/local/image-test.sh builds the images and starts FerretDB, Redis
 * and moto, then runs this with ts-node). From the built images, with the host's network
 * (`buildah run --isolation chroot --network host`): the API and a worker as two processes in
 * production settings, the frontend image's nginx in front. Through nginx it registers a user, runs
 * one job of each local tool and checks each output: stored in S3 (moto), a valid C2PA manifest of
 * ours and the watermark of its item (read by c2pa-python and the watermark detector in the host's
 * provenance venv, as the provenance bench reads them). Then it starts the API image without the
 * certificate, as production, and expects it to refuse. It stops and removes everything it started.
 */
import { S3Client, CreateBucketCommand, ListObjectsV2Command, GetObjectCommand } from '@aws-sdk/client-s3';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, openSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import mongoose from 'mongoose';
import sharp from 'sharp';
import request from 'supertest';
import { FaceSwapVideoFields, JobFields, type ContentItem, type JobView } from '@studio/contracts';
import { ProvenanceMarker } from '@studio/inference';
import { writeTestVideo } from '../../../backend/test/fixtures';
import { descendantsOf } from '../../../backend/test/process-tree';
import { CERT_MOUNT_DIR, PRODUCTION_SETTINGS, WORKER_COMMAND } from './settings';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = path.join(ROOT, 'libs/inference/fixtures');
const run = promisify(execFile);

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (deploy/local/image-test.sh sets it)`);
  return value;
}

const env = {
  apiImage: required('API_IMAGE'),
  frontendImage: required('FRONTEND_IMAGE'),
  data: required('IMAGE_TEST_DATA'),
  certDir: required('IMAGE_TEST_CERT_DIR'),
  mongo: required('IMAGE_TEST_MONGODB_URL'),
  redis: required('IMAGE_TEST_REDIS_URL'),
  s3: required('IMAGE_TEST_S3_ENDPOINT'),
  smtp: required('IMAGE_TEST_SMTP_URL'),
  apiPort: Number(required('IMAGE_TEST_API_PORT')),
  nginxPort: Number(required('IMAGE_TEST_NGINX_PORT')),
  python: required('IMAGE_TEST_PROVENANCE_PYTHON'),
};

const site = `http://127.0.0.1:${env.nginxPort}`;
const database = `imagetest${Date.now().toString(36)}`;
const bucket = `studio-${Date.now().toString(36)}`;
const admin = { username: 'admin', password: randomBytes(12).toString('hex') };
const s3Credentials = { accessKeyId: 'image-test', secretAccessKey: 'image-test-secret' };

/** The settings compose gives the API and the workers, on this machine's services. */
const backendEnv: Record<string, string> = {
  ...PRODUCTION_SETTINGS,
  HOST: '127.0.0.1',
  PORT: String(env.apiPort),
  MONGODB_URI: `${env.mongo}/${database}`,
  REDIS_URL: env.redis,
  REDIS_PREFIX: database,
  SMTP_URL: env.smtp,
  SESSION_SECRET: randomBytes(32).toString('hex'),
  ADMIN_USERNAME: admin.username,
  ADMIN_PASSWORD: admin.password,
  COOKIE_SECURE: 'false',
  TRUST_PROXY: '1',
  PUBLIC_URL: site,
  S3_BUCKET: bucket,
  S3_REGION: 'us-east-1',
  S3_ENDPOINT: env.s3,
  S3_FORCE_PATH_STYLE: 'true',
  S3_ACCESS_KEY_ID: s3Credentials.accessKeyId,
  S3_SECRET_ACCESS_KEY: s3Credentials.secretAccessKey,
  LOG_LEVEL: 'info',
  // Engines at the API's priority, as in the other tests: beside other busy programs (npm run
  // test:loaded) production's +19 left the engine pool about 4% of its speed, and a face swap's
  // face check on it outlasted nginx's 180 s (504).
  ENGINE_POOL_NICE: '0',
  // tini is not PID 1 under buildah's chroot isolation (no PID namespace): it reaps as a subreaper
  TINI_SUBREAPER: '1',
};

interface Started {
  name: string;
  container: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  log: string;
}
const started: Started[] = [];

function log(message: string): void {
  process.stderr.write(`\x1b[1;34m[image-test]\x1b[0m ${message}\n`);
}

/** The image's entrypoint and command (what a container engine would run). */
function imageCommand(image: string): { entrypoint: string[]; cmd: string[] } {
  const { config } = (
    JSON.parse(execFileSync('buildah', ['inspect', '--type', 'image', image], { encoding: 'utf8' })) as {
      OCIv1: { config: { Entrypoint?: string[]; Cmd?: string[] } };
    }
  ).OCIv1;
  return { entrypoint: config.Entrypoint ?? [], cmd: config.Cmd ?? [] };
}

/**
 * One process from an image: a working container of its own, run with the host's network (chroot
 * isolation; this machine cannot start containers otherwise). Its output goes to a log file.
 */
async function startFromImage(
  name: string,
  image: string,
  command: string[],
  vars: Record<string, string>,
  volumes: string[] = [],
): Promise<Started> {
  const container = `studio-image-test-${name}-${process.pid}`;
  await run('buildah', ['from', '--pull-never', '--name', container, image]);
  const args = ['run', '--isolation', 'chroot', '--network', 'host'];
  for (const [key, value] of Object.entries(vars)) args.push('-e', `${key}=${value}`);
  for (const volume of volumes) args.push('-v', volume);
  const logFile = path.join(env.data, `${name}.log`);
  // A file, not a pipe, and writable by all: the image's users (uid 1000, nginx's 101) reopen
  // /dev/stdout, as they may in a container.
  const out = openSync(logFile, 'w');
  fchmodSync(out, 0o666);
  const child = spawn('buildah', [...args, container, '--', ...command], { stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const proc = { name, container, child, exited, log: logFile };
  started.push(proc);
  return proc;
}

async function stopAll(): Promise<void> {
  for (const proc of [...started].reverse()) {
    // Chroot isolation has no PID namespace that ends with the container: nginx's workers outlived
    // their master's `buildah run` and kept the port of the next run. Taken while they still are
    // its descendants.
    const descendants = proc.child.pid ? descendantsOf(proc.child.pid) : [];
    if (proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill('SIGTERM');
      const timer = setTimeout(() => proc.child.kill('SIGKILL'), 30_000);
      await proc.exited;
      clearTimeout(timer);
    }
    for (const pid of descendants) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already ended with its parent
      }
    }
    await run('buildah', ['rm', proc.container]).catch(() => undefined);
  }
  started.length = 0;
}

/** Waits until check() passes, or the process ends (its log then tells why), or the time is up. */
async function until<T>(
  what: string,
  check: () => Promise<T>,
  timeoutMs: number,
  proc?: Started,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    if (proc && proc.child.exitCode !== null) {
      throw new Error(`${proc.name} exited (${proc.child.exitCode}) before ${what}:\n${tail(proc.log)}`);
    }
    try {
      return await check();
    } catch (err) {
      last = err;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s (${(last as Error)?.message ?? last})`);
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

type Agent = ReturnType<typeof request.agent>;

async function signIn(username: string, password: string, register: boolean): Promise<Agent> {
  const agent = request.agent(site);
  if (register) {
    const res = await agent
      .post('/api/register')
      .send({ email: `${username}@example.com`, username, password, adult: true });
    assert(res.status === 200, `register through nginx: ${res.status} ${JSON.stringify(res.body)}`);
  }
  const login = await agent.post('/api/login').send({ username, password });
  assert(
    login.status === 200,
    `login of ${username} through nginx: ${login.status} ${JSON.stringify(login.body)}`,
  );
  return agent;
}

async function bytesOf(agent: Agent, url: string): Promise<Buffer> {
  const res = await agent
    .get(url)
    .buffer(true)
    .parse((stream, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => done(null, Buffer.concat(chunks)));
    });
  assert(res.status === 200, `download ${url}: ${res.status}`);
  return res.body as Buffer;
}

/**
 * Two seconds of a test face zooming slowly, 360 px, 12 fps, with a tone (the video swap's input;
 * the watermark needs about 300 px and a few dozen frames: docs/provenance.md, Limits).
 */
function testVideo(): Buffer {
  return readFileSync(writeTestVideo(path.join(env.data, 'input.mp4'), 2, 360, 12));
}

interface ToolRun {
  tool: string;
  kind: 'image' | 'video';
  submit: () => request.Test;
}

async function main(): Promise<void> {
  await mkdir(env.data, { recursive: true });
  const s3 = new S3Client({
    endpoint: env.s3,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: s3Credentials,
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));

  const api = imageCommand(env.apiImage);
  const frontend = imageCommand(env.frontendImage);
  const certVolume = `${env.certDir}:${CERT_MOUNT_DIR}:ro`;

  log(`API and worker from ${env.apiImage}, nginx from ${env.frontendImage} on ${site}`);
  const apiProc = await startFromImage('api', env.apiImage, [...api.entrypoint, ...api.cmd], backendEnv, [
    certVolume,
  ]);
  const workerProc = await startFromImage(
    'worker',
    env.apiImage,
    [...api.entrypoint, ...WORKER_COMMAND],
    { ...backendEnv, WORKER_QUEUES: 'all', SHUTDOWN_GRACE_MS: '5000' },
    [certVolume],
  );
  const nginxProc = await startFromImage(
    'nginx',
    env.frontendImage,
    [...frontend.entrypoint, ...frontend.cmd],
    {
      API_UPSTREAM: `127.0.0.1:${env.apiPort}`,
      NGINX_PORT: String(env.nginxPort),
    },
  );

  await until(
    'nginx answers',
    async () => assert((await fetch(`${site}/healthz`)).ok, 'not yet'),
    60_000,
    nginxProc,
  );
  const health = await until(
    'the API answers through nginx',
    async () => {
      const res = await fetch(`${site}/api/health`);
      assert(res.ok, `health ${res.status}`);
      return (await res.json()) as unknown;
    },
    180_000,
    apiProc,
  );
  log(`health through nginx: ${JSON.stringify(health)}`);
  await until(
    'the worker starts',
    async () => assert(/worker started/.test(readFileSync(workerProc.log, 'utf8')), 'not yet'),
    180_000,
    workerProc,
  );
  const index = await fetch(`${site}/`);
  const html = await index.text();
  assert(index.ok && /<div id="root">/.test(html), `nginx serves the built client: ${index.status}`);

  const username = `img${Date.now().toString(36)}`;
  const user = await signIn(username, 'image-test-password-1', true);
  const staff = await signIn(admin.username, admin.password, false);
  const grant = await staff
    .post('/api/admin/credits/grant')
    .send({ username, amount: 100, reason: 'image test', requestId: `image-test-${username}` });
  assert(grant.status === 200, `grant: ${grant.status} ${JSON.stringify(grant.body)}`);
  // The photo tools need an age check (docs/age-assurance-and-moderation.md); no card provider
  // runs here, so support records one made outside the studio, as it may for a real user.
  const ageCheck = await staff
    .post(`/api/support/users/${username}/age-assurance`)
    .send({ reason: 'image test: checked outside the studio' });
  assert(ageCheck.status === 200, `age check: ${ageCheck.status} ${JSON.stringify(ageCheck.body)}`);
  const flags = await staff.put('/api/admin/flags').send({ videoFaceSwap: true });
  assert(flags.status === 200, `flags: ${flags.status} ${JSON.stringify(flags.body)}`);
  const folder = await user.post('/api/makeFolder').send({ author: username, title: 'Image test' });
  assert(folder.status === 200, `makeFolder: ${folder.status} ${JSON.stringify(folder.body)}`);
  const folderId = folder.body.content._id as string;

  const face = readFileSync(path.join(FIXTURES, 'ai-face.jpg'));
  const small = await sharp(face).resize(128, 128).png().toBuffer();
  const picture = await sharp(face).resize(256, 256).png().toBuffer();
  const mask = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#000' } })
    .composite([
      {
        input: await sharp({ create: { width: 64, height: 64, channels: 3, background: '#fff' } })
          .png()
          .toBuffer(),
        left: 96,
        top: 96,
      },
    ])
    .png()
    .toBuffer();
  const video = testVideo();

  const tools: ToolRun[] = [
    {
      tool: 'clone',
      kind: 'image',
      submit: () =>
        user
          .post('/api/generateNoise')
          .field('author', username)
          .field('amount', '1')
          .attach('original', picture, 'a.png'),
    },
    {
      tool: 'superResolution',
      kind: 'image',
      submit: () =>
        user
          .post('/api/superResolution')
          .field('author', username)
          .field('scale', '2')
          .attach('original', small, 's.png'),
    },
    {
      tool: 'inpaint',
      kind: 'image',
      submit: () =>
        user
          .post('/api/inpaintImage')
          .field('author', username)
          .field('prompt', 'smile')
          .field('amount', '1')
          .attach('original', picture, 'p.png')
          .attach('mask', mask, 'm.png'),
    },
    {
      tool: 'faceSwap',
      kind: 'image',
      submit: () =>
        user
          .post('/api/faceSwap')
          .field('author', username)
          .field('folder', folderId)
          .field('consent', 'true')
          .attach(JobFields.swapFace, face, 'face.jpg')
          .attach(JobFields.swapTarget, readFileSync(path.join(FIXTURES, 'cgi-model-3.jpg')), 'target.jpg'),
    },
    {
      tool: 'faceSwapVideo',
      kind: 'video',
      submit: () =>
        user
          .post('/api/faceSwapVideo')
          .field('author', username)
          .field('folder', folderId)
          .field('consent', 'true')
          .field('length', '2')
          .attach(FaceSwapVideoFields.video, video, 'clip.mp4')
          .attach(FaceSwapVideoFields.face, face, 'face.jpg'),
    },
  ];

  const jobs: { run: ToolRun; id: string }[] = [];
  for (const toolRun of tools) {
    const res = await toolRun.submit();
    assert(res.status === 200, `${toolRun.tool}: ${res.status} ${JSON.stringify(res.body)}`);
    jobs.push({ run: toolRun, id: res.body.content.job._id as string });
    log(`${toolRun.tool}: job ${res.body.content.job._id} (${res.body.message})`);
  }

  // What the bucket holds, by content hash (the stored bytes must be the ones served).
  const stored = async (): Promise<Set<string>> => {
    const hashes = new Set<string>();
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    for (const object of listed.Contents ?? []) {
      const body = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: object.Key! }));
      hashes.add(
        createHash('sha256')
          .update(await body.Body!.transformToByteArray())
          .digest('hex'),
      );
    }
    return hashes;
  };

  const mongo = await mongoose.createConnection(`${env.mongo}/${database}`).asPromise();
  const marker = new ProvenanceMarker({
    python: env.python,
    certChain: path.join(env.certDir, 'chain.pem'),
    privateKey: path.join(env.certDir, 'signer.key'),
  });
  const results: string[] = [];
  try {
    for (const job of jobs) {
      const done = await until(
        `${job.run.tool} job ${job.id} finishes`,
        async () => {
          const res = await user.get(`/api/jobs/${job.id}`);
          const view = res.body.content as JobView;
          if (view.state === 'failed' || view.state === 'cancelled') {
            throw Object.assign(new Error(`${job.run.tool} job ${view.state}: ${JSON.stringify(view)}`), {
              final: true,
            });
          }
          assert(view.state === 'succeeded', `state ${view.state}`);
          return view;
        },
        600_000,
        workerProc,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n--- worker log ---\n${tail(workerProc.log)}`);
      });
      const items = done.items as ContentItem[];
      assert(items.length > 0, `${job.run.tool}: no output`);
      const inBucket = await stored();
      for (const item of items) {
        const bytes = await bytesOf(user, item.url);
        const hash = createHash('sha256').update(bytes).digest('hex');
        assert(inBucket.has(hash), `${job.run.tool}: output ${item._id} is not in the S3 bucket`);
        const file = path.join(env.data, `${job.run.tool}-${item._id}${path.extname(item.url) || ''}`);
        await writeFile(file, bytes);
        const seen = await marker.inspect(file, job.run.kind);
        assert(
          seen.manifest.state === 'valid',
          `${job.run.tool}: C2PA manifest ${JSON.stringify(seen.manifest)}`,
        );
        const mark = await mongo
          .collection<{ _id: number }>('provenance_marks')
          .findOne({ itemId: item._id });
        assert(mark, `${job.run.tool}: no watermark record for item ${item._id}`);
        assert(
          seen.watermark.found && seen.watermark.id === mark._id,
          `${job.run.tool}: watermark ${JSON.stringify(seen.watermark)}, expected id ${String(mark._id)}`,
        );
        results.push(
          `${job.run.tool}: ${item._id} in S3 (sha256 ${hash.slice(0, 12)}), C2PA valid (${seen.manifest.tool}), watermark ${mark._id} found`,
        );
      }
    }
  } finally {
    await marker.close();
    await mongo.close();
  }
  for (const line of results) log(line);

  // Production without the certificate: the API image must refuse to start, with the reason.
  const refusals: [string, Record<string, string>, RegExp][] = [
    [
      'no certificate mounted',
      { ...backendEnv, PORT: String(env.apiPort + 1) },
      /Refusing to start in production: outputs could not be marked: PROVENANCE_CERT_CHAIN \S+ cannot be read/,
    ],
    [
      'no certificate configured',
      Object.fromEntries(
        Object.entries({ ...backendEnv, PORT: String(env.apiPort + 1) }).filter(
          ([k]) => !k.startsWith('PROVENANCE_'),
        ),
      ),
      /PROVENANCE_CERT_CHAIN is required in production/,
    ],
  ];
  for (const [what, vars, reason] of refusals) {
    const proc = await startFromImage(
      `refuse-${what.replace(/\W+/g, '-')}`,
      env.apiImage,
      [...api.entrypoint, ...api.cmd],
      vars,
    );
    const timer = setTimeout(() => proc.child.kill('SIGTERM'), 120_000);
    const code = await proc.exited;
    clearTimeout(timer);
    const output = readFileSync(proc.log, 'utf8');
    assert(
      code === 78 && reason.test(output),
      `production with ${what}: exit ${code}, expected 78 and ${reason}:\n${tail(proc.log)}`,
    );
    log(`production with ${what}: refused (exit 78): ${output.trim().split('\n').pop()}`);
  }
}

main()
  .then(
    () => 0,
    (err: Error) => {
      log(`FAILED: ${err.message}`);
      return 1;
    },
  )
  .then(async (code) => {
    await stopAll();
    process.exit(code);
  });
process.on('SIGTERM', () => void stopAll().then(() => process.exit(143)));
process.on('SIGINT', () => void stopAll().then(() => process.exit(130)));
