import request from 'supertest';
import { Messages } from '@studio/contracts';
import { signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

describe('folders: acting user', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("creates a folder for the session's user, trimmed, listed on the profile", async () => {
    const { agent, username } = await signIn(t);
    const res = await agent
      .post('/api/makeFolder')
      .send({ author: username.toUpperCase(), title: '  Model #1  ' });
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ title: 'Model #1', amount: 0 });
    const profile = await agent.get(`/api/getProfile/${username}`);
    expect(profile.body.content.folders).toEqual([
      { _id: res.body.content._id, title: 'Model #1', amount: 0 },
    ]);
  });

  it('refuses a spoofed author with 403 and writes nothing', async () => {
    const victim = await signIn(t, uniqueName('victim'));
    const attacker = await signIn(t, uniqueName('attacker'));
    const res = await attacker.agent
      .post('/api/makeFolder')
      .send({ author: victim.username, title: 'Mine now' });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: 'error', content: Messages.notYourAccount });
    expect((await victim.agent.get(`/api/getProfile/${victim.username}`)).body.content.folders).toEqual([]);
    expect((await attacker.agent.get(`/api/getProfile/${attacker.username}`)).body.content.folders).toEqual(
      [],
    );
  });

  it('needs a session', async () => {
    const res = await request(t.url).post('/api/makeFolder').send({ author: 'x', title: 'y' });
    expect(res.status).toBe(401);
  });
});
