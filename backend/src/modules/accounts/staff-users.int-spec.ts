import request from 'supertest';
import { Messages, RoleMessages, type UserSummary } from '@studio/contracts';
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

  it("lets admins give and take the support role, audited; never their own role or an admin's", async () => {
    const target = await signIn(t, uniqueName('tobe'));
    const setRole = (client: typeof admin, username: string, role: unknown) =>
      client.agent.put(`/api/admin/users/${username}/role`).send({ role });

    expect((await setRole(support, target.username, 'support')).status).toBe(403);
    expect((await setRole(target, target.username, 'support')).status).toBe(403);
    const made = await setRole(admin, target.username, 'support');
    expect(made.status).toBe(200);
    expect(made.body.content).toMatchObject({ username: target.username, role: 'support' });
    // With a fresh session the new role opens the support tools.
    const asSupport = await signIn(t, target.username);
    expect((await asSupport.agent.get('/api/support/users').query({ query: 'x' })).status).toBe(200);

    const own = await setRole(admin, adminName, 'user');
    expect(own.status).toBe(403);
    expect(own.body.content).toBe(RoleMessages.ownRole);
    const second = await signIn(t, uniqueName('boss'));
    const repo = t.app.get(AccountsRepository);
    await repo.setRole((await repo.findByUsername(second.username))!.id, 'admin');
    const demote = await setRole(admin, second.username, 'user');
    expect(demote.status).toBe(403);
    expect(demote.body.content).toBe(RoleMessages.adminRole);
    expect((await repo.findByUsername(second.username))!.role).toBe('admin');
    const promote = await setRole(admin, target.username, 'admin');
    expect(promote.status).toBe(400);
    expect(promote.body.content).toBe(RoleMessages.unknownRole);
    expect((await setRole(admin, 'nobody-here', 'support')).status).toBe(404);

    expect((await setRole(admin, target.username, 'user')).body.content.role).toBe('user');
    expect((await repo.findByUsername(target.username))!.role).toBe('user');
    // The demoted member's session, still open or already ended, gives nothing at once.
    const adminAccount = (await repo.findByUsername(adminName))!;
    const before = (await repo.balanceOf(adminAccount.id)).balance;
    const late = await asSupport.agent
      .post('/api/support/reimburse')
      .send({ username: adminName, amount: 5, reason: 'after the demotion' });
    expect([401, 403]).toContain(late.status);
    expect((await repo.balanceOf(adminAccount.id)).balance).toBe(before);
    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(30);
      const lines = log.filter((e) => e.author?.username === adminName).map((e) => e.message);
      expect(lines).toEqual(
        expect.arrayContaining([
          `Changed the role of ${target.username} from user to support.`,
          `Changed the role of ${target.username} from support to user.`,
        ]),
      );
    });
  });
});

describe('the configured admin at boot', () => {
  it('never promotes a self-registered account named ADMIN_USERNAME, nor lets one register', async () => {
    const name = uniqueName('squat');
    // Someone registers the name while the server has no admin of that name configured.
    const first = await startTestApp();
    let second: Awaited<ReturnType<typeof startTestApp>> | undefined;
    try {
      await signIn(first, name);
      // The server restarts on the same database with ADMIN_USERNAME set to that name.
      second = await startTestApp({
        MONGODB_URI: first.config.MONGODB_URI,
        ADMIN_USERNAME: name,
        ADMIN_PASSWORD: 'admin-password-1',
      });
      const squatter = await signIn(second, name);
      expect((await squatter.agent.get('/api/session')).body.content.role).toBe('user');
      expect((await squatter.agent.get('/api/support/users')).status).toBe(403);
      const repo = second.app.get(AccountsRepository);
      expect((await repo.findByUsername(name))!.role).toBe('user');

      // While the configured name has no account, registering it is refused.
      const reserved = uniqueName('root');
      const third = await startTestApp({ ADMIN_USERNAME: reserved });
      try {
        const res = await request(third.url)
          .post('/api/register')
          .send({
            email: `${reserved}@example.com`,
            username: reserved.toUpperCase(),
            password: 'password-123',
            adult: true,
          });
        expect(res.status).toBe(409);
        expect(res.body.content).toBe(Messages.accountExists);
      } finally {
        await third.close();
      }
    } finally {
      await second?.close().catch(() => undefined);
      await first.close();
    }
  });

  it('creates the configured admin and marks it as seeded', async () => {
    const name = uniqueName('root');
    const app = await startTestApp({ ADMIN_USERNAME: name, ADMIN_PASSWORD: 'admin-password-1' });
    try {
      const account = await app.app.get(AccountsRepository).findByUsername(name);
      expect(account).toMatchObject({ role: 'admin', seededAdmin: true });
    } finally {
      await app.close();
    }
  });
});
