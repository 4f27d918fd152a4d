import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exited, freePort } from './processes';

const ROOT = join(__dirname, '../..');

/**
 * A Redis or FerretDB of a test's own, on a free port and a data folder of its own, so a test may
 * kill it (SIGKILL), freeze it (SIGSTOP: connections stay open, nothing answers), thaw it and start
 * it again on the same port and data, without touching the services other tests share. Started
 * with the flags deploy/local/lib.sh uses (start_redis, start_ferretdb).
 */
export interface PrivateService {
  readonly name: 'redis' | 'ferretdb';
  readonly port: number;
  /** redis://127.0.0.1:port or mongodb://127.0.0.1:port (add a database name for MONGODB_URI). */
  readonly url: string;
  readonly dir: string;
  /** The running process's pid (undefined while it is down). */
  readonly pid: number | undefined;
  /** SIGKILL, resolved once the process has exited. */
  kill(): Promise<void>;
  /** SIGSTOP: the process keeps its sockets but answers nothing. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** Starts it again (same port and data) after kill(); resolves once it accepts connections. */
  restart(): Promise<void>;
  /** Ends it (thawed first) and removes its data folder. */
  stop(): Promise<void>;
}

/** Where the project's FerretDB build lives (deploy/local/lib.sh's $TOOLS_BIN); FERRETDB_BIN overrides. */
export function ferretDbBinary(): string {
  return process.env.FERRETDB_BIN ?? join(ROOT, '.tools/bin/studio-ferretdb');
}

export function startPrivateRedis(): Promise<PrivateService> {
  return startService('redis', (port, dir) => [
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--save',
      '',
      '--daemonize',
      'no',
      '--logfile',
      join(dir, 'redis.log'),
    ],
  ]);
}

export function startPrivateFerretDb(): Promise<PrivateService> {
  const binary = ferretDbBinary();
  if (!existsSync(binary))
    throw new Error(`no FerretDB at ${binary}: run npm run setup (or set FERRETDB_BIN)`);
  return startService('ferretdb', (port, dir) => [
    binary,
    [
      '--listen-addr',
      `127.0.0.1:${port}`,
      '--sqlite-url',
      `file:${dir}/?_pragma=busy_timeout(60000)&_pragma=synchronous(normal)`,
    ],
  ]);
}

type Command = (port: number, dir: string) => [string, string[]];

async function startService(name: PrivateService['name'], command: Command): Promise<PrivateService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), `private-${name}-`));
  let child: ChildProcess | undefined;
  let frozen = false;

  const launch = async () => {
    const [file, args] = command(port, dir);
    const started = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    started.stderr
      ?.setEncoding('utf8')
      .on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    started.once('error', (err) => (stderr += String(err)));
    child = started;
    const deadline = Date.now() + 30_000;
    while (!(await accepts(port))) {
      if (started.exitCode !== null || started.signalCode !== null) {
        throw new Error(`${name} exited at start (${started.exitCode ?? started.signalCode}): ${stderr}`);
      }
      if (Date.now() > deadline) throw new Error(`${name} did not accept connections on ${port} in 30 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const service: PrivateService = {
    name,
    port,
    url: `${name === 'redis' ? 'redis' : 'mongodb'}://127.0.0.1:${port}`,
    dir,
    get pid() {
      return child?.pid;
    },
    async kill() {
      if (!child) return;
      const gone = exited(child);
      child.kill('SIGKILL');
      await gone;
      child = undefined;
      frozen = false;
    },
    freeze() {
      if (!child) throw new Error(`${name} is not running`);
      child.kill('SIGSTOP');
      frozen = true;
    },
    thaw() {
      if (!child || !frozen) return;
      child.kill('SIGCONT');
      frozen = false;
    },
    async restart() {
      if (child) throw new Error(`${name} still runs: kill() it first`);
      await launch();
    },
    async stop() {
      if (child) {
        if (frozen) child.kill('SIGCONT');
        const gone = exited(child);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child?.kill('SIGKILL'), 5_000);
        await gone;
        clearTimeout(timer);
        child = undefined;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await launch();
  return service;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
