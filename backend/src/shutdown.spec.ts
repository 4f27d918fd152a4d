import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { exited } from '../test/processes';
import { SHUTDOWN_OVERDUE_STATUS } from './shutdown';

/**
 * The shutdown deadline of the API and worker entry points (shutdown.ts), in a real process that
 * gets a real SIGTERM: a shutdown that never finishes (as Nest's did while Redis was down) is cut
 * short and says so; a signal nobody else handles still ends the process at once.
 */
const ROOT = join(__dirname, '../..');
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

/** A node process running `body` after arming the deadline; its stderr and how it ended. */
async function run(body: string): Promise<{ status: number | string | null; stderr: string }> {
  const script = `
    const { exitAfterShutdownDeadline } = require(${JSON.stringify(join(__dirname, 'shutdown.ts'))});
    ${body}
    process.stderr.write('armed\\n');
    setInterval(() => undefined, 1000); // keeps running until a signal ends it
  `;
  const child = spawn(process.execPath, ['-r', 'ts-node/register', '-e', script], {
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true', TS_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
    if (chunk.includes('armed')) child.kill('SIGTERM');
  });
  const status = await exited(child);
  return { status, stderr };
}

describe('exitAfterShutdownDeadline', () => {
  it('ends a process whose shutdown never finishes, saying why', async () => {
    // the shutdown Nest would run on SIGTERM, waiting for a Redis that never answers
    const { status, stderr } = await run(`
      process.on('SIGTERM', () => new Promise(() => undefined));
      exitAfterShutdownDeadline(200, (message) => process.stderr.write(message + '\\n'));
    `);
    expect(status).toBe(SHUTDOWN_OVERDUE_STATUS);
    expect(stderr).toContain('shutdown did not finish within 0.2 s of SIGTERM');
  });

  it('leaves a signal nobody else handles its default action: the process ends by it', async () => {
    const { status, stderr } = await run(`
      exitAfterShutdownDeadline(60_000, (message) => process.stderr.write(message + '\\n'));
    `);
    expect(status).toBe('SIGTERM');
    expect(stderr).not.toContain('shutdown did not finish');
  });
});
