import request from 'supertest';
import { AuditCategory, type LogEntry } from '@studio/contracts';
import { eventually, PASSWORD, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { AuditEntry } from './audit-entry.schema';
import { AuditListener } from './audit.listener';

describe('activity log', () => {
  let t: TestApp;
  const adminName = uniqueName('boss');
  const adminPassword = 'admin-password-1';

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: adminPassword });
  });
  afterAll(() => t.close());

  it('is refused without a session (401) and to non-admins (403)', async () => {
    expect((await request(t.url).get('/api/getlogs')).status).toBe(401);
    const { agent } = await signIn(t);
    const res = await agent.get('/api/getlogs');
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('error');
  });

  it('gives the configured admin the entries, newest first, in the spec shape', async () => {
    const user = await signIn(t, uniqueName('carol'));
    await request(t.url).post('/api/login').send({ username: user.username, password: 'wrong-password' });
    await user.agent.post('/api/logout');
    const admin = await signIn(t, adminName, adminPassword);

    const entries = await eventually(async () => {
      const res = await admin.agent.get('/api/getlogs');
      expect(res.status).toBe(200);
      expect(res.body.message).toBe('success');
      const mine = (res.body.content as LogEntry[]).filter((e) => e.author?.username === user.username);
      expect(mine.map((e) => e.message)).toEqual([
        'Logged out.',
        'Failed login: wrong password.',
        'Logged in.',
        `Registered account ${user.username}.`,
      ]);
      return mine;
    });
    for (const entry of entries) {
      expect(entry.category).toBe(AuditCategory.account);
      expect(new Date(entry.createdOn).toISOString()).toBe(entry.createdOn);
      expect(typeof entry._id).toBe('string');
    }
    expect(entries[1].detail).toMatch(/^From /);
  });

  it('records a delivered event once, however often it is delivered', async () => {
    const listener = t.app.get(AuditListener);
    const username = uniqueName('replay');
    const envelope = {
      id: `evt-${username}`,
      name: 'account.logged_out' as const,
      occurredAt: new Date().toISOString(),
      payload: { userId: '000000000000000000000000', username },
    };
    await listener.onLoggedOut(envelope);
    await listener.onLoggedOut(envelope);
    const admin = await signIn(t, adminName, adminPassword);
    const res = await admin.agent.get('/api/getlogs');
    expect((res.body.content as LogEntry[]).filter((e) => e.author?.username === username)).toHaveLength(1);
  });

  it('has the indexes the log table pages by: _id newest first, per category and per user', async () => {
    const model = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name));
    await model.init(); // autoIndex has finished building
    const keys = (await model.collection.indexes()).map((index) => index.key);
    expect(keys).toEqual(
      expect.arrayContaining([
        { category: 1, _id: -1 },
        { authorKey: 1, _id: -1 },
        { createdOn: -1 },
        { eventId: 1 },
      ]),
    );
  });

  it('makes the configured admin an admin at boot', async () => {
    const res = await request(t.url)
      .post('/api/login')
      .send({ username: adminName, password: adminPassword });
    expect(res.body.content.role).toBe('admin');
    expect(PASSWORD).not.toBe(adminPassword);
  });
});
