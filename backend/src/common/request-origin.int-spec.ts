import { Messages } from '@studio/contracts';
import { signIn, uniqueName, type Client } from '../../test/clients';
import { startTestApp, type TestApp } from '../../test/test-app';
import { AccountsRepository } from '../modules/accounts/accounts.repository';

/**
 * Issue 25 point 1: a page on another port (or a sibling subdomain) of the same site rides on the
 * SameSite=Lax cookie. Every state-changing request is refused unless it comes from our own pages,
 * and bodies are JSON unless the route takes files. The browser half is in
 * frontend/e2e/cross-site.e2e-spec.ts.
 */
describe('writes only from our own pages', () => {
  let t: TestApp;
  let user: Client;
  let support: Client;
  const evil = 'http://127.0.0.1:1'; // another port of the same host

  beforeAll(async () => {
    t = await startTestApp();
    user = await signIn(t, uniqueName('vic'));
    const repo = t.app.get(AccountsRepository);
    support = await signIn(t, uniqueName('help'));
    await repo.setRole((await repo.findByUsername(support.username))!.id, 'support');
    support = await signIn(t, support.username); // roles are read with the session
  });
  afterAll(() => t.close());

  const folders = async () =>
    (await user.agent.get(`/api/getProfile/${user.username}`)).body.content.folders as unknown[];
  const balance = async (username: string) => {
    const repo = t.app.get(AccountsRepository);
    return (await repo.balanceOf((await repo.findByUsername(username))!.id)).balance;
  };

  it('refuses a write a same-site page sent (Sec-Fetch-Site or a foreign Origin), before anything changes', async () => {
    const before = (await folders()).length;
    const sameSite = await user.agent
      .post('/api/makeFolder')
      .set('Sec-Fetch-Site', 'same-site')
      .set('Origin', evil)
      .send({ title: 'forged' });
    expect(sameSite.status).toBe(403);
    expect(sameSite.body.content).toBe(Messages.crossSiteRequest);
    // A browser without Fetch Metadata: judged by its Origin.
    const foreignOrigin = await user.agent
      .post('/api/makeFolder')
      .set('Origin', evil)
      .send({ title: 'forged' });
    expect(foreignOrigin.status).toBe(403);
    const nullOrigin = await user.agent
      .post('/api/makeFolder')
      .set('Origin', 'null')
      .send({ title: 'forged' });
    expect(nullOrigin.status).toBe(403);
    // Multipart to a tool: refused before its body is read, so nothing is queued or charged.
    const tool = await user.agent
      .post('/api/generateNoise')
      .set('Sec-Fetch-Site', 'cross-site')
      .attach('Clone0', Buffer.from('not read'), 'a.png');
    expect(tool.status).toBe(403);
    expect((await folders()).length).toBe(before);

    // Our own page, and clients that are not browsers, still work.
    const own = await user.agent
      .post('/api/makeFolder')
      .set('Sec-Fetch-Site', 'same-origin')
      .set('Origin', t.url)
      .send({ title: 'mine' });
    expect(own.status).toBe(200);
    expect((await user.agent.post('/api/makeFolder').send({ title: 'script' })).status).toBe(200);
    expect((await folders()).length).toBe(before + 2);
  });

  it('refuses form-encoded and text bodies where a route takes no files (415), so support credits nobody', async () => {
    const victim = await signIn(t, uniqueName('mal'));
    const form = await support.agent
      .post('/api/support/reimburse')
      .type('form')
      .send(`username=${victim.username}&amount=50&reason=gift`);
    expect(form.status).toBe(415);
    expect(form.body.content).toBe(Messages.jsonBodyRequired);
    const text = await support.agent
      .post('/api/support/reimburse')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ username: victim.username, amount: 50, reason: 'gift' }));
    expect(text.status).toBe(415);
    // Multipart only where a route takes files.
    const multipart = await support.agent
      .post('/api/support/reimburse')
      .field('username', victim.username)
      .field('amount', '50')
      .field('reason', 'gift');
    expect(multipart.status).toBe(415);
    expect(await balance(victim.username)).toBe(0);

    const json = await support.agent
      .post('/api/support/reimburse')
      .send({ username: victim.username, amount: 50, reason: 'outage' });
    expect(json.status).toBe(200);
    expect(await balance(victim.username)).toBe(50);
  });
});
