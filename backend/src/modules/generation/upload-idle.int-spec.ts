import { request as httpRequest, type IncomingMessage } from 'node:http';
import { JobMessages, UPLOAD_REQUEST_LIMITS } from '@studio/contracts';
import { grantCredits, makeFolder, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * Issue 25 point 9: a trickled upload held one of the user's upload slots for 315 s. A body that
 * sends nothing for UPLOAD_IDLE_SECONDS is answered 408 and its connection closed, which frees
 * the slot; multipart and JSON bodies alike.
 */
describe('idle upload bodies', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ JOB_RATE_LIMIT_PER_MINUTE: '1000', UPLOAD_IDLE_SECONDS: '1' });
  });
  afterAll(() => t.close());

  /** Sends a request's first bytes, then nothing; resolves with the answer (and whether the connection closes). */
  function stallRequest(
    path: string,
    headers: Record<string, string>,
    firstBytes: string,
  ): Promise<{ status: number; body: string; connection?: string }> {
    const req = httpRequest(new URL(path, t.url), { method: 'POST', headers });
    req.write(firstBytes);
    return new Promise((resolve, reject) => {
      req.on('response', (res: IncomingMessage) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body, connection: res.headers.connection }),
        );
      });
      req.on('error', reject);
    });
  }

  /** Starts an upload that declares 8 MB, sends its first bytes, then nothing; resolves with the answer. */
  function stall(cookie: string, kind: 'multipart' | 'json') {
    const boundary = 'stall-boundary';
    return stallRequest(
      '/api/superResolution',
      {
        cookie,
        'content-type': kind === 'json' ? 'application/json' : `multipart/form-data; boundary=${boundary}`,
        'content-length': String(8 * 1024 * 1024),
      },
      kind === 'json'
        ? '{"original":"data:image/png;base64,'
        : `--${boundary}\r\nContent-Disposition: form-data; name="original"; filename="a.png"\r\n` +
            'Content-Type: image/png\r\n\r\n\x89PNG',
    );
  }

  it('answers 408 to a body that stalls, multipart or JSON, and its slot is free again', async () => {
    const user = await signIn(t, uniqueName('idle'));
    await grantCredits(t, user.username, 100);
    // More stalled uploads than slots, one after another: each is answered (was: no answer at
    // all while the client kept the connection, and the slots stayed taken).
    for (let round = 0; round < UPLOAD_REQUEST_LIMITS.concurrentPerUser + 1; round += 1) {
      const answers = await Promise.all(
        Array.from({ length: UPLOAD_REQUEST_LIMITS.concurrentPerUser }, (_, i) =>
          stall(user.cookie, i % 2 ? 'json' : 'multipart'),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).toBe(408);
        expect(JSON.parse(answer.body)).toEqual({ message: 'error', content: JobMessages.uploadIdle });
      }
    }
    // The slots are free: a complete small upload is read and judged on its bytes (400, not an image).
    const small = await user.agent
      .post('/api/superResolution')
      .send({ original: 'data:image/png;base64,AAAA' });
    expect(small.status).toBe(400);
  }, 30_000);

  // Hostile pass of issue 35: a JSON body read by the app's JSON parser (any route but the JSON
  // upload ones) that stalled got no answer until the server's request timeout (300 s).
  it('answers 408 and closes the connection when a JSON body stalls, on every JSON route', async () => {
    const user = await signIn(t, uniqueName('idlejson'));
    const stalled = [
      { path: '/api/login', cookie: '', start: '{"username":"someone","password":"' },
      { path: '/api/makeFolder', cookie: user.cookie, start: `{"author":"${user.username}","title":"` },
      { path: '/api/generateNoise', cookie: user.cookie, start: '{"original":"data:image/png;base64,AAAA' },
    ];
    const answers = await Promise.all(
      stalled.map(({ path, cookie, start }) =>
        stallRequest(
          path,
          // under JSON_BODY_LIMIT, so only the stall can end it
          { ...(cookie ? { cookie } : {}), 'content-type': 'application/json', 'content-length': '50000' },
          start,
        ),
      ),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toEqual({ message: 'error', content: JobMessages.uploadIdle });
      expect(answer.connection).toBe('close');
    }
    // a body that arrives whole is still read
    expect(await makeFolder(user, 'After the stalls')).toEqual(expect.any(String));
  }, 20_000);
});
