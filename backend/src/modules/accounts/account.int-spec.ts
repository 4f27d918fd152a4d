import request from 'supertest';
import { Model, Types } from 'mongoose';
import { getModelToken } from '@nestjs/mongoose';
import { Logger } from '@nestjs/common';
import { AccountMessages, MAILS_PER_ADDRESS_PER_HOUR, Messages } from '@studio/contracts';
import {
  connectSocket,
  eventually,
  grantCredits,
  makeFolder,
  PASSWORD,
  register,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture } from '../../../test/fixtures';
import { linkIn, mailsTo, waitForMail } from '../../../test/mailbox';
import { stripeTestConfig } from '../../../test/stripe';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { unzip } from '../../../test/zip';
import { AuditService } from '../audit/audit.service';
import { AuditEntry } from '../audit/audit-entry.schema';
import { DomainEventBus } from '../events/domain-event-bus';
import { PaymentsPort } from '../billing/payments.port';
import { LedgerEntry } from '../billing/ledger-entry.schema';
import { ContentItem } from '../folders/content-item.schema';
import { FoldersService } from '../folders/folders.service';
import { StoragePort } from '../storage/storage.port';
import { AccountToken } from './account-token.schema';
import { createHash } from 'node:crypto';
import { AccountsRepository } from './accounts.repository';
import { SessionRevoker } from '../auth/session-revoker';

const NEW_PASSWORD = 'quiet-lantern-42';
const emailOf = (username: string) => `${username}@example.com`.toLowerCase();
const checkout = (client: Client) =>
  client.agent.post('/api/createCheckoutSession').send({ coin_id: 'coins-200', coin_amount: 1 });

const binary = (res: request.Request) =>
  res.buffer(true).parse((stream, done) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => done(null, Buffer.concat(chunks)));
  });

