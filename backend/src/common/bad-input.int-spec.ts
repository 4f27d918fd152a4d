import request from 'supertest';
import { Messages } from '@studio/contracts';
import { signIn, uniqueName } from '../../test/clients';
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
