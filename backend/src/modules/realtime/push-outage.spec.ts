import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../../test/processes';

describe('socket pushes while Redis is down', () => {
  it('a push that cannot reach Redis is lost, and the process that sent it keeps running', async () => {
    // A real process: an unhandled rejection ends a Node process, but not a jest test.
    const port = await freePort(); // nothing listens there
    const child = spawn(
      process.execPath,
      [
        '-r',
        'ts-node/register',
        join(__dirname, '../../../test/push-outage-child.ts'),
        `redis://127.0.0.1:${port}`,
      ],
      {
        env: {
          ...process.env,
          TS_NODE_TRANSPILE_ONLY: 'true',
          TS_NODE_PROJECT: join(__dirname, '../../../../tsconfig.json'),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, end: stdout.slice(-6), stderr: stderr.slice(0, 500) }).toEqual({
      code: 0,
      end: 'alive\n',
      stderr: '',
    });
  }, 60_000);
});
