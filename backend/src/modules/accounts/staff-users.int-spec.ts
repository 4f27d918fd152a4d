import request from 'supertest';
import type { UserSummary } from '@studio/contracts';
import { eventually, grantCredits, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AuditService } from '../audit/audit.service';
import { AccountsRepository } from './accounts.repository';

describe('staff tools: user lookup, badges and the queue board', () => {
  let t: TestApp;
  const adminName = uniqueName('root');
  let admin: Awaited<ReturnType<typeof signIn>>;
  let support: Awaited<ReturnType<typeof signIn>>;
  let user: Awaited<ReturnType<typeof signIn>>;
  const prefix = `zed${Date.now().toString(36)}`;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    admin = await signIn(t, adminName, 'admin-password-1');
    support = await signIn(t, uniqueName('helper'));
    const repo = t.app.get(AccountsRepository);
    await repo.setRole((await repo.findByUsername(support.username))!.id, 'support');
    user = await signIn(t, `${prefix}Alpha`);
    await signIn(t, `${prefix}beta`);
    await grantCredits(t, user.username, 7);
  });

  afterAll(async () => {
    await t?.close();
  });

  it('finds users by the start of their name, with balance and badges (support and admins)', async () => {
    for (const staff of [support, admin]) {
      const res = await staff.agent.get('/api/support/users').query({ query: prefix.toUpperCase() });
      expect(res.status).toBe(200);
      const found = res.body.content as UserSummary[];
      expect(found.map((u) => u.username)).toEqual([`${prefix}Alpha`, `${prefix}beta`]);
      expect(found[0]).toMatchObject({ role: 'user', verified: false, early: false, balance: 7 });
    }
    expect((await user.agent.get('/api/support/users').query({ query: prefix })).status).toBe(403);
    expect((await request(t.url).get('/api/support/users')).status).toBe(401);
    // A pattern is taken literally.
    const dots = await admin.agent.get('/api/support/users').query({ query: '.*' });
    expect(dots.body.content).toEqual([]);
  });

  it('lets admins set badges, logged with who did it', async () => {
    expect(
      (await support.agent.put(`/api/admin/users/${user.username}/badges`).send({ verified: true })).status,
    ).toBe(403);
    const res = await admin.agent
      .put(`/api/admin/users/${user.username}/badges`)
      .send({ verified: true, early: true });
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ username: user.username, verified: true, early: true });
    const profile = await user.agent.get(`/api/getProfile/${user.username}`);
    expect(profile.body.content).toMatchObject({ verified: true, early: true });
    expect((await admin.agent.put('/api/admin/users/nobody-here/badges').send({ early: true })).status).toBe(
      404,
    );
    expect(
      (await admin.agent.put(`/api/admin/users/${user.username}/badges`).send({ early: 'yes' })).status,
    ).toBe(400);
    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(20);
      expect(
        log.some(
          (e) => e.message.startsWith(`Set badges of ${user.username}`) && e.author?.username === adminName,
        ),
      ).toBe(true);
    });
  });

  it('serves the queue board to admins only', async () => {
    const page = await admin.agent.get('/api/admin/queues');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<!DOCTYPE html>');
    const queues = await admin.agent.get('/api/admin/queues/api/queues');
    expect(queues.status).toBe(200);
    const names = (queues.body.queues as { name: string }[]).map((q) => q.name);
    expect(names).toEqual(expect.arrayContaining(['tool-clone', 'tool-faceSwap', 'domain-events']));
    expect((await support.agent.get('/api/admin/queues')).status).toBe(403);
    expect((await request(t.url).get('/api/admin/queues/api/queues')).status).toBe(401);
  });
});
