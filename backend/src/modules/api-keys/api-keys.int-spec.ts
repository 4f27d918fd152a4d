import { getModelToken } from '@nestjs/mongoose';
import type { InferenceEngine, RunContext } from '@studio/inference';
import type { Model } from 'mongoose';
import request from 'supertest';
import sharp from 'sharp';
import { API_KEY_PREFIX, ApiKeyMessages, type ApiKeyScope, type ApiKeyView } from '@studio/contracts';
import { AccountsRepository } from '../accounts/accounts.repository';
import { EngineRegistry } from '../engines';
import { ApiKey } from './api-key.schema';
import { balanceOf, grantCredits, PASSWORD, signIn, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

/** Issue 41: personal API keys through the real API (FerretDB, Redis, the local engines). */
describe('personal API keys', () => {
  let t: TestApp;
  let image: Buffer;

  beforeAll(async () => {
    // Jobs wait in line (no answer waits for them); the open-job and job rate limits out of the way.
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_RATE_LIMIT_PER_MINUTE: '1000',
      API_KEY_RATE_PER_MINUTE: '1000',
    });
    // Clone jobs run until cancelled, so a test's cancel always finds its job open (never a race
    // with a fast engine); a job's coins count as spent while it runs.
    const registry = t.app.get(EngineRegistry);
    const real = registry.engineFor('clone')!;
    registry.override(
      'clone',
      Object.assign(Object.create(real) as InferenceEngine, {
        clone: (_request: unknown, context?: RunContext) =>
          new Promise<never>((_resolve, reject) => {
            context?.signal?.addEventListener('abort', () => reject(context.signal!.reason as Error));
          }),
      }),
    );
    image = await sharp({ create: { width: 32, height: 32, channels: 3, background: '#579' } })
      .png()
      .toBuffer();
  });
  afterAll(async () => {
    await t?.close();
  });

  const makeKey = async (
    owner: Client,
    scopes: ApiKeyScope[],
    extra: { monthlyCap?: number; revokeOnPasswordChange?: boolean } = {},
  ) => {
    const res = await owner.agent
      .post('/api/account/api-keys')
      .send({ name: `key ${scopes.join('+')}`, scopes, ...extra });
    expect(res.status).toBe(201);
    return res.body.content as { key: ApiKeyView; secret: string };
  };
  const withKey = (secret: string) => ({
    get: (path: string) => request(t.url).get(path).set('Authorization', `Bearer ${secret}`),
    post: (path: string) => request(t.url).post(path).set('Authorization', `Bearer ${secret}`),
  });
  const clone = (secret: string, username: string) =>
    withKey(secret)
      .post('/api/generateNoise')
      .field('author', username)
      .field('amount', '1')
      .attach('original', image, 'in.png');

  it('shows the secret once, keeps only a hash, and lists keys without it', async () => {
    const owner = await signIn(t, uniqueName('keys'));
    const { key, secret } = await makeKey(owner, ['read']);
    expect(secret).toMatch(new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(key).toMatchObject({ name: 'key read', scopes: ['read'], spentThisMonth: 0 });
    expect(secret.startsWith(key.preview)).toBe(true);
    const listed = await owner.agent.get('/api/account/api-keys');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(API_KEY_PREFIX.length + 4));
    expect(listed.body.content).toEqual([expect.objectContaining({ id: key.id, name: 'key read' })]);
    // Another user sees none of it, and cannot revoke it.
    const other = await signIn(t, uniqueName('other'));
    expect((await other.agent.get('/api/account/api-keys')).body.content).toEqual([]);
    expect((await other.agent.delete(`/api/account/api-keys/${key.id}`)).status).toBe(404);
    expect((await withKey(secret).get('/api/jobs')).status).toBe(200);
  });

  it('refuses bad requests to make a key with a clear 400 and makes nothing', async () => {
    const owner = await signIn(t, uniqueName('badkey'));
    for (const body of [
      { name: '', scopes: ['read'] },
      { name: 'x', scopes: [] },
      { name: 'x', scopes: ['admin'] },
      { name: 'x', scopes: ['read'], monthlyCap: -1 },
      { name: 'x', scopes: ['read'], monthlyCap: 1.5 },
      { name: 'x'.repeat(61), scopes: ['read'] },
    ]) {
      const res = await owner.agent.post('/api/account/api-keys').send(body);
      expect(res.status).toBe(400);
      expect(typeof res.body.content).toBe('string');
    }
    expect((await owner.agent.get('/api/account/api-keys')).body.content).toEqual([]);
  });

  it('answers 403 on every route outside its scopes, and on the account, payments, keys and staff routes', async () => {
    const owner = await signIn(t, uniqueName('scopes'));
    await grantCredits(t, owner.username, 10);
    const reader = (await makeKey(owner, ['read'])).secret;
    const refusedForReader: [string, () => request.Test][] = [
      ['run a tool', () => clone(reader, owner.username)],
      [
        'make a folder',
        () => withKey(reader).post('/api/makeFolder').send({ author: owner.username, title: 'x' }),
      ],
      ['cancel a job', () => withKey(reader).post('/api/jobs/0123456789abcdef01234567/cancel')],
    ];
    for (const [what, send] of refusedForReader) {
      const res = await send();
      expect({ what, status: res.status }).toEqual({ what, status: 403 });
      expect(res.body.content).toMatch(/needs the "(tools|folders)" permission/);
    }
    const everything = (await makeKey(owner, ['read', 'tools', 'folders'])).secret;
    const neverWithKey: [string, () => request.Test][] = [
      ['the account', () => withKey(everything).get('/api/account')],
      ['change password', () => withKey(everything).post('/api/account/password').send({})],
      [
        'make a key',
        () =>
          withKey(everything)
            .post('/api/account/api-keys')
            .send({ name: 'x', scopes: ['read'] }),
      ],
      ['list keys', () => withKey(everything).get('/api/account/api-keys')],
      ['buy coins', () => withKey(everything).post('/api/createCheckoutSession').send({ packs: 1 })],
      ['export', () => withKey(everything).get('/api/account/export')],
      ['support', () => withKey(everything).get(`/api/support/users/${owner.username}/credits`)],
    ];
    for (const [what, send] of neverWithKey) {
      const res = await send();
      expect({ what, status: res.status }).toEqual({ what, status: 403 });
      expect(res.body.content).toBe(ApiKeyMessages.scope(undefined));
    }
    // Within its scopes it works, without any browser header, and the balance did not move.
    expect((await withKey(everything).get(`/api/getProfile/${owner.username}`)).body.content.balance).toBe(
      10,
    );
    const folder = await withKey(everything)
      .post('/api/makeFolder')
      .send({ author: owner.username, title: 'Scripted' });
    expect(folder.status).toBe(200);
    // Not subject to the browser same-origin rule that refuses the cookie from another site.
    const crossSite = { 'Sec-Fetch-Site': 'cross-site', Origin: 'https://elsewhere.example' };
    const byCookie = await owner.agent
      .post('/api/makeFolder')
      .set(crossSite)
      .send({ author: owner.username, title: 'x' });
    expect(byCookie.status).toBe(403);
    const byKey = await withKey(everything)
      .post('/api/makeFolder')
      .set(crossSite)
      .send({ author: owner.username, title: 'y' });
    expect(byKey.status).toBe(200);
  });

  it('marks in the OpenAPI document which routes a key may call, with their scope', async () => {
    const doc = (await request(t.url).get('/api/openapi.json')).body as {
      paths: Record<
        string,
        Record<string, { security?: Record<string, string[]>[]; 'x-api-key-scope'?: string }>
      >;
      components: { securitySchemes: Record<string, { scheme?: string }> };
    };
    expect(doc.components.securitySchemes['api-key']).toMatchObject({ scheme: 'bearer' });
    const scopeOf = (path: string, method: string) => doc.paths[path][method]['x-api-key-scope'];
    expect(scopeOf('/api/generateNoise', 'post')).toBe('tools');
    expect(doc.paths['/api/generateNoise'].post.security).toContainEqual({ 'api-key': [] });
    expect(scopeOf('/api/jobs/{id}', 'get')).toBe('read');
    expect(scopeOf('/api/makeFolder', 'post')).toBe('folders');
    for (const [path, method] of [
      ['/api/account', 'get'],
      ['/api/account/api-keys', 'post'],
      ['/api/createCheckoutSession', 'post'],
      ['/api/admin/stats', 'get'],
    ]) {
      expect({ path, scope: scopeOf(path, method) }).toEqual({ path, scope: undefined });
    }
  });

  it('refuses an unknown, malformed or revoked key with 401 at once, and never falls back to a cookie', async () => {
    const owner = await signIn(t, uniqueName('revoke'));
    const { key, secret } = await makeKey(owner, ['read']);
    expect((await withKey(secret).get('/api/jobs')).status).toBe(200);
    // One character changed (the last one, to a character it is not: a fixed 'A' was the key
    // itself one time in 64, and loaded run 22 drew that key).
    const altered = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    expect(altered).not.toBe(secret);
    for (const bad of [altered, 'sk_studio_short', '', 'x'.repeat(5000)]) {
      const res = await request(t.url).get('/api/jobs').set('Authorization', `Bearer ${bad}`);
      expect(res.status).toBe(401);
      expect(res.body.content).toBe(ApiKeyMessages.invalid);
    }
    const revoked = await owner.agent.delete(`/api/account/api-keys/${key.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.content.revokedAt).toEqual(expect.any(String));
    const after = await withKey(secret).get('/api/jobs');
    expect(after.status).toBe(401);
    // A valid session cookie beside a revoked key does not let the request in.
    const both = await request(t.url)
      .get('/api/jobs')
      .set('Authorization', `Bearer ${secret}`)
      .set('Cookie', owner.cookie);
    expect(both.status).toBe(401);
  });

  it('forgets the keys of a deleted account: the key answers 401 and no record of it is left', async () => {
    const owner = await signIn(t, uniqueName('gone'));
    const { secret } = await makeKey(owner, ['read']);
    expect((await withKey(secret).get('/api/jobs')).status).toBe(200);
    const deleted = await owner.agent.delete('/api/account').send({ password: PASSWORD });
    expect(deleted.status).toBe(200);
    expect((await withKey(secret).get('/api/jobs')).status).toBe(401);
    const account = await t.app.get(AccountsRepository).findByUsername(owner.username);
    expect(account).toBeNull();
    const keys = t.app.get(getModelToken(ApiKey.name)) as Model<ApiKey>;
    expect(await keys.countDocuments({ name: 'key read', preview: secret.slice(0, 14) })).toBe(0);
  });

  it('acts as a plain user: staff cannot make keys, and a user promoted later gets no staff power through a key', async () => {
    const admin = await signIn(t, uniqueName('boss'));
    const accounts = t.app.get(AccountsRepository);
    const user = await signIn(t, uniqueName('promoted'));
    const { secret } = await makeKey(user, ['read', 'tools', 'folders']);
    for (const who of [admin, user]) {
      await accounts.setRole((await accounts.findByUsername(who.username))!.id, 'admin');
    }
    const refused = await admin.agent.post('/api/account/api-keys').send({ name: 'x', scopes: ['read'] });
    expect(refused.status).toBe(403);
    expect(refused.body.content).toBe(ApiKeyMessages.staffNoKeys);
    // The promoted user's session reaches staff routes; the key does not.
    expect((await user.agent.get('/api/admin/stats').query({ tz: 'UTC' })).status).toBe(200);
    expect((await withKey(secret).get('/api/admin/stats').query({ tz: 'UTC' })).status).toBe(403);
    const viaKey = await withKey(secret)
      .post('/api/admin/content/0123456789abcdef01234567/takedown')
      .send({});
    expect(viaKey.status).toBe(403);
  });

  it('stops a key made with "end on password change" when the password changes, and keeps the others', async () => {
    const owner = await signIn(t, uniqueName('pwchange'));
    const ending = (await makeKey(owner, ['read'], { revokeOnPasswordChange: true })).secret;
    const staying = (await makeKey(owner, ['read'])).secret;
    expect((await withKey(ending).get('/api/jobs')).status).toBe(200);
    const changed = await owner.agent
      .post('/api/account/password')
      .send({ currentPassword: PASSWORD, password: 'another-horse-battery-7' });
    expect(changed.status).toBe(200);
    expect((await withKey(ending).get('/api/jobs')).status).toBe(401);
    expect((await withKey(staying).get('/api/jobs')).status).toBe(200);
  });

  it('holds the monthly spending cap exactly under 20 parallel submissions, and gives refunds back to it', async () => {
    const owner = await signIn(t, uniqueName('cap'));
    await grantCredits(t, owner.username, 100);
    const { key, secret } = await makeKey(owner, ['read', 'tools'], { monthlyCap: 5 });
    const spent = async () =>
      ((await owner.agent.get('/api/account/api-keys')).body.content as ApiKeyView[]).find(
        (k) => k.id === key.id,
      )!.spentThisMonth;
    const first = await clone(secret, owner.username);
    expect(first.status).toBe(200);
    const firstJob = first.body.content.job as { _id: string; cost: number };
    expect(firstJob.cost).toBe(1);
    // 20 parallel "Run again" of it (no upload, so no per-user upload slots in the way): 4 fit.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        withKey(secret).post(`/api/jobs/${firstJob._id}/retry`).send({ expectedCost: 1 }),
      ),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.filter((s) => s === 402)).toHaveLength(16);
    for (const res of answers.filter((r) => r.status === 402)) {
      expect(res.body.content).toBe(ApiKeyMessages.capReached(5));
    }
    expect(await balanceOf(owner)).toBe(95);
    expect(await spent()).toBe(5);
    // The owner's own browser is not held by the key's cap.
    const inBrowser = await owner.agent
      .post('/api/generateNoise')
      .field('author', owner.username)
      .field('amount', '1')
      .attach('original', image, 'in.png');
    expect(inBrowser.status).toBe(200);
    expect(await balanceOf(owner)).toBe(94);
    // A cancelled job's refund goes back to the key's month: one more job fits, then no more.
    const cancelled = await withKey(secret).post(`/api/jobs/${firstJob._id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(await spent()).toBe(4);
    expect((await clone(secret, owner.username)).status).toBe(200);
    const over = await clone(secret, owner.username);
    expect(over.status).toBe(402);
    expect(over.body.content).toBe(ApiKeyMessages.capReached(5));
    expect(await spent()).toBe(5);
    expect(await balanceOf(owner)).toBe(94);
  });

  it('reports each key’s jobs and coins per tool and day for the last 30 days, refunds not counted', async () => {
    const owner = await signIn(t, uniqueName('usage'));
    await grantCredits(t, owner.username, 20);
    const first = await makeKey(owner, ['read', 'tools']);
    const second = await makeKey(owner, ['tools']);
    const kept = await clone(first.secret, owner.username);
    const dropped = await clone(first.secret, owner.username);
    expect((await clone(second.secret, owner.username)).status).toBe(200);
    expect(kept.status).toBe(200);
    const dropId = dropped.body.content.job._id as string;
    expect((await owner.agent.post(`/api/jobs/${dropId}/cancel`)).status).toBe(200);
    // The owner's own browser jobs are not any key's.
    await owner.agent
      .post('/api/generateNoise')
      .field('author', owner.username)
      .attach('original', image, 'in.png');
    const res = await owner.agent.get('/api/account/api-keys/usage');
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.content.days).toHaveLength(30);
    expect(res.body.content.days[29]).toBe(today);
    expect(res.body.content.rows).toEqual(
      [
        { day: today, keyId: first.key.id, tool: 'clone', jobs: 2, coins: 1 },
        { day: today, keyId: second.key.id, tool: 'clone', jobs: 1, coins: 1 },
      ].sort((a, b) => a.keyId.localeCompare(b.keyId)),
    );
    // Another user sees none of it, and a key cannot read it.
    const other = await signIn(t, uniqueName('usage2'));
    expect((await other.agent.get('/api/account/api-keys/usage')).body.content.rows).toEqual([]);
    expect((await withKey(first.secret).get('/api/account/api-keys/usage')).status).toBe(403);
  });

  it('counts requests per key: a script over its budget gets 429, its owner’s browser does not', async () => {
    const limited = await startTestApp({ API_KEY_RATE_PER_MINUTE: '3' });
    try {
      const owner = await signIn(limited, uniqueName('rate'));
      const res = await owner.agent.post('/api/account/api-keys').send({ name: 'fast', scopes: ['read'] });
      const secret = res.body.content.secret as string;
      const call = () => request(limited.url).get('/api/jobs').set('Authorization', `Bearer ${secret}`);
      // The budget's minute starts at the key's first request.
      for (let i = 0; i < 3; i++) expect((await call()).status).toBe(200);
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(refused.body.content).toMatch(/^Too many requests with this API key: try again in \d+ s$/);
      expect(refused.body.retryAfterSeconds).toBeGreaterThan(0);
      // The owner's browser session has budgets of its own.
      expect((await owner.agent.get('/api/jobs')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
