import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Redis from 'ioredis';
import { descendantsOf } from '../../backend/test/process-tree';
import { exited, freePort } from '../../backend/test/processes';

/**
 * npm start's supervisor (deploy/local/supervise.sh), on real programs: a real redis-server killed
 * with SIGKILL comes back on its port with its data, restarts back off, and SIGTERM ends the
 * supervisor and everything under it, also a program that ignores SIGTERM and what it started.
 */
const SUPERVISE = join(__dirname, 'supervise.sh');
const LIB = join(__dirname, 'lib.sh');
/** The pinned Node first on PATH, as lib.sh wants it (it would fetch it otherwise). */
const env = { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}` };

interface Supervised {
  child: ChildProcess;
  /** What the supervisor and the program wrote to stderr so far. */
  log(): string;
}

const started: ChildProcess[] = [];
const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), 'studio-supervise-'));
  dirs.push(dir);
  return dir;
};

function run(file: string, args: string[]): Supervised {
  const child = spawn(file, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  started.push(child);
  let log = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
  return { child, log: () => log };
}

const supervise = (...args: string[]) => run('bash', [SUPERVISE, ...args]);

/** Polls until `check` returns a value other than undefined/false, or fails after `ms`. */
async function until<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The file's text, or '' when it is gone (a process that ended meanwhile). */
function readFileSafe(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/** Running, not a zombie (one that has ended and whose parent has not read its status yet). */
const alive = (pid: number) => {
  const stat = readFileSafe(`/proc/${pid}/stat`);
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
};

/** The pid of a process below `pid` whose command line starts with these words. */
const below = (pid: number, ...words: string[]) =>
  descendantsOf(pid).find((p) => readFileSafe(`/proc/${p}/cmdline`).startsWith(words.join('\u0000')));

/** Whether something takes TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

/** Resolves with the exit code or signal, or rejects when the process is still running after `ms`. */
function exitedWithin(child: ChildProcess, ms: number) {
  return Promise.race([
    exited(child),
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still running after ${ms} ms`)), ms).unref(),
    ),
  ]);
}

afterEach(async () => {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      for (const pid of [...descendantsOf(child.pid!), child.pid!]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // ended meanwhile
        }
      }
      await exited(child);
    }
  }
});
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe('deploy/local/supervise.sh', () => {
  it('starts a redis-server killed with SIGKILL again, on the same port with the same data, and logs it', async () => {
    const port = await freePort();
    const dir = scratch();
    // appendfsync always: the key is on disk before the kill (npm start's everysec may lose 1 s)
    const supervisor = supervise(
      'redis',
      'redis-server',
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes'],
      ...['--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--logfile', join(dir, 'redis.log')],
    );
    await until('redis to take connections', () => accepts(port));
    const redis = new Redis(port, '127.0.0.1', { retryStrategy: () => 50 });
    try {
      const pidOf = async () => Number(/process_id:(\d+)/.exec(await redis.info('server'))![1]);
      await redis.set('kept', 'across the restart');
      const first = await pidOf();

      process.kill(first, 'SIGKILL');
      await until('the restart to be logged', () =>
        /redis ended \(status 137, SIGKILL\); starting it again in 0\.5 s/.test(supervisor.log()),
      );
      const second = await until('a new redis-server on the port', async () => {
        const pid = await pidOf().catch(() => undefined);
        return pid !== undefined && pid !== first ? pid : undefined;
      });
      expect(descendantsOf(supervisor.child.pid!)).toContain(second);
      expect(await redis.get('kept')).toBe('across the restart');
    } finally {
      redis.disconnect();
    }
  });

  it('waits longer before each restart of a program that keeps ending: 0.5 s, then doubling', async () => {
    const supervisor = supervise('quitter', 'bash', '-c', 'exit 3');
    const delays = await until('four restarts', () => {
      const found = [
        ...supervisor.log().matchAll(/quitter ended \(status 3\); starting it again in ([\d.]+) s/g),
      ];
      return found.length >= 4 && found.map((m) => m[1]);
    });
    expect(delays.slice(0, 4)).toEqual(['0.5', '1.0', '2.0', '4.0']);
  });

  it('does not start again a program that ends with 78 (a setting it cannot start with), and ends with that status', async () => {
    const supervisor = supervise('misconfigured', 'bash', '-c', 'exit 78');
    expect(await exitedWithin(supervisor.child, 30_000)).toBe(78);
    expect(supervisor.log()).toContain('misconfigured ended with status 78');
    expect(supervisor.log()).not.toMatch(/starting it again in/);
  });

  it('on SIGTERM ends the program and what it started, also when it ignores SIGTERM', async () => {
    // a program that ignores SIGTERM and has started a child of its own
    const supervisor = supervise(
      '--grace',
      '1',
      'stubborn',
      'bash',
      '-c',
      'trap "" TERM; sleep 600 & while :; do sleep 1; done',
    );
    await until("the program's child", () => below(supervisor.child.pid!, 'sleep', '600'));
    const tree = descendantsOf(supervisor.child.pid!);

    supervisor.child.kill('SIGTERM');
    expect(await exitedWithin(supervisor.child, 30_000)).toBe(0);
    expect(supervisor.log()).toContain('stubborn did not stop within 1 s of SIGTERM; killing it');
    await until('nothing it started to be left', () => tree.every((pid) => !alive(pid)));
  });

  it('on SIGTERM during the pause between two runs ends at once, leaving nothing behind', async () => {
    const supervisor = supervise('quitter', 'bash', '-c', 'exit 3');
    await until('a pause', () => supervisor.log().includes('starting it again'));
    const tree = descendantsOf(supervisor.child.pid!);
    supervisor.child.kill('SIGTERM');
    expect(await exitedWithin(supervisor.child, 30_000)).toBe(0);
    await until('nothing it started to be left', () => tree.every((pid) => !alive(pid)));
  });

  it('stops when the process that started it ends without stopping it', async () => {
    // a shell that starts a supervisor, prints its pid and is then killed with SIGKILL
    const parent = run('bash', ['-c', `bash ${SUPERVISE} sleeper sleep 600 & echo $! >&2; wait`]);
    const supervisorPid = Number(await until('the supervisor pid', () => /^(\d+)\n/.exec(parent.log())?.[1]));
    const sleeper = await until('the program', () => below(supervisorPid, 'sleep', '600'));
    parent.child.kill('SIGKILL');
    await until('the supervisor and its program to end', () => !alive(supervisorPid) && !alive(sleeper));
  });

  it("leaves start.sh's lock on the data folder (fd 9) to start.sh: no part started by lib.sh holds it", async () => {
    const lock = join(scratch(), '.running');
    const shell = run('bash', [
      '-c',
      `source ${LIB}; exec 9>${lock}; flock -n 9; start_supervised sleeper sleep 600; echo "$SUPERVISED_PID" >&2; wait`,
    ]);
    const supervisorPid = Number(await until('the supervisor pid', () => /^(\d+)\n/.exec(shell.log())?.[1]));
    const sleeper = await until('the program', () => below(supervisorPid, 'sleep', '600'));
    const holds = (pid: number) =>
      readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === lock;
        } catch {
          return false;
        }
      });
    expect(holds(shell.child.pid!)).toBe(true);
    expect([supervisorPid, sleeper].filter(holds)).toEqual([]);
  });
});
