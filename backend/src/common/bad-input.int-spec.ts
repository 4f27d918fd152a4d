import { request as httpRequest } from 'node:http';
import request from 'supertest';
import { Messages, wholeNumberMessage } from '@studio/contracts';
import { balanceOf, grantCredits, signIn, uniqueName } from '../../test/clients';
import { startTestApp, type TestApp } from '../../test/test-app';

/**
 * Bad input on every endpoint of the foundation answers 4xx with a clear message in the spec's
 * error shape, and never a 5xx.
 */
describe('bad input', () => {
  let t: TestApp;
  let agent: Awaited<ReturnType<typeof signIn>>['agent'];
  beforeAll(async () => {
    t = await startTestApp();
    ({ agent } = await signIn(t));
  });
  afterAll(() => t.close());

  const huge = 'x'.repeat(200 * 1024);
  const valid = () => ({
    email: `${uniqueName()}@example.com`,
    username: uniqueName(),
    password: 'password-123',
    adult: true,
  });

  type Case = [label: string, send: () => request.Test, status: number, content: string | RegExp];
  const cases: Case[] = [
    [
      'register: empty body',
      () => request(t.url).post('/api/register').send({}),
      400,
      Messages.missingFields,
    ],
    [
      'register: one empty field',
      () =>
        request(t.url)
          .post('/api/register')
          .send({ ...valid(), email: '' }),
      400,
      Messages.missingFields,
    ],
    [
      'register: username a number',
      () =>
        request(t.url)
          .post('/api/register')
          .send({ ...valid(), username: 12345 }),
      400,
      'username must be text',
    ],
    [
      'register: password an object',
      () =>
        request(t.url)
          .post('/api/register')
          .send({ ...valid(), password: { $gt: '' } }),
      400,
      'password must be text',
    ],
    [
      'register: email not an address',
      () =>
        request(t.url)
          .post('/api/register')
          .send({ ...valid(), email: 'nope' }),
      400,
      Messages.invalidEmail,
    ],
    [
      'register: short password',
      () =>
        request(t.url)
          .post('/api/register')
          .send({ ...valid(), password: 'short' }),
      400,
      Messages.passwordLength,
    ],
    [
      'register: oversized body',
      () =>
        request(t.url)
          .post('/api/register')
          .send({ ...valid(), email: huge }),
      413,
      Messages.payloadTooLarge,
    ],
    [
      'register: malformed JSON',
      () => request(t.url).post('/api/register').set('Content-Type', 'application/json').send('{"username":'),
      400,
      Messages.malformedJson,
    ],
    [
      'register: JSON array',
      () => request(t.url).post('/api/register').send([1, 2]),
      400,
      Messages.missingFields,
    ],
    ['login: empty body', () => request(t.url).post('/api/login').send({}), 400, Messages.missingFields],
    [
      'login: operator injection',
      () =>
        request(t.url)
          .post('/api/login')
          .send({ username: { $ne: null }, password: 'x' }),
      400,
      'username must be text',
    ],
    [
      'login: oversized body',
      () => request(t.url).post('/api/login').send({ username: 'a', password: huge }),
      413,
      Messages.payloadTooLarge,
    ],
    [
      'login: malformed JSON',
      () => request(t.url).post('/api/login').set('Content-Type', 'application/json').send('not json'),
      400,
      Messages.malformedJson,
    ],
    ['logout: no session', () => request(t.url).post('/api/logout'), 401, Messages.needLogin],
    ['session: no session', () => request(t.url).get('/api/session'), 401, Messages.needLogin],
    [
      'getProfile: odd characters',
      () => agent.get('/api/getProfile/%24where%20%7B%7D'),
      404,
      'User not found',
    ],
    [
      'getProfile: very long name',
      () => agent.get(`/api/getProfile/${'a'.repeat(5000)}`),
      404,
      'User not found',
    ],
    ['makeFolder: no title', () => agent.post('/api/makeFolder').send({}), 400, Messages.folderNameRequired],
    [
      'makeFolder: blank title',
      () => agent.post('/api/makeFolder').send({ title: '   ' }),
      400,
      Messages.folderNameRequired,
    ],
    [
      'makeFolder: title a number',
      () => agent.post('/api/makeFolder').send({ title: 7 }),
      400,
      'title must be text',
    ],
    [
      'makeFolder: title too long',
      () => agent.post('/api/makeFolder').send({ title: 'x'.repeat(65) }),
      400,
      /at most 64/,
    ],
    [
      'makeFolder: oversized body',
      () => agent.post('/api/makeFolder').send({ title: huge }),
      413,
      Messages.payloadTooLarge,
    ],
    [
      'downloadContent: no url',
      () => agent.post('/api/downloadContent').send({}),
      400,
      Messages.missingFields,
    ],
    [
      'downloadContent: url an object',
      () => agent.post('/api/downloadContent').send({ url: { $ne: 1 } }),
      400,
      'url must be text',
    ],
    [
      'downloadContent: unknown url',
      () => agent.post('/api/downloadContent').send({ url: '/etc/passwd' }),
      404,
      'Item not found',
    ],
    [
      'getBulkInpaints: not an id',
      () => agent.get('/api/getBulkInpaints/%7B%24ne%3A1%7D'),
      404,
      'Folder not found',
    ],
    ['deleteGen: not an id', () => agent.get('/api/deleteGen/..%2F..%2Fetc'), 404, 'Item not found'],
    [
      'rename folder: blank title',
      () => agent.patch('/api/folders/000000000000000000000000').send({ title: ' ' }),
      400,
      Messages.folderNameRequired,
    ],
    [
      'rename folder: unknown folder',
      () => agent.patch('/api/folders/000000000000000000000000').send({ title: 'x' }),
      404,
      'Folder not found',
    ],
    ['getlogs: no session', () => request(t.url).get('/api/getlogs'), 401, Messages.needLogin],
    ['unknown API path', () => request(t.url).get('/api/nope'), 404, Messages.notFound],
  ];

  it.each(cases)('%s', async (_label, send, status, content) => {
    const res = await send();
    expect(res.status).toBe(status);
    expect(res.body.message).toBe('error');
    if (typeof content === 'string') expect(res.body.content).toBe(content);
    else expect(res.body.content).toMatch(content);
  });
});

