import request from 'supertest';
import { Messages } from '@studio/contracts';
import { signIn, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

/** The status of each call, in order (429s carry the usual message). */
async function statuses(calls: (() => request.Test)[]): Promise<number[]> {
  const out: number[] = [];
  for (const call of calls) {
    const res = await call();
    if (res.status === 429) expect(res.body.content).toBe(Messages.tooManyRequests);
    out.push(res.status);
  }
  return out;
}

const toolRoutes = [
  'generateNoise',
  'superResolution',
  'faceSwap',
  'inpaintImage',
  'bulkInpaintImage',
  'generateImage',
  'faceSwapVideo',
];

describe('rate budgets per user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({
      JOB_RATE_LIMIT_PER_MINUTE: '4',
      FOLDER_RATE_LIMIT_PER_MINUTE: '2',
      DOWNLOAD_RATE_LIMIT_PER_MINUTE: '2',
      CHECKOUT_RATE_LIMIT_PER_MINUTE: '2',
      PATREON_RATE_LIMIT_PER_MINUTE: '2',
    });
  });
  afterAll(() => t.close());

  it('spends one tool budget across all seven tool endpoints', async () => {
    const user = await signIn(t, uniqueName('tina'));
    // Bad requests (no files) still spend the budget: it is checked before anything is read.
    const seen = await statuses(toolRoutes.map((route) => () => user.agent.post(`/api/${route}`)));
    expect(seen.slice(0, 4).every((s) => s !== 429)).toBe(true);
    expect(seen.slice(4)).toEqual([429, 429, 429]);

    // Another user has a budget of their own; reading one's jobs spends none.
    const other = await signIn(t, uniqueName('uma'));
    expect((await other.agent.post('/api/faceSwap')).status).not.toBe(429);
    expect((await user.agent.get('/api/jobs')).status).toBe(200);
  });

  it('counts every spelling of a path (case, trailing slash, query) against the one budget', async () => {
    const user = await signIn(t, uniqueName('walt'));
    const seen = await statuses(
      ['/api/MAKEFOLDER', '/api/makefolder/', '/api/makeFolder?again=1', '/api/MakeFolder/'].map(
        (path) => () => user.agent.post(path).send({ title: 'Model' }),
      ),
    );
    expect(seen).toEqual([200, 200, 429, 429]);
    const tools = await statuses(
      [
        '/api/GENERATENOISE',
        '/api/generatenoise/',
        '/api/GenerateNoise?x=1',
        '/api/generateNOISE/',
        '/api/generateNoise',
      ].map((path) => () => user.agent.post(path)),
    );
    expect(tools.slice(0, 4)).not.toContain(429);
    expect(tools[4]).toBe(429);
  });

  it('limits folders, downloads, checkouts and Patreon tries, each on its own budget', async () => {
    const user: Client = await signIn(t, uniqueName('vera'));
    const twiceThenRefused = [200, 200, 429];
    const folder = () => user.agent.post('/api/makeFolder').send({ title: 'Model' });
    expect(await statuses([folder, folder, folder])).toEqual(twiceThenRefused);

    const download = () =>
      user.agent.post('/api/downloadContent').send({ url: '/api/content/6650f0c2a1b2c3d4e5f60718.png' });
    const downloads = await statuses([download, download, download]);
    expect(downloads[2]).toBe(429);
    expect(downloads.slice(0, 2)).not.toContain(429);

    const checkout = () =>
      user.agent.post('/api/createCheckoutSession').send({ coin_id: 'x', coin_amount: 1 });
    const portal = () => user.agent.post('/api/createPortalSession').send({});
    const checkouts = await statuses([checkout, portal, checkout]);
    expect(checkouts[2]).toBe(429);
    expect(checkouts.slice(0, 2)).not.toContain(429);

    const patreon = () => user.agent.post('/api/patreonSecret').send({ secret: 'guess' });
    const tries = await statuses([patreon, patreon, patreon]);
    expect(tries[2]).toBe(429);
    expect(tries.slice(0, 2)).not.toContain(429);
  });
});

describe('login limit per client address (TRUST_PROXY)', () => {
  const badLogin = (t: TestApp, forwardedFor: string) => () =>
    request(t.url)
      .post('/api/login')
      .set('X-Forwarded-For', forwardedFor)
      .send({ username: 'someone', password: 'wrong-password' });

  describe('TRUST_PROXY unset', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '3' });
    });
    afterAll(() => t.close());

    it('ignores X-Forwarded-For: a new forged address gets no new budget', async () => {
      const seen = await statuses([
        badLogin(t, '203.0.113.1'),
        badLogin(t, '203.0.113.2'),
        badLogin(t, '203.0.113.3'),
        badLogin(t, '203.0.113.4'),
      ]);
      expect(seen).toEqual([401, 401, 401, 429]);
    });
  });

  describe('TRUST_PROXY=loopback (a proxy on this machine)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '3', TRUST_PROXY: 'loopback' });
    });
    afterAll(() => t.close());

    it("counts each client the proxy names on its own: one client's bad logins lock out only that client", async () => {
      const alice = badLogin(t, '198.51.100.7');
      const bob = badLogin(t, '198.51.100.8');
      expect(await statuses([alice, alice, alice, alice])).toEqual([401, 401, 401, 429]);
      expect(await statuses([bob])).toEqual([401]);
      // What the client itself wrote before the proxy appended its address does not count.
      expect(await statuses([badLogin(t, '10.9.9.9, 198.51.100.7')])).toEqual([429]);
    });
  });
});
