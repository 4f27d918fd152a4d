import request from 'supertest';
import { Messages } from '@studio/contracts';
import { PASSWORD, register, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from './accounts.repository';
import { PasswordHasher } from './password-hasher';

describe('accounts (real FerretDB and Redis)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('registers an account, then refuses the same name in any letter case with 409', async () => {
    const name = uniqueName('Dup');
    const first = await register(t, name);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message: 'success', content: Messages.registered });

    const again = await request(t.url)
      .post('/api/register')
      .send({
        email: `other-${name}@example.com`,
        username: name.toLowerCase(),
        password: PASSWORD,
        adult: true,
      });
    expect(again.status).toBe(409);
    expect(again.body.content).toBe(Messages.accountExists);
  });

  it('makes no second account with the same email (and answers as if it had: no enumeration)', async () => {
    const name = uniqueName();
    await register(t, name);
    const second = uniqueName();
    const res = await request(t.url)
      .post('/api/register')
      .send({
        email: `${name.toUpperCase()}@EXAMPLE.com`,
        username: second,
        password: PASSWORD,
        adult: true,
      });
    expect(res.status).toBe(200);
    expect(await t.app.get(AccountsRepository).findByUsername(second)).toBeNull();
  });

  it('requires the 18+ confirmation', async () => {
    const base = { email: 'kid@example.com', username: uniqueName(), password: PASSWORD };
    for (const adult of [false, undefined, 'yes']) {
      const res = await request(t.url)
        .post('/api/register')
        .send({ ...base, adult });
      expect(res.status).toBe(400);
      expect(res.body.content).toBe(Messages.mustBeAdult);
    }
  });

  it('validates user names', async () => {
    const cases: Array<[string, string]> = [
      ['ab', Messages.usernameLength],
      ['x'.repeat(33), Messages.usernameLength],
      ['has space', Messages.usernameCharacters],
      ['../etc', Messages.usernameCharacters],
    ];
    for (const [username, message] of cases) {
      const res = await request(t.url)
        .post('/api/register')
        .send({ email: 'v@example.com', username, password: PASSWORD, adult: true });
      expect({ username, status: res.status, content: res.body.content }).toEqual({
        username,
        status: 400,
        content: message,
      });
    }
  });

  it('answers a 100,000-character user name with 400 at once (the reserved-name check once took hours on it)', async () => {
    // Every validator runs, the length rule's failure notwithstanding: the reserved-name check
    // must not take longer for a longer name. Just under the JSON body limit (100 kB).
    for (const username of ['mod'.repeat(33_333), 'a'.repeat(100_000)]) {
      const res = await request(t.url)
        .post('/api/register')
        .send({ email: 'long@example.com', username, password: PASSWORD, adult: true });
      expect([res.status, res.body.content]).toEqual([400, Messages.usernameLength]);
    }
    // The app still answers.
    expect((await request(t.url).get('/api/health/live')).status).toBe(200);
  });

  it('logs in with the right password only, with the error text in content', async () => {
    const name = uniqueName();
    await register(t, name);

    const wrong = await request(t.url)
      .post('/api/login')
      .send({ username: name, password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ message: 'error', content: Messages.wrongCredentials });
    expect(wrong.headers['set-cookie']).toBeUndefined();

    const unknown = await request(t.url)
      .post('/api/login')
      .send({ username: uniqueName('ghost'), password: PASSWORD });
    expect(unknown.status).toBe(401);
    expect(unknown.body.content).toBe(Messages.wrongCredentials);

    const good = await request(t.url)
      .post('/api/login')
      .send({ username: name.toUpperCase(), password: PASSWORD });
    expect(good.status).toBe(200);
    expect(good.body.content).toEqual({ username: name, verified: false, role: 'user' });
    const cookie = (good.headers['set-cookie'] as unknown as string[])[0];
    expect(cookie).toMatch(/^studio\.sid=/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
  });

  it('redoes a hash made at another scrypt cost at the next good login, and only then', async () => {
    const name = uniqueName();
    await register(t, name);
    const accounts = t.app.get(AccountsRepository);
    const account = (await accounts.findByUsername(name))!;
    expect(account.passwordHash).toMatch(/^scrypt\$10\$8\$1\$/);
    // As if the account had registered when the configured cost was 2^11.
    const older = await new PasswordHasher(11).hash(PASSWORD);
    await accounts.replacePasswordHash(account.id, account.passwordHash, older);

    const wrong = await request(t.url)
      .post('/api/login')
      .send({ username: name, password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect((await accounts.findByUsername(name))!.passwordHash).toBe(older);

    const good = await request(t.url).post('/api/login').send({ username: name, password: PASSWORD });
    expect(good.status).toBe(200);
    const rehashed = (await accounts.findByUsername(name))!.passwordHash;
    expect(rehashed).toMatch(/^scrypt\$10\$8\$1\$/);
    expect(rehashed).not.toBe(older);

    const again = await request(t.url).post('/api/login').send({ username: name, password: PASSWORD });
    expect(again.status).toBe(200);
    expect((await accounts.findByUsername(name))!.passwordHash).toBe(rehashed);
  });

  it('gives a new session id at login (no session fixation)', async () => {
    const { agent, cookie } = await signIn(t);
    const second = await agent
      .post('/api/login')
      .send({ username: (await agent.get('/api/session')).body.content.username, password: PASSWORD });
    const next = (second.headers['set-cookie'] as unknown as string[])[0].split(';')[0];
    expect(next).not.toEqual(cookie);
  });

  it('shows the owner everything and others only name and badges', async () => {
    const alice = await signIn(t, uniqueName('alice'));
    const bob = await signIn(t, uniqueName('bob'));

    const own = await alice.agent.get(`/api/getProfile/${alice.username}`);
    expect(own.status).toBe(200);
    expect(own.body.content).toEqual({
      username: alice.username,
      verified: false,
      early: false,
      own: true,
      role: 'user',
      balance: 0,
      folders: [],
    });

    const other = await bob.agent.get(`/api/getProfile/${alice.username}`);
    expect(other.status).toBe(200);
    expect(other.body.content).toEqual({
      username: alice.username,
      verified: false,
      early: false,
      own: false,
    });

    const missing = await bob.agent.get(`/api/getProfile/${uniqueName('nobody')}`);
    expect(missing.status).toBe(404);
  });

  it('needs a session for profiles and ends it on logout', async () => {
    const anonymous = await request(t.url).get('/api/getProfile/anyone');
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.content).toBe(Messages.needLogin);

    const { agent, username } = await signIn(t);
    const session = await agent.get('/api/session');
    expect(session.body.content).toMatchObject({ username, balance: 0, role: 'user' });

    expect((await agent.post('/api/logout')).status).toBe(200);
    expect((await agent.get('/api/session')).status).toBe(401);
    expect((await agent.get(`/api/getProfile/${username}`)).status).toBe(401);
  });

  it('does not trust a forged cookie', async () => {
    const res = await request(t.url).get('/api/session').set('Cookie', 'studio.sid=s%3Aforged.signature');
    expect(res.status).toBe(401);
  });
});

describe('rate limits on login and register', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '3' });
  });
  afterAll(() => t.close());

  it('answers 429 after the configured number of attempts per minute', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const res = await request(t.url)
        .post('/api/login')
        .send({ username: 'someone', password: 'wrong-password' });
      statuses.push(res.status);
      if (res.status === 429) expect(res.body.content).toBe(Messages.tooManyRequests);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});