describe('account basics (real FerretDB, Redis, mail catcher, stripe-mock)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(stripeTestConfig());
  });
  afterAll(() => t.close());

  const accounts = () => t.app.get(AccountsRepository);

  describe('email verification', () => {
    it('mails a one-time link at registration; checkout is refused (403) until it is opened', async () => {
      const name = uniqueName('vera');
      const client = await signIn(t, name);
      const mail = await waitForMail(emailOf(name), /Verify your email/);
      expect(mail.html).toContain('Verify my email');
      const { url, token } = linkIn(mail, '/verify-email');
      expect(url.startsWith(`${t.url}/verify-email?token=`)).toBe(true);

      const refused = await checkout(client);
      expect(refused.status).toBe(403);
      expect(refused.body.content).toBe(AccountMessages.verifyEmailFirst);
      expect((await client.agent.get('/api/account')).body.content).toMatchObject({
        email: emailOf(name),
        emailVerified: false,
      });

      const verified = await request(t.url).post('/api/email/verify').send({ token });
      expect(verified.status).toBe(200);
      expect(verified.body.content).toBe(AccountMessages.emailVerified);
      expect((await client.agent.get('/api/account')).body.content.emailVerified).toBe(true);
      const allowed = await checkout(client);
      expect(allowed.status).toBe(200);
      expect(allowed.body.content).toMatch(/^https:\/\/checkout\.stripe\.com\//);

      // The link works once; forged and malformed tokens are refused the same way.
      for (const bad of [token, 'A'.repeat(43), 'short', { $ne: null }]) {
        const replay = await request(t.url).post('/api/email/verify').send({ token: bad });
        expect(replay.status).toBe(400);
        expect(replay.body.content).toBe(AccountMessages.badLink);
      }
    });

    it('resends a fresh link (the old one stops working), within the rate budget', async () => {
      const name = uniqueName('resa');
      const client = await signIn(t, name);
      const first = linkIn(await waitForMail(emailOf(name), /Verify your email/), '/verify-email');
      const resent = await client.agent.post('/api/account/verification');
      expect(resent.status).toBe(200);
      expect(resent.body.content).toBe(AccountMessages.verificationSent);
      const second = await eventually(async () => {
        const link = linkIn(await waitForMail(emailOf(name), /Verify your email/), '/verify-email');
        if (link.token === first.token) throw new Error('no second mail yet');
        return link;
      });
      expect((await request(t.url).post('/api/email/verify').send({ token: first.token })).status).toBe(400);
      expect((await request(t.url).post('/api/email/verify').send({ token: second.token })).status).toBe(200);
      expect((await request(t.url).post('/api/account/verification')).status).toBe(401);
    });

    it("spends the per-address 'auth' budget: resends and forgot-password answer 429 once it is empty", async () => {
      const limited = await startTestApp({ AUTH_RATE_LIMIT_PER_MINUTE: '4' });
      try {
        const client = await signIn(limited, uniqueName('lim')); // register + login: 2 of 4
        expect((await client.agent.post('/api/account/verification')).status).toBe(200);
        expect(
          (await request(limited.url).post('/api/password/forgot').send({ email: 'a@example.com' })).status,
        ).toBe(200);
        const resend = await client.agent.post('/api/account/verification');
        expect(resend.status).toBe(429);
        expect(
          (await request(limited.url).post('/api/password/forgot').send({ email: 'a@example.com' })).status,
        ).toBe(429);
      } finally {
        await limited.close();
      }
    });

    it('refuses a link of another purpose, and an expired one', async () => {
      const name = uniqueName('exp');
      await register(t, name);
      const { token } = linkIn(await waitForMail(emailOf(name), /Verify your email/), '/verify-email');
      // A verification token is no reset token.
      const asReset = await request(t.url)
        .post('/api/password/reset')
        .send({ token, password: NEW_PASSWORD });
      expect(asReset.status).toBe(400);
      expect(asReset.body.content).toBe(AccountMessages.badLink);
      // Expired: the stored expiry moved into the past (MongoDB's TTL sweep may lag; the check does not).
      const tokens = t.app.get<Model<AccountToken>>(getModelToken(AccountToken.name));
      const account = (await accounts().findByUsername(name))!;
      await tokens.updateMany(
        { userId: new Types.ObjectId(account.id) },
        { $set: { expiresAt: new Date(Date.now() - 1000) } },
      );
      const expired = await request(t.url).post('/api/email/verify').send({ token });
      expect(expired.status).toBe(400);
      expect((await accounts().findByUsername(name))!.emailVerified).toBe(false);
    });
  });

  describe('no enumeration', () => {
    it('answers a taken email exactly like a fresh registration, and mails the owner instead', async () => {
      const owner = uniqueName('owen');
      await register(t, owner);
      const fresh = await register(t, uniqueName('fresh'));
      const intruder = uniqueName('ivan');
      const taken = await request(t.url)
        .post('/api/register')
        .send({ email: emailOf(owner).toUpperCase(), username: intruder, password: PASSWORD, adult: true });
      expect({ status: taken.status, body: taken.body }).toEqual({ status: fresh.status, body: fresh.body });
      expect(taken.body).toEqual({ message: 'success', content: Messages.registered });
      expect(await accounts().findByUsername(intruder)).toBeNull();
      const warning = await waitForMail(emailOf(owner), /Someone tried to register/);
      expect(warning.text).toContain(owner);
      expect(warning.text).toContain(`${t.url}/forgot-password`);
    });

    it('answers forgot-password the same for known and unknown addresses; only a known one gets a mail', async () => {
      const name = uniqueName('fay');
      await register(t, name);
      const known = await request(t.url)
        .post('/api/password/forgot')
        .send({ email: emailOf(name) });
      const ghost = `${uniqueName('ghost')}@example.com`;
      const unknown = await request(t.url).post('/api/password/forgot').send({ email: ghost });
      expect({ status: unknown.status, body: unknown.body }).toEqual({
        status: known.status,
        body: known.body,
      });
      expect(known.body).toEqual({ message: 'success', content: AccountMessages.resetMailSent });
      await waitForMail(emailOf(name), /Reset your password/);
      const bad = await request(t.url).post('/api/password/forgot').send({ email: 'not-an-address' });
      expect(bad.status).toBe(400);
    });

    it('mails one address at most MAILS_PER_ADDRESS_PER_HOUR times, however many requests ask', async () => {
      const name = uniqueName('flo');
      await register(t, name); // its verification mail is the first of the hour
      const dropped = jest.spyOn(Logger.prototype, 'warn');
      const droppedMails = () =>
        dropped.mock.calls.filter(([message]) => String(message).includes('not sent')).length;
      try {
        const extra = 5;
        const answers = await Promise.all(
          Array.from({ length: MAILS_PER_ADDRESS_PER_HOUR - 1 + extra }, () =>
            request(t.url)
              .post('/api/password/forgot')
              .send({ email: emailOf(name) }),
          ),
        );
        // Every request gets the same answer, capped or not.
        expect(new Set(answers.map((res) => JSON.stringify([res.status, res.body])))).toEqual(
          new Set([JSON.stringify([200, { message: 'success', content: AccountMessages.resetMailSent }])]),
        );
        await eventually(async () => expect(droppedMails()).toBe(extra));
        await eventually(async () =>
          expect(await mailsTo(emailOf(name))).toHaveLength(MAILS_PER_ADDRESS_PER_HOUR),
        );
      } finally {
        dropped.mockRestore();
      }
    });

    it('answers register and forgot-password before anything that depends on the address (the same time)', async () => {
      // Everything an address changes (its lookup; a new account's event) is held back here: the
      // answers must not wait for it, or their time would tell a known address from a fresh one.
      const owner = uniqueName('tim');
      await register(t, owner);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const repo = accounts();
      const bus = t.app.get(DomainEventBus);
      const lookup = jest.spyOn(repo, 'findByEmail').mockImplementation(async (email) => {
        await held;
        return AccountsRepository.prototype.findByEmail.call(repo, email);
      });
      const publish = jest.spyOn(bus, 'publish').mockImplementation(async (...args) => {
        await held;
        return DomainEventBus.prototype.publish.apply(bus, args);
      });
      const answer = (req: request.Test) => req.timeout(10_000).then((res) => res.status);
      try {
        const statuses = await Promise.all([
          answer(
            request(t.url)
              .post('/api/password/forgot')
              .send({ email: emailOf(owner) }),
          ),
          answer(
            request(t.url)
              .post('/api/password/forgot')
              .send({ email: emailOf(uniqueName('nobody')) }),
          ),
          ...[emailOf(uniqueName('fresh')), emailOf(owner)].map((email) =>
            answer(
              request(t.url)
                .post('/api/register')
                .send({ email, username: uniqueName('reg'), password: PASSWORD, adult: true }),
            ),
          ),
        ]);
        expect(statuses).toEqual([200, 200, 200, 200]);
      } finally {
        release();
        lookup.mockRestore();
        publish.mockRestore();
      }
      await waitForMail(emailOf(owner), /Reset your password/);
      await waitForMail(emailOf(owner), /Someone tried to register/);
    });
  });

  describe('password reset', () => {
    it('resets once with a mailed token (30 min, stored hashed); every session and socket ends', async () => {
      const name = uniqueName('rita');
      const client = await signIn(t, name);
      const socket = await connectSocket(t, client.cookie);
      const closed = new Promise((resolve) => socket.on('disconnect', resolve));
      await request(t.url)
        .post('/api/password/forgot')
        .send({ email: emailOf(name) });
      const { token } = linkIn(await waitForMail(emailOf(name), /Reset your password/), '/reset-password');

      // At rest only the hash: the token itself is nowhere in the collection.
      const tokens = t.app.get<Model<AccountToken>>(getModelToken(AccountToken.name));
      const stored = await tokens.find({ purpose: 'resetPassword' }).lean();
      expect(JSON.stringify(stored)).not.toContain(token);
      const owner = (await accounts().findByUsername(name))!;
      const mine = stored.find((row) => String(row.userId) === owner.id)!;
      const ttl = mine.expiresAt.getTime() - Date.now();
      expect(ttl).toBeGreaterThan(29 * 60_000);
      expect(ttl).toBeLessThanOrEqual(30 * 60_000);

      // A guessable password is refused before the link is spent.
      const weak = await request(t.url).post('/api/password/reset').send({ token, password: 'password1' });
      expect(weak.status).toBe(400);
      expect(weak.body.content).toBe(AccountMessages.weakPassword);

      const reset = await request(t.url).post('/api/password/reset').send({ token, password: NEW_PASSWORD });
      expect(reset.status).toBe(200);
      expect(reset.body.content).toBe(AccountMessages.passwordReset);
      await closed;
      expect((await client.agent.get('/api/session')).status).toBe(401);
      const replay = await request(t.url)
        .post('/api/password/reset')
        .send({ token, password: 'another-good-pass-9' });
      expect(replay.status).toBe(400);
      expect(
        (await request(t.url).post('/api/login').send({ username: name, password: PASSWORD })).status,
      ).toBe(401);
      expect(
        (await request(t.url).post('/api/login').send({ username: name, password: NEW_PASSWORD })).status,
      ).toBe(200);
      await waitForMail(emailOf(name), /Your password was changed/);
    });
  });

  describe('password change', () => {
    it('needs the current password and a strong new one; other sessions and sockets end, this one stays', async () => {
      const name = uniqueName('carl');
      const here = await signIn(t, name);
      const there = await signIn(t, name);
      const socket = await connectSocket(t, there.cookie);
      const closed = new Promise((resolve) => socket.on('disconnect', resolve));

      const wrong = await here.agent
        .post('/api/account/password')
        .send({ currentPassword: 'not-the-password', password: NEW_PASSWORD });
      expect(wrong.status).toBe(400);
      expect(wrong.body.content).toBe(AccountMessages.wrongPassword);
      const weak = await here.agent
        .post('/api/account/password')
        .send({ currentPassword: PASSWORD, password: `${name}1` });
      expect(weak.status).toBe(400);
      expect(weak.body.content).toBe(AccountMessages.weakPassword);
      expect((await there.agent.get('/api/session')).status).toBe(200);

      const changed = await here.agent
        .post('/api/account/password')
        .send({ currentPassword: PASSWORD, password: NEW_PASSWORD });
      expect(changed.status).toBe(200);
      await closed;
      expect((await there.agent.get('/api/session')).status).toBe(401);
      expect((await here.agent.get('/api/session')).status).toBe(200);
      expect(
        (await request(t.url).post('/api/login').send({ username: name, password: NEW_PASSWORD })).status,
      ).toBe(200);
      expect(
        (
          await request(t.url)
            .post('/api/account/password')
            .send({ currentPassword: PASSWORD, password: NEW_PASSWORD })
        ).status,
      ).toBe(401);
    });

    it('voids a login that checked the old password but stored its session after the change ended the others (HTTP and socket)', async () => {
      const name = uniqueName('race');
      const owner = await signIn(t, name);
      // Hold one login between its password check and storing its session: the window in which
      // the change's revocation reads the session list without it.
      const revoker = t.app.get(SessionRevoker);
      const original = revoker.remember.bind(revoker);
      let reached!: () => void;
      const atStore = new Promise<void>((resolve) => (reached = resolve));
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const spy = jest.spyOn(revoker, 'remember').mockImplementationOnce(async (userId, sid, store) => {
        reached();
        await held;
        return original(userId, sid, store);
      });
      try {
        const stale = request.agent(t.url);
        const login = stale
          .post('/api/login')
          .send({ username: name, password: PASSWORD })
          .then((r) => r);
        await atStore;
        const changed = await owner.agent
          .post('/api/account/password')
          .send({ currentPassword: PASSWORD, password: NEW_PASSWORD });
        expect(changed.status).toBe(200);
        release();
        const answer = await login;
        expect(answer.status).toBe(200); // it did check a password that was right at the time
        const cookie = (answer.headers['set-cookie'] as unknown as string[])
          .map((c) => c.split(';')[0])
          .join('; ');
        expect((await stale.get('/api/session')).status).toBe(401);
        await expect(connectSocket(t, cookie)).rejects.toThrow(Messages.needLogin);
        expect((await owner.agent.get('/api/session')).status).toBe(200);
      } finally {
        spy.mockRestore();
      }
    });
  });

  describe('sessions', () => {
    it("lists the caller's sessions with device and last use; ends one, or all others; not another user's", async () => {
      const name = uniqueName('sam');
      const desktop = await signIn(t, name);
      const phone = request.agent(t.url);
      await phone
        .post('/api/login')
        .set(
          'User-Agent',
          'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
        )
        .send({ username: name, password: PASSWORD });
      const third = await signIn(t, name);

      const list = (await desktop.agent.get('/api/account/sessions')).body.content as {
        id: string;
        device: string;
        current: boolean;
        lastUsedAt: string;
      }[];
      expect(list).toHaveLength(3);
      expect(list[0]!.current).toBe(true);
      expect(list.filter((s) => s.current)).toHaveLength(1);
      const iphone = list.find((s) => s.device === 'Safari 17 on iOS');
      expect(iphone).toBeDefined();
      expect(Date.parse(iphone!.lastUsedAt)).toBeLessThanOrEqual(Date.now());

      // Another user cannot end these sessions by their handles.
      const stranger = await signIn(t);
      expect((await stranger.agent.delete(`/api/account/sessions/${iphone!.id}`)).status).toBe(404);
      expect((await phone.get('/api/session')).status).toBe(200);

      expect((await desktop.agent.delete(`/api/account/sessions/${iphone!.id}`)).status).toBe(200);
      expect((await phone.get('/api/session')).status).toBe(401);
      expect((await third.agent.get('/api/session')).status).toBe(200);

      expect((await desktop.agent.post('/api/account/sessions/logout-others')).status).toBe(200);
      expect((await third.agent.get('/api/session')).status).toBe(401);
      const left = (await desktop.agent.get('/api/account/sessions')).body.content as unknown[];
      expect(left).toHaveLength(1);
    });
  });

  describe('reserved names', () => {
    it("refuses the studio's own names, their look-alikes and names containing them at registration, and keeps ordinary names", async () => {
      const tryName = (username: string) =>
        request(t.url)
          .post('/api/register')
          .send({ email: `${uniqueName('r')}@example.com`, username, password: PASSWORD, adult: true });
      for (const username of [
        'stripe',
        'studio',
        'Admin.',
        'ADMIN',
        'ad_min',
        'adm1n',
        'support',
        '5upport',
        'System',
        'root',
        'str1pe',
        'admin-',
        'Studio_',
        // issue 52: staff-looking names that registered before (a reserved word inside the name)
        'studio-support',
        'stripe-billing',
        'supportteam',
        'admin1',
        'admins',
        'the.admin',
        'sysadmin',
        'aclmin',
      ]) {
        const res = await tryName(username);
        expect([username, res.status, res.body.content]).toEqual([
          username,
          400,
          Messages.usernameReservedName,
        ]);
        expect(await accounts().findByUsername(username)).toBeNull();
      }
      for (const username of [uniqueName('badminton'), uniqueName('pinstripe'), uniqueName('mystudio')]) {
        expect([username, (await tryName(username)).status]).toEqual([username, 200]);
      }
    });
  });

  describe('export and delete', () => {
    it("exports the caller's items, credit history and jobs as a zip", async () => {
      const client = await signIn(t);
      await grantCredits(t, client.username, 25);
      const folderId = await makeFolder(client, '=cmd|/C calc, "my" ../folder');
      const account = (await accounts().findByUsername(client.username))!;
      const user = { id: account.id, username: account.username, role: account.role };
      const image = fixture('ai-face.jpg');
      const item = await t.app.get(FoldersService).addItem(user, folderId, {
        data: image,
        kind: 'image',
        contentType: 'image/jpeg',
      });

      const res = await binary(client.agent.get('/api/account/export'));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/zip');
      expect(res.headers['content-disposition']).toContain(`studio-export-${client.username}.zip`);
      const files = await unzip(res.body as Buffer);
      const names = [...files.keys()];
      expect(names).toEqual(expect.arrayContaining(['account.json', 'credit-history.csv', 'jobs.csv']));
      const itemPath = names.find((n) => n.endsWith(`${item._id}.jpg`))!;
      expect(itemPath).toMatch(/^items\/_cmd_C calc_ _my_ __folder-[a-f0-9]{6}\//);
      expect(files.get(itemPath)!.equals(image)).toBe(true);
      expect(JSON.parse(files.get('account.json')!.toString())).toMatchObject({
        username: client.username,
        balance: 25,
      });
      const csv = files.get('credit-history.csv')!.toString().split('\r\n');
      expect(csv[0]).toBe('date,kind,amount,balance_after,reason,tool,job_id,by');
      expect(csv[1]).toMatch(/,grant,25,25,test grant,/);
      expect((await request(t.url).get('/api/account/export')).status).toBe(401);
    });

    it('refuses an export asked from another site (an <img> on a sibling port) before it uses up the owner’s exports', async () => {
      const client = await signIn(t);
      // What a browser sends for <img src> or a link on another port or subdomain of the host.
      for (const site of ['same-site', 'cross-site'] as const) {
        for (let i = 0; i < 6; i += 1) {
          const res = await client.agent
            .get('/api/account/export')
            .set('Sec-Fetch-Site', site)
            .set('Sec-Fetch-Dest', 'image');
          expect([site, res.status, res.body]).toEqual([
            site,
            403,
            { message: 'error', content: Messages.forbidden },
          ]);
        }
      }
      // The owner's own page (the Export button's link) still gets the zip: nothing was used up.
      const own = await binary(
        client.agent
          .get('/api/account/export')
          .set('Sec-Fetch-Site', 'same-origin')
          .set('Sec-Fetch-Dest', 'document'),
      );
      expect(own.status).toBe(200);
      expect(own.headers['content-type']).toBe('application/zip');
    });

    it('deletes with the password: files through storage, ledger kept anonymised, Stripe customer gone, sessions and sockets end', async () => {
      const client = await signIn(t);
      const other = await signIn(t);
      const socket = await connectSocket(t, client.cookie);
      const closed = new Promise((resolve) => socket.on('disconnect', resolve));
      await grantCredits(t, client.username, 10);
      const account = (await accounts().findByUsername(client.username))!;
      await accounts().setStripeCustomer(account.id, 'cus_delete_me');
      const folderId = await makeFolder(client, 'to go');
      const user = { id: account.id, username: account.username, role: account.role };
      await t.app.get(FoldersService).addItem(user, folderId, {
        data: fixture('ai-face.jpg'),
        kind: 'image',
        contentType: 'image/jpeg',
      });
      const items = t.app.get<Model<ContentItem>>(getModelToken(ContentItem.name));
      const [{ storageKey }] = await items.find({ owner: new Types.ObjectId(account.id) }).lean();
      const storage = t.app.get(StoragePort);
      expect(await storage.exists(storageKey!)).toBe(true);
      const deleteCustomer = jest.spyOn(t.app.get(PaymentsPort), 'deleteCustomer');

      const wrong = await client.agent.delete('/api/account').send({ password: 'not-the-password' });
      expect(wrong.status).toBe(400);
      expect(wrong.body.content).toBe(AccountMessages.wrongPassword);
      expect(await accounts().findByUsername(client.username)).not.toBeNull();
      // Another user's session deletes only its own account, never this one.
      expect((await other.agent.delete('/api/account').send({ password: 'not-the-password' })).status).toBe(
        400,
      );

      const deleted = await client.agent.delete('/api/account').send({ password: PASSWORD });
      expect(deleted.status).toBe(200);
      expect(deleted.body.content).toBe(AccountMessages.accountDeleted);
      await closed;
      expect(deleteCustomer).toHaveBeenCalledWith('cus_delete_me');
      expect(await accounts().findByUsername(client.username)).toBeNull();
      expect(await storage.exists(storageKey!)).toBe(false);
      expect(await items.countDocuments({ owner: new Types.ObjectId(account.id) })).toBe(0);
      expect((await client.agent.get('/api/session')).status).toBe(401);
      expect((await client.agent.get('/api/account/export')).status).toBe(401);
      await expect(connectSocket(t, client.cookie)).rejects.toBeDefined();
      expect(
        (await request(t.url).post('/api/login').send({ username: client.username, password: PASSWORD }))
          .status,
      ).toBe(401);

      const ledger = t.app.get<Model<LedgerEntry>>(getModelToken(LedgerEntry.name));
      const entries = await ledger.find({ userId: new Types.ObjectId(account.id) }).lean();
      expect(entries.length).toBeGreaterThan(0);
      // One pseudonym on every entry, under the reserved prefix, and not derived from the id
      // (it was sha256(id)[:12], which anyone knowing the id could recompute).
      const pseudonym = entries[0].username;
      expect(pseudonym).toMatch(/^deleted-[0-9a-f]{16}$/);
      expect(entries.map((e) => e.username)).toEqual(entries.map(() => pseudonym));
      const sha = createHash('sha256').update(account.id).digest('hex');
      expect(sha).not.toContain(pseudonym.slice('deleted-'.length, 'deleted-'.length + 12));
      expect(entries.reduce((sum, e) => sum + e.amount, 0)).toBe(10);
      // The audit log keeps the id and the pseudonym: the deletion line and every earlier line
      // the account wrote; its name is nowhere in them.
      await eventually(async () => {
        const log = await t.app.get(AuditService).page({ user: pseudonym });
        expect(JSON.stringify(log)).toContain('Deleted their account.');
      });
      const audit = t.app.get<Model<AuditEntry>>(getModelToken(AuditEntry.name));
      const lines = await audit.find({ 'author.userId': account.id }).lean();
      expect(lines.length).toBeGreaterThan(1);
      const shown = lines.map(({ author, message, detail }) => ({ author, message, detail }));
      expect(JSON.stringify(shown)).not.toContain(client.username);
      expect(shown.map((line) => line.message)).toContain(`Registered account ${pseudonym}.`);
      expect(lines.map((line) => line.author?.username)).toEqual(lines.map(() => pseudonym));
      // Nobody can take the pseudonym (or any deleted- name) to receive what was meant for it.
      const taken = await request(t.url)
        .post('/api/register')
        .send({
          email: `${uniqueName('x')}@example.com`,
          username: pseudonym,
          password: PASSWORD,
          adult: true,
        });
      expect(taken.status).toBe(400);
      expect(taken.body.content).toBe(Messages.usernameReserved);
    });
  });
});
