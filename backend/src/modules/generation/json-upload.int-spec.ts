import { request as httpRequest, type ClientRequest } from 'node:http';
import { JobMessages, UPLOAD_LIMITS, UPLOAD_REQUEST_LIMITS } from '@studio/contracts';
import { eventually, grantCredits, signIn, uniqueName } from '../../../test/clients';
import { AccountsRepository } from '../accounts/accounts.repository';
import { UploadSlots } from './generation-uploads';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * Issue 25 point 5: a JSON body carrying a data-URL image (the spec's super resolution request) is
 * accounted like a multipart upload: the user's upload slots are taken before its body is read,
 * so a request beyond them is refused at once instead of being parsed into memory first.
 */
describe('JSON image uploads: the upload slots, and data URLs read as a stream', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ JOB_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(() => t.close());

  /** Starts a JSON upload that declares 16 MB and sends only its first bytes. */
  function trickle(
    cookie: string,
    path = '/api/superResolution',
  ): { req: ClientRequest; answered: number[] } {
    const url = new URL(path, t.url);
    const req = httpRequest(url, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'content-length': String(16 * 1024 * 1024) },
    });
    const answered: number[] = [];
    req.on('response', (res) => answered.push(res.statusCode ?? 0));
    req.on('error', () => undefined); // destroyed at the end
    req.write('{"original":"data:image/png;base64,');
    return { req, answered };
  }

  it('refuses the upload beyond the slots before reading its body, and frees a slot when one ends', async () => {
    const user = await signIn(t, uniqueName('json'));
    await grantCredits(t, user.username, 100);
    // Routes match regardless of letter case and a trailing slash: so does the accounting.
    const holding = Array.from({ length: UPLOAD_REQUEST_LIMITS.concurrentPerUser }, (_, i) =>
      trickle(user.cookie, i === 0 ? '/api/SuperResolution/' : '/api/superResolution'),
    );
    // Every holder passes its checks and takes a slot while its body is still unread.
    const slots = t.app.get(UploadSlots);
    const userId = (await t.app.get(AccountsRepository).findByUsername(user.username))!.id;
    await eventually(async () => {
      expect(holding.flatMap((h) => h.answered)).toEqual([]);
      expect(slots.held(userId)).toBe(UPLOAD_REQUEST_LIMITS.concurrentPerUser);
    }, 30_000);
    // A small, complete upload is refused at once (with a slot, it would be read: 400, not an image).
    const small = () =>
      user.agent.post('/api/superResolution').send({ original: 'data:image/png;base64,AAAA' });
    let answer = await small();
    expect(answer.status).toBe(429);
    expect(answer.body.content).toBe(JobMessages.tooManyUploads);
    // The holders are still open, unanswered: their bodies never completed.
    for (const h of holding) expect(h.req.destroyed).toBe(false);
    holding[0].req.destroy();
    // Once a holder goes away its slot is free again: the next upload is read.
    answer = await small();
    for (let attempt = 0; attempt < 100 && answer.status === 429; attempt++) answer = await small();
    expect(answer.status).toBe(400);
    for (const h of holding) h.req.destroy();
  });

  /** The first answer to a request whose body is still being sent (the body is never finished). */
  const answerOf = (req: ClientRequest) =>
    new Promise<{ status: number; body: string }>((resolve) =>
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      }),
    );

  // Issue 35 point 4: the data URL is decoded as it streams, so a wrong declared type or an image
  // past the cap is refused while the client is still sending (the body was read whole before).
  it('refuses a data URL that does not declare a JPEG, PNG or WebP image as soon as its prefix arrives', async () => {
    const user = await signIn(t, uniqueName('jsontype'));
    await grantCredits(t, user.username, 100);
    const req = trickleWith(user.cookie, '{"original":"data:text/html;base64,PGgxPg');
    const answer = await answerOf(req);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).content).toBe(JobMessages.badImage);
    req.destroy();
  });

  it('refuses a data URL as soon as its decoded bytes pass the image cap, before the body ends', async () => {
    const user = await signIn(t, uniqueName('jsonsize'));
    await grantCredits(t, user.username, 100);
    // declares 24 MB (under the 128 MB request cap): 18 MB once decoded
    const req = trickleWith(user.cookie, '{"original":"data:image/png;base64,', 24 * 1024 * 1024);
    const answer = answerOf(req);
    // base64 of zeros, 1 MB decoded a chunk, until the server answers (15 MB is the cap)
    const chunk = Buffer.alloc(1024 * 1024).toString('base64');
    let sent = 0;
    let answered = false;
    void answer.then(() => (answered = true));
    // writes until the server answers (or 2 MB past the cap: the test then fails)
    while (!answered && sent < UPLOAD_LIMITS.imageBytes + 2 * 1024 * 1024) {
      if (!req.write(chunk)) {
        await Promise.race([new Promise((resolve) => req.once('drain', resolve)), answer]);
      }
      sent += 1024 * 1024;
    }
    const { status, body } = await answer;
    expect([status, JSON.parse(body).content]).toEqual([413, JobMessages.imageTooLarge]);
    req.destroy();
  });

  /** A JSON upload declaring `length` bytes (within the request cap) that sends `start`. */
  function trickleWith(cookie: string, start: string, length = 20 * 1024 * 1024): ClientRequest {
    const req = httpRequest(new URL('/api/superResolution', t.url), {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json', 'content-length': String(length) },
    });
    req.on('error', () => undefined); // destroyed at the end
    req.write(start);
    return req;
  }
});
