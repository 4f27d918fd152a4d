import {
  CREDIT_APPROVAL_THRESHOLD,
  CreditMessages,
  STAFF_CREDIT_LIMITS,
  plural,
  type CreditApproval,
} from '@studio/contracts';
import {
  eventually,
  grantCredits,
  signIn,
  spendOnTool,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AuditService } from '../audit/audit.service';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { CreditApproval as CreditApprovalRow } from './credit-approval.schema';

/**
 * Issue 13 point 4: staff never credit themselves; what they give is capped per call and per UTC
 * day by role, atomically; admin grants above the threshold wait for a second admin and are
 * credited once.
 */
describe('staff credit limits, self-credit and approvals', () => {
  let t: TestApp;
  const adminName = uniqueName('boss');
  let admin: Client;
  let secondAdmin: Client;
  let support: Client;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    admin = await signIn(t, adminName, 'admin-password-1');
    const repo = t.app.get(AccountsRepository);
    const promote = async (client: Client, role: 'admin' | 'support') =>
      repo.setRole((await repo.findByUsername(client.username))!.id, role);
    support = await signIn(t, uniqueName('help'));
    await promote(support, 'support');
    secondAdmin = await signIn(t, uniqueName('boss2'));
    await promote(secondAdmin, 'admin');
    // Roles are read with the session: sign in again after the change.
    support = await signIn(t, support.username);
    secondAdmin = await signIn(t, secondAdmin.username);
  });
  afterAll(() => t.close());

  const balance = async (username: string) => {
    const repo = t.app.get(AccountsRepository);
    return (await repo.balanceOf((await repo.findByUsername(username))!.id)).balance;
  };
  const reimburse = (client: Client, username: string, amount: number, requestId?: string) =>
    client.agent
      .post('/api/support/reimburse')
      .send({ username, amount, reason: 'outage', ...(requestId ? { requestId } : {}) });
  const grant = (client: Client, username: string, amount: number, requestId?: string) =>
    client.agent
      .post('/api/admin/credits/grant')
      .send({ username, amount, reason: 'gift', ...(requestId ? { requestId } : {}) });

  it('refuses staff crediting their own account: reimburse, grant, adjust, and a bulk window with their spend', async () => {
    const selfSupport = await reimburse(support, support.username, 10);
    expect(selfSupport.status).toBe(403);
    expect(selfSupport.body.content).toBe(CreditMessages.selfCredit);
    const upperCase = await reimburse(support, support.username.toUpperCase(), 10);
    expect(upperCase.status).toBe(403);
    expect((await reimburse(admin, adminName, 10)).status).toBe(403);
    expect((await grant(admin, adminName, 10)).body.content).toBe(CreditMessages.selfCredit);
    const adjust = await admin.agent
      .post('/api/admin/credits/adjust')
      .send({ username: adminName, amount: 10, reason: 'me' });
    expect(adjust.status).toBe(403);
    expect(await balance(support.username)).toBe(0);
    expect(await balance(adminName)).toBe(0);

    // A bulk window that holds a spend of the requester is refused as a whole.
    const other = await signIn(t);
    const from = new Date(Date.now() - 60_000).toISOString();
    for (const spender of [support.username, other.username]) {
      const userId = await grantCredits(t, spender, 10);
      await spendOnTool(
        t,
        { userId, username: spender },
        { key: `self-bulk-${userId}`, tool: 'selfTool', amount: 10, reason: 'x' },
      );
    }
    const window = {
      tool: 'selfTool',
      from,
      to: new Date(Date.now() + 60_000).toISOString(),
      reason: 'outage',
    };
    const bulk = await support.agent.post('/api/support/reimburse/tool').send(window);
    expect(bulk.status).toBe(403);
    expect(bulk.body.content).toBe(CreditMessages.selfCreditInBulk);
    expect(await balance(support.username)).toBe(0);
    expect(await balance(other.username)).toBe(0);
    // Another staff member gives the window back, the support member's spend included.
    const byAdmin = await admin.agent.post('/api/support/reimburse/tool').send(window);
    expect(byAdmin.status).toBe(200);
    expect(await balance(support.username)).toBe(10);
  });

  it('caps support per call and per UTC day, atomically under concurrent requests, replays not counted', async () => {
    const { perCall, perDay } = STAFF_CREDIT_LIMITS.support;
    const user = await signIn(t);
    const tooMuch = await reimburse(support, user.username, perCall + 1);
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.content).toBe(CreditMessages.perCall(perCall));

    // A replay of one request id counts once.
    const first = await reimburse(support, user.username, perCall, `cap-${user.username}`);
    expect(first.status).toBe(200);
    expect((await reimburse(support, user.username, perCall, `cap-${user.username}`)).status).toBe(200);
    expect(await balance(user.username)).toBe(perCall);

    // What is left today, asked for many times at once: exactly the limit is given, no more.
    const attempts = 2 * (perDay / perCall);
    const results = await Promise.all(
      Array.from({ length: attempts }, () => reimburse(support, user.username, perCall)),
    );
    const given = results.filter((r) => r.status === 200).length;
    expect(given).toBe(perDay / perCall - 1);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).toHaveLength(attempts - given);
    expect(refused[0].body.content).toBe(CreditMessages.perDay(perDay, 0));
    expect(await balance(user.username)).toBe(perDay);
    // Taking credits away is not giving: an admin's downward adjustment is not capped by it.
    const down = await admin.agent
      .post('/api/admin/credits/adjust')
      .send({ username: user.username, amount: -perDay, reason: 'correction' });
    expect(down.status).toBe(200);
  });

  it('refuses a request id sent again for another amount or user, and counts only what was credited', async () => {
    const { perCall, perDay } = STAFF_CREDIT_LIMITS.support;
    const repo = t.app.get(AccountsRepository);
    const fresh = await signIn(t, uniqueName('help'));
    await repo.setRole((await repo.findByUsername(fresh.username))!.id, 'support');
    const helper = await signIn(t, fresh.username); // a day of its own, untouched by other tests
    const user = await signIn(t);
    const other = await signIn(t);

    const rid = `reuse-${user.username}`;
    expect((await reimburse(helper, user.username, 10, rid)).status).toBe(200);
    expect((await reimburse(helper, user.username, 10, rid)).status).toBe(200); // a true replay
    const changed = await reimburse(helper, user.username, 20, rid);
    expect(changed.status).toBe(409);
    expect(changed.body.content).toBe(CreditMessages.requestIdReused);
    expect((await reimburse(helper, other.username, 10, rid)).status).toBe(409);
    expect(await balance(user.username)).toBe(10);
    expect(await balance(other.username)).toBe(0);

    // One id sent twice at once with two amounts: one is credited, the other refused.
    const pairs = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        Promise.all([
          reimburse(helper, user.username, 1, `${rid}-${i}`),
          reimburse(helper, user.username, 100, `${rid}-${i}`),
        ]),
      ),
    );
    for (const pair of pairs) expect(pair.map((r) => r.status).sort()).toEqual([200, 409]);

    // The day counted exactly what was credited: the rest of it is given, then nothing more.
    let rest = perDay - (await balance(user.username));
    while (rest > 0) {
      const amount = Math.min(rest, perCall);
      expect((await reimburse(helper, user.username, amount)).status).toBe(200);
      rest -= amount;
    }
    expect((await reimburse(helper, user.username, 1)).status).toBe(403);
    expect(await balance(user.username)).toBe(perDay);
  });

  it('caps admins per call; a grant above the threshold waits for another admin, who applies it once', async () => {
    const user = await signIn(t);
    const { perCall } = STAFF_CREDIT_LIMITS.admin;
    expect((await grant(admin, user.username, perCall + 1)).status).toBe(403);

    const amount = CREDIT_APPROVAL_THRESHOLD + 500;
    const asked = await grant(admin, user.username, amount, `big-${user.username}`);
    expect(asked.status).toBe(202);
    const pending = asked.body.content.pending as CreditApproval;
    expect(pending).toMatchObject({
      state: 'pending',
      amount,
      username: user.username,
      requestedBy: adminName,
    });
    // Asking again with the same request id is the same request.
    const again = await grant(admin, user.username, amount, `big-${user.username}`);
    expect(again.body.content.pending._id).toBe(pending._id);
    expect(await balance(user.username)).toBe(0);

    const listed = await secondAdmin.agent.get('/api/admin/credits/approvals');
    expect(listed.body.content.filter((a: CreditApproval) => a._id === pending._id)).toHaveLength(1);
    expect((await support.agent.get('/api/admin/credits/approvals')).status).toBe(403);

    const own = await admin.agent
      .post(`/api/admin/credits/approvals/${pending._id}`)
      .send({ decision: 'approve' });
    expect(own.status).toBe(403);
    expect(own.body.content).toBe(CreditMessages.ownApproval);
    expect(await balance(user.username)).toBe(0);

    const approvals = await Promise.all(
      Array.from({ length: 4 }, () =>
        secondAdmin.agent.post(`/api/admin/credits/approvals/${pending._id}`).send({ decision: 'approve' }),
      ),
    );
    for (const res of approvals) expect(res.status).toBe(200);
    expect(approvals[0].body.content).toMatchObject({ state: 'approved', decidedBy: secondAdmin.username });
    expect(await balance(user.username)).toBe(amount);
    const late = await secondAdmin.agent
      .post(`/api/admin/credits/approvals/${pending._id}`)
      .send({ decision: 'reject' });
    expect(late.status).toBe(409);
    expect(await balance(user.username)).toBe(amount);

    // A rejected request credits nothing.
    const rejectedAsk = await grant(admin, user.username, amount);
    const rejectedId = rejectedAsk.body.content.pending._id as string;
    const rejected = await secondAdmin.agent
      .post(`/api/admin/credits/approvals/${rejectedId}`)
      .send({ decision: 'reject' });
    expect(rejected.body.content.state).toBe('rejected');
    expect(await balance(user.username)).toBe(amount);
    expect(
      (await secondAdmin.agent.post('/api/admin/credits/approvals/nope').send({ decision: 'approve' }))
        .status,
    ).toBe(400);

    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(50);
      const messages = log.map((e) => `${e.author?.username}: ${e.message}`);
      expect(messages).toEqual(
        expect.arrayContaining([
          `${adminName}: Asked another admin to approve a grant of ${plural(amount, 'coin')} to ${user.username}.`,
          `${secondAdmin.username}: Approved the grant of ${plural(amount, 'coin')} to ${user.username} asked by ${adminName}.`,
          `${secondAdmin.username}: Rejected the grant of ${plural(amount, 'coin')} to ${user.username} asked by ${adminName}.`,
          `${adminName}: Granted ${plural(amount, 'coin')} to ${user.username}.`,
        ]),
      );
    });
  });

  it('refuses loose amounts in JSON bodies (string forms, fractions, -0, unsafe integers) and credits nothing', async () => {
    const user = await signIn(t);
    // Raw JSON, so that -0 and integers past 2^53 reach the server as written.
    const raw = (client: Client, path: string, amount: string) =>
      client.agent
        .post(path)
        .set('Content-Type', 'application/json')
        .send(`{"username":${JSON.stringify(user.username)},"amount":${amount},"reason":"x"}`);
    for (const amount of [
      '"5 "',
      '"+5"',
      '"1e2"',
      '"0x10"',
      '"05"',
      '5.5',
      '-0',
      '"-0"',
      '0',
      '9007199254740993',
      'true',
      '[5]',
      '{"$gt":0}',
      'null',
    ]) {
      const res = await raw(support, '/api/support/reimburse', amount);
      expect([amount, res.status]).toEqual([amount, 400]);
      const adjusted = await raw(admin, '/api/admin/credits/adjust', amount);
      expect([amount, adjusted.status]).toEqual([amount, 400]);
    }
    expect(await balance(user.username)).toBe(0);
    // Plain decimal text and a JSON whole number are both read as that number (the support
    // member's day was used up above: an admin gives these).
    expect((await raw(admin, '/api/admin/credits/grant', '"5"')).body.content).toMatchObject({ balance: 5 });
    expect((await raw(admin, '/api/admin/credits/grant', '2')).body.content).toMatchObject({ balance: 7 });
  });

  it('lists a waiting request first even when many newer ones were decided since', async () => {
    const user = await signIn(t);
    const waiting = (await grant(admin, user.username, CREDIT_APPROVAL_THRESHOLD + 1)).body.content
      .pending as CreditApproval;
    const rows = t.app.get<Model<CreditApprovalRow>>(getModelToken(CreditApprovalRow.name));
    const account = (await t.app.get(AccountsRepository).findByUsername(user.username))!;
    const later = Date.now() + 60_000;
    await rows.insertMany(
      Array.from({ length: 60 }, (_, i) => ({
        kind: 'grant',
        userId: account.id,
        username: user.username,
        amount: CREDIT_APPROVAL_THRESHOLD + 1,
        reason: 'old news',
        state: 'rejected',
        requestedBy: { userId: 'someone', username: 'someone' },
        requestKey: `decided-${user.username}-${i}`,
        usageDay: '2026-01-01',
        createdAt: new Date(later + i),
      })),
    );
    const listed = (await secondAdmin.agent.get('/api/admin/credits/approvals')).body
      .content as CreditApproval[];
    expect(listed[0]).toMatchObject({ _id: waiting._id, state: 'pending' });
  });

  it('finishes an approval interrupted between its two writes, crediting once', async () => {
    const user = await signIn(t);
    const amount = CREDIT_APPROVAL_THRESHOLD + 7;
    const asked = await grant(admin, user.username, amount);
    const id = asked.body.content.pending._id as string;
    // A crash after the request was marked approved, before the ledger credit was written.
    const rows = t.app.get<Model<CreditApprovalRow>>(getModelToken(CreditApprovalRow.name));
    const approver = (await t.app.get(AccountsRepository).findByUsername(secondAdmin.username))!;
    await rows.updateOne(
      { _id: id },
      {
        $set: {
          state: 'approved',
          decidedBy: { userId: approver.id, username: approver.username },
          decidedAt: new Date(),
        },
      },
    );
    expect(await balance(user.username)).toBe(0);
    for (let i = 0; i < 3; i += 1) {
      const res = await secondAdmin.agent
        .post(`/api/admin/credits/approvals/${id}`)
        .send({ decision: 'approve' });
      expect(res.status).toBe(200);
    }
    expect(await balance(user.username)).toBe(amount);
  });
});
