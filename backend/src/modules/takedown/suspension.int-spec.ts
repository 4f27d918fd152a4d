import sharp from 'sharp';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { AccountMessages, type JobView, type ReportView, type UserSummary } from '@studio/contracts';
import {
  connectSocket,
  downloadBytes,
  eventually,
  grantCredits,
  PASSWORD,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture } from '../../../test/fixtures';
import { waitForMail } from '../../../test/mailbox';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AuditService } from '../audit/audit.service';

const FORM = {
  category: 'intimate_without_consent',
  reporterRole: 'depicted',
  name: 'Jane Reporter',
  email: 'jane.reporter@example.com',
  explanation: 'This picture shows me without my consent.',
  goodFaith: 'true',
  signature: 'Jane Reporter',
};

/**
 * Suspension after repeated confirmed removals (docs/takedown.md, Suspension), with
 * TAKEDOWN_SUSPEND_AFTER=2: the real app, reports filed on the public API and decided by staff.
 */
describe('takedown: accounts with repeated confirmed removals are suspended', () => {
  let t: TestApp;
  let admin: Client;
  let support: Client;
  let other: Client;
  let owner: Client;
  let keySecret: string;
  let ownerId: string;
  /** What the API key's clones start from (unrelated to the reported pictures). */
  let keyInput: Buffer;
  const adminName = uniqueName('boss');
  /** The owner's outputs of three unrelated pictures: each report removes one. */
  const outputs: { job: JobView; bytes: Buffer }[] = [];
  const reportIds: string[] = [];
  /** The items each of those reports removed. */
  const removedItems: string[][] = [];
  const ownerEmail = () => `${owner.username}@example.com`;

  const login = (username: string) =>
    request(t.url).post('/api/login').send({ username, password: PASSWORD });
  const withKey = (path: string) =>
    request(t.url)
      .post(path)
      .set('Authorization', `Bearer ${keySecret}`)
      .field('author', owner.username)
      .field('amount', '1')
      .attach('original', keyInput, 'in.png');
  const auditText = async () => (await t.app.get(AuditService).latest(200)).map((e) => e.message).join('\n');
  const suspensionOf = async () =>
    (await t.app.get(AccountsRepository).findByUsername(owner.username))!.suspension;

  /** Files a report of output `n` (a JPEG 75 copy) and has the admin remove what it matched. */
  const reportAndRemove = async (n: number): Promise<string> => {
    const copy = await sharp(outputs[n].bytes).jpeg({ quality: 75 }).toBuffer();
    let req = request(t.url).post('/api/reports');
    for (const [key, value] of Object.entries(FORM)) req = req.field(key, value);
    const filed = await req.attach('file', copy, 'copy.jpg');
    expect(filed.status).toBe(201);
    const id = filed.body.content.report.id as string;
    const decided = await admin.agent
      .post(`/api/admin/reports/${id}/decision`)
      .send({ action: 'remove', reason: `Removal number ${n + 1}: shared without consent` });
    expect(decided.status).toBe(200);
    const view = decided.body.content.report as ReportView;
    // The owner's output of that picture and the picture its job kept as input (a clone is a
    // copy of its input): two items removed, one removal decision, counted once.
    expect(view.matches.map((m) => [m.itemId, m.ownerId, m.removed])).toEqual(
      expect.arrayContaining([[outputs[n].job.items[0]._id, ownerId, true]]),
    );
    expect(view.matches.every((m) => m.ownerId === ownerId && m.removed)).toBe(true);
    reportIds.push(id);
    removedItems.push(view.matches.map((m) => m.itemId));
    return id;
  };

  beforeAll(async () => {
    t = await startTestApp({
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
      JOB_WAIT_MS: '60000',
      REPORT_RATE_PER_HOUR: '1000',
      TAKEDOWN_SUSPEND_AFTER: '2',
    });
    admin = await signIn(t, adminName, 'admin-password-1');
    owner = await signIn(t, uniqueName('owner'));
    other = await signIn(t, uniqueName('other'));
    ownerId = (await t.app.get(AccountsRepository).findByUsername(owner.username))!.id;
    const helpName = uniqueName('help');
    await signIn(t, helpName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(helpName))!.id, 'support');
    support = await signIn(t, helpName);
    await grantCredits(t, owner.username, 20);
    for (const name of ['cgi-model-1.jpg', 'cgi-model-3.jpg', 'ai-face.jpg']) {
      const res = await owner.agent
        .post('/api/generateNoise')
        .field('author', owner.username)
        .field('amount', '1')
        .attach('original', await sharp(fixture(name)).png().toBuffer(), 'picture.png');
      expect(res.status).toBe(200);
      const job = res.body.content.job as JobView;
      expect(job.state).toBe('succeeded');
      outputs.push({ job, bytes: await downloadBytes(owner, job.items[0].url) });
    }
    keyInput = await sharp(fixture('cgi-model-22.jpg')).resize(256).png().toBuffer();
    const key = await owner.agent
      .post('/api/account/api-keys')
      .send({ name: 'script', scopes: ['read', 'tools'] });
    expect(key.status).toBe(201);
    keySecret = key.body.content.secret as string;
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  it('the first removal does not suspend; the second does: sessions, sockets, logins and API keys refused, mailed, audited', async () => {
    await reportAndRemove(0);
    expect(await suspensionOf()).toBeUndefined();
    expect((await owner.agent.get('/api/session')).status).toBe(200);
    // The owner appeals the first removal (both its items) while still signed in.
    for (const itemId of removedItems[0]) {
      const appeal = await owner.agent
        .post(`/api/reports/appeals/${encodeURIComponent(itemId)}`)
        .send({ text: 'This face is made up; it is nobody.' });
      expect(appeal.status).toBe(200);
    }
    // The key works before the suspension.
    expect((await withKey('/api/generateNoise')).status).toBe(200);

    const socket: Socket = await connectSocket(t, owner.cookie);
    const socketClosed = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    try {
      const second = await reportAndRemove(1);

      // The session cookie the owner holds is worth nothing at once, and its socket is closed.
      const afterwards = await owner.agent.get('/api/session');
      expect(afterwards.status).toBe(401);
      await socketClosed;
      expect(socket.connected).toBe(false);

      // Logging in again: the right password answers 403 with the reason and the way to appeal.
      const refused = await login(owner.username);
      expect([refused.status, refused.body.content]).toEqual([403, AccountMessages.suspended]);
      expect(refused.body.content).toMatch(/repeated/);
      expect(refused.body.content).toMatch(/appeal/i);
      expect(refused.headers['set-cookie']).toBeUndefined();
      // A wrong password tells nothing about the suspension.
      const wrong = await request(t.url)
        .post('/api/login')
        .send({ username: owner.username, password: 'not-the-password-1' });
      expect(wrong.status).toBe(401);

      // The API key: a tool submission is refused, nothing charged.
      const balance = (await t.app.get(AccountsRepository).findByUsername(owner.username))!.balance;
      const byKey = await withKey('/api/generateNoise');
      expect([byKey.status, byKey.body.content]).toEqual([403, AccountMessages.suspended]);
      const read = await request(t.url).get('/api/jobs').set('Authorization', `Bearer ${keySecret}`);
      expect(read.status).toBe(403);
      expect((await t.app.get(AccountsRepository).findByUsername(owner.username))!.balance).toBe(balance);

      // The record: when, why, by which report.
      expect(await suspensionOf()).toMatchObject({
        reason: 'repeated_removals',
        reportId: second,
        removals: 2,
      });
      const found = await admin.agent.get(`/api/support/users?query=${owner.username}`);
      expect((found.body.content as UserSummary[])[0].suspended).toMatchObject({
        reason: 'repeated_removals',
        reportId: second,
        removals: 2,
      });

      // The statement of reasons for the suspension.
      const mail = await waitForMail(ownerEmail(), /your account is suspended/);
      expect(mail.text).toContain(second);
      expect(mail.text).toContain('2 valid reports');
      expect(mail.text).toContain('Removal number 2: shared without consent');
      expect(mail.text).toMatch(/reply to this mail/i);

      await eventually(async () =>
        expect(await auditText()).toContain(
          `report ${second}: account ${owner.username} suspended (repeated_removals: 2 confirmed removals); 1 session ended`,
        ),
      );
    } finally {
      socket.close();
    }
  });

  it('a reversed appeal that brings the owner below the count lifts the suspension', async () => {
    const [first] = reportIds;
    const reverse = (itemId: string) =>
      support.agent
        .post(`/api/admin/reports/${first}/appeals/${encodeURIComponent(itemId)}/decision`)
        .send({ outcome: 'reversed', reason: 'The face is generated, not the reporter' });
    const [output, ...inputs] = [
      outputs[0].job.items[0]._id,
      ...removedItems[0].filter((id) => id !== outputs[0].job.items[0]._id),
    ];
    expect(inputs.length).toBeGreaterThan(0);
    // One of the report's two removals reversed: the other stands, the report still counts.
    expect((await reverse(output)).status).toBe(200);
    expect(await suspensionOf()).toBeDefined();
    expect((await login(owner.username)).status).toBe(403);
    for (const itemId of inputs) expect((await reverse(itemId)).status).toBe(200);
    expect(await suspensionOf()).toBeUndefined();
    const back = await login(owner.username);
    expect(back.status).toBe(200);
    expect((await withKey('/api/generateNoise')).status).toBe(200);
    await waitForMail(ownerEmail(), /no longer suspended/);
    await eventually(async () =>
      expect(await auditText()).toContain(
        `report ${first}: a reversed appeal brought ${owner.username} below the suspension count; suspension lifted`,
      ),
    );
  });

  it('a further removal suspends again; an admin lifts it by hand (audited); support and users get 403', async () => {
    const third = await reportAndRemove(2);
    expect(await suspensionOf()).toMatchObject({ reportId: third, removals: 2 });
    expect((await login(owner.username)).status).toBe(403);

    const lift = (client: Client) => client.agent.delete(`/api/admin/users/${owner.username}/suspension`);
    expect((await lift(support)).status).toBe(403);
    expect((await lift(other)).status).toBe(403);
    expect((await request(t.url).delete(`/api/admin/users/${owner.username}/suspension`)).status).toBe(401);
    expect(await suspensionOf()).toBeDefined();

    const lifted = await lift(admin);
    expect(lifted.status).toBe(200);
    expect((lifted.body.content as UserSummary).suspended).toBeUndefined();
    expect(await suspensionOf()).toBeUndefined();
    expect((await login(owner.username)).status).toBe(200);
    const again = await lift(admin);
    expect([again.status, again.body.content]).toEqual([409, AccountMessages.notSuspended]);
    expect((await admin.agent.delete('/api/admin/users/nobody-by-that-name/suspension')).status).toBe(404);
    await eventually(async () =>
      expect(await auditText()).toContain(`${adminName} lifted the suspension of ${owner.username}`),
    );
  });
});
