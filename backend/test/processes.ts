import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { AppConfig } from '../src/config/app-config';

/** Whose database, Redis, prefix and storage the other processes share (a TestApp, or a bench's app). */
type Host = { config: AppConfig };

const ROOT = join(__dirname, '../..');
const WORKER_MAIN = join(ROOT, 'backend/worker/src/main.ts');
const API_MAIN = join(ROOT, 'backend/api/src/main.ts');

/** The environment that puts another process on the test app's database, Redis and storage. */
function sharedEnv(t: Host, extra: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TS_NODE_TRANSPILE_ONLY: 'true',
    TS_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
    NODE_ENV: 'test',
    MONGODB_URI: t.config.MONGODB_URI,
    REDIS_URL: t.config.REDIS_URL,
    REDIS_PREFIX: t.config.REDIS_PREFIX,
    STORAGE_DIR: t.config.STORAGE_DIR,
    SESSION_SECRET: t.config.SESSION_SECRET,
    JOB_LOCK_MS: t.config.JOB_LOCK_MS.toString(),
    ENGINE_POOL_NICE: t.config.ENGINE_POOL_NICE.toString(),
    PASSWORD_SCRYPT_LOG_N: '10',
    LOG_LEVEL: 'silent',
    ...extra,
  };
}

/**
 * A worker process of its own (the real worker entry point), on the test app's services.
 * `capture`: its stdout (its log) and stderr are pipes for the caller to read.
 */
export function startWorker(
  t: Host,
  extra: Record<string, string> = {},
  options: { capture?: boolean } = {},
): ChildProcess {
  return spawn(process.execPath, ['-r', 'ts-node/register', WORKER_MAIN], {
    env: sharedEnv(t, extra),
    stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'ignore', 'inherit'],
  });
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Everything a process wrote to stdout and stderr so far (startApi's `capture`). */
export interface CapturedOutput {
  stdout: string;
  stderr: string;
}

/**
 * A second API instance (the real API entry point, API only) on the test app's services; resolves
 * with its URL once /api/health answers. `capture`: keep what it writes to stdout and stderr (its
 * log) in `output` instead of dropping stdout and passing stderr through.
 */
export async function startApi(
  t: Host,
  extra: Record<string, string> = {},
  options: { capture?: boolean } = {},
): Promise<{ child: ChildProcess; url: string; output: CapturedOutput }> {
  const { child, url, output } = await spawnApi(t, extra, options);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`API instance exited with ${child.exitCode}${tail(output)}`);
    const up = await fetch(`${url}/api/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) return { child, url, output };
    if (Date.now() > deadline) throw new Error('API instance did not start in 90 s');
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** startApi without waiting for it to answer. */
export async function spawnApi(
  t: Host,
  extra: Record<string, string> = {},
  options: { capture?: boolean } = {},
): Promise<{ child: ChildProcess; url: string; output: CapturedOutput }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['-r', 'ts-node/register', API_MAIN], {
    env: sharedEnv(t, {
      PORT: String(port),
      HOST: '127.0.0.1',
      WORKER_INLINE: 'false',
      AUTH_RATE_LIMIT_PER_MINUTE: '1000',
      ...extra,
    }),
    stdio: options.capture ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'ignore', 'inherit'],
  });
  const output: CapturedOutput = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  return { child, url: `http://127.0.0.1:${port}`, output };
}

/** The end of a captured process's stderr, for an error message (empty when nothing was captured). */
function tail(output: CapturedOutput): string {
  return output.stderr ? `: ${output.stderr.slice(-2000)}` : '';
}

/** Resolves with the exit code (or signal) once the process has exited. */
export function exited(child: ChildProcess): Promise<number | string | null> {
  return new Promise((resolve) =>
    child.exitCode !== null || child.signalCode !== null
      ? resolve(child.exitCode ?? child.signalCode)
      : child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
}