/**
 * Issue 13 point 7: numbers are plain decimal integers in range (no '1e2', '0x10', ' 5 ', '+3'),
 * and names people write carry no control, text-direction or invisible characters. Each refusal
 * is a 400 with a clear message and changes nothing.
 */
describe('loose numbers and hostile text', () => {
  let t: TestApp;
  let client: Awaited<ReturnType<typeof signIn>>;
  beforeAll(async () => {
    t = await startTestApp();
    client = await signIn(t);
    // Tool endpoints turn away callers without credits before they read the fields.
    await grantCredits(t, client.username, 1000);
  });
  afterAll(() => t.close());

  const page = wholeNumberMessage('page', { min: 1, max: 1_000_000 });
  const pageSize = wholeNumberMessage('pageSize', { min: 1, max: 100 });
  it.each([
    ['page=1e2', page],
    ['page=0x10', page],
    ['page=%205%20', page],
    ['page=%2B3', page],
    ['page=05', page],
    ['page=2.0', page],
    ['page=1&page=2', page],
    ['pageSize=1e1', pageSize],
    ['pageSize=101', pageSize],
  ])('credit history refuses the query %s', async (query, message) => {
    const res = await client.agent.get(`/api/credits/history?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error', content: message });
  });

  it('still reads plain page numbers', async () => {
    const res = await client.agent.get('/api/credits/history?page=2&pageSize=5');
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ page: 2, pageSize: 5 });
  });

  it.each([['1e2'], ['0x10'], [' 5 '], ['+3']])(
    'refuses the multipart tool amount %j before any work',
    async (amount) => {
      const res = await client.agent
        .post('/api/generateNoise')
        .field('amount', amount)
        .attach('original', Buffer.from('not an image'), 'a.png');
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(wholeNumberMessage('Amount', { min: 1, max: 100 }));
    },
  );

  const hostile: [string, string][] = [
    ['NUL', 'a\u0000b'],
    ['ANSI escape', '\u001b[31mred'],
    ['right-to-left override', 'gpj.\u202eexe'],
    ['isolate', 'x\u2066y\u2069'],
    ['zero-width space', 'ad\u200bmin'],
    // Inside the text: trimming takes one at the ends away.
    ['byte order mark', 'na\ufeffme'],
    ['tag characters (hidden text)', 'cat\u{e0069}\u{e0067}\u{e006e}'],
    ['a Hangul filler only', '\u3164'],
  ];

  const folderCount = async () =>
    ((await client.agent.get(`/api/getProfile/${client.username}`)).body.content.folders as unknown[]).length;

  it.each(hostile)('refuses a folder title with %s and makes no folder', async (_label, title) => {
    const before = await folderCount();
    const res = await client.agent.post('/api/makeFolder').send({ title });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error', content: Messages.unsafeCharacters });
    const renamed = await client.agent.patch('/api/folders/000000000000000000000000').send({ title });
    expect(renamed.status).toBe(400);
    expect(renamed.body.content).toBe(Messages.unsafeCharacters);
    expect(await folderCount()).toBe(before);
  });

  it.each(hostile)('refuses a bulk inpaint name with %s', async (_label, inpaintName) => {
    const res = await client.agent
      .post('/api/bulkInpaintImage')
      .field('inpaintName', inpaintName)
      .field('amount', '1');
    expect(res.status).toBe(400);
    expect(res.body.content).toBe(Messages.unsafeCharacters);
  });

  // Hostile pass of issue 35: prompts with U+0007 or U+0090 passed validation (and reached the engine).
  it.each([
    ['BEL in the prompt', { prompt: 'a cat\u0007' }],
    ['a C1 control in the prompt', { prompt: 'ag\u0090' }],
    ['a newline in the prompt', { prompt: 'a cat,\nignore the rest' }],
    ['ESC in a tag', { prompt: 'a cat', tags: { haircolor: 'blonde\u001b[31m' } }],
  ])('refuses a generation with %s and charges nothing', async (_label, body) => {
    const before = await balanceOf(client);
    const res = await client.agent.post('/api/generateImage').send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'error', content: Messages.promptControlCharacters });
    expect(await balanceOf(client)).toBe(before);
  });

  it('refuses an inpaint prompt with a control character', async () => {
    const res = await client.agent
      .post('/api/bulkInpaintImage')
      .field('prompt', 'a hat\u0007')
      .field('amount', '1');
    expect(res.status).toBe(400);
    expect(res.body.content).toBe(Messages.promptControlCharacters);
  });

  it('accepts titles in any script', async () => {
    const res = await client.agent.post('/api/makeFolder').send({ title: 'Été — שלום 写真 🏖️' });
    expect(res.status).toBe(200);
  });
});

/**
 * A JSON body declared larger than its limit is answered 413 at once, from Content-Length: before
 * the fix body-parser read off every declared byte first, so a client declaring gigabytes (or
 * sending them slowly) held the connection with no answer (found by issue 35's hostile pass).
 */
describe('JSON bodies declared over their limit', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  /** Sends the headers and one byte of a body declared 5 GB long; resolves with the answer. */
  function declareHuge(path: string, headers: Record<string, string> = {}) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${t.url}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': String(5 * 1024 ** 3), ...headers },
      });
      req.on('response', (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => {
          req.destroy();
          resolve({ status: res.statusCode ?? 0, body });
        });
      });
      req.on('error', reject);
      req.write('{');
    });
  }

  it('answers 413 without waiting for the body, on a route of the global parser', async () => {
    const answer = await declareHuge('/api/login');
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ message: 'error', content: Messages.payloadTooLarge });
  });
});
