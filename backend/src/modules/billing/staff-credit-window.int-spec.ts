import { CREDIT_APPROVAL_THRESHOLD, CreditMessages } from '@studio/contracts';
import { grantCredits, signIn, spendOnTool, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';

/**
 * Issue 25 point 7: the approval threshold holds for what an admin gives over a rolling window,
 * not per call; and no staff action benefits an account the actor promoted, or the admin who
 * promoted the actor.
 */
describe('staff credits: threshold over a window, no credit along a promotion', () => {
  let t: TestApp;
  const adminName = uniqueName('boss');
  let admin: Client;
  let secondAdmin: Client;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    admin = await signIn(t, adminName, 'admin-password-1');
    const repo = t.app.get(AccountsRepository);
    const other = await signIn(t, uniqueName('boss2'));
    await repo.setRole((await repo.findByUsername(other.username))!.id, 'admin');
    secondAdmin = await signIn(t, other.username);
  });
  afterAll(() => t.close());

  const balance = async (username: string) => {
    const repo = t.app.get(AccountsRepository);
    return (await repo.balanceOf((await repo.findByUsername(username))!.id)).balance;
  };
  const setRole = (client: Client, username: string, role: 'user' | 'support') =>
    client.agent.put(`/api/admin/users/${username}/role`).send({ role });
  const grant = (client: Client, username: string, amount: number) =>
    client.agent.post('/api/admin/credits/grant').send({ username, amount, reason: 'gift' });

  it('sends a grant to a second admin once the grants of the last 24 h would pass the threshold', async () => {
    const user = await signIn(t);
    const third = CREDIT_APPROVAL_THRESHOLD / 2;
    // Two halves reach the threshold exactly: applied at once.
    for (let i = 0; i < 2; i += 1) {
      const res = await grant(admin, user.username, third);
      expect(res.status).toBe(200);
      expect(res.body.content.pending).toBeUndefined();
    }
    expect(await balance(user.username)).toBe(CREDIT_APPROVAL_THRESHOLD);
    // The next one, however small and to whomever, waits for another admin (was applied: each
    // call was judged alone, so three grants of 1,000 passed without a second admin).
    const another = await signIn(t);
    const next = await grant(admin, another.username, 1);
    expect(next.status).toBe(202);
    expect(next.body.content.pending).toMatchObject({ state: 'pending', amount: 1 });
    expect(await balance(another.username)).toBe(0);
    const approved = await secondAdmin.agent
      .post(`/api/admin/credits/approvals/${next.body.content.pending._id}`)
      .send({ decision: 'approve' });
    expect(approved.status).toBe(200);
    expect(await balance(another.username)).toBe(1);
    // Parallel small grants cannot slip past together: the window is counted atomically.
    const fresh = await signIn(t);
    const parallel = await Promise.all(
      Array.from({ length: 6 }, () => grant(secondAdmin, fresh.username, CREDIT_APPROVAL_THRESHOLD / 4)),
    );
    const applied = parallel.filter((res) => res.status === 200 && !res.body.content.pending);
    expect(applied).toHaveLength(4);
    expect(await balance(fresh.username)).toBe(CREDIT_APPROVAL_THRESHOLD);
  });

  it('refuses credits between a staff member and the admin who promoted them, both ways', async () => {
    // The admin promotes an account they control to support, which then credits the admin.
    const puppet = await signIn(t, uniqueName('puppet'));
    expect((await setRole(admin, puppet.username, 'support')).status).toBe(200);
    const support = await signIn(t, puppet.username);
    const back = await support.agent
      .post('/api/support/reimburse')
      .send({ username: adminName, amount: 50, reason: 'outage' });
    expect(back.status).toBe(403);
    expect(back.body.content).toBe(CreditMessages.promotedLink);
    // Nor the other way: the admin crediting the account they promoted.
    const forth = await grant(admin, puppet.username, 10);
    expect(forth.status).toBe(403);
    expect(forth.body.content).toBe(CreditMessages.promotedLink);
    // Nor in a bulk window that holds the promoter's spend.
    const adminId = await grantCredits(t, adminName, 10);
    await spendOnTool(
      t,
      { userId: adminId, username: adminName },
      { key: `promoter-spend-${adminId}`, tool: 'promoterTool', amount: 10, reason: 'x' },
    );
    const now = Date.now();
    const bulk = await support.agent.post('/api/support/reimburse/tool').send({
      tool: 'promoterTool',
      from: new Date(now - 60_000).toISOString(),
      to: new Date(now + 60_000).toISOString(),
      reason: 'outage',
    });
    expect(bulk.status).toBe(403);
    expect(bulk.body.content).toBe(CreditMessages.promotedLink);
    expect(await balance(adminName)).toBe(0);
    // Demoted and promoted again by someone else, the link stays: it was given once.
    expect((await setRole(admin, puppet.username, 'user')).status).toBe(200);
    expect((await setRole(secondAdmin, puppet.username, 'support')).status).toBe(200);
    const again = await signIn(t, puppet.username);
    expect(
      (await again.agent.post('/api/support/reimburse').send({ username: adminName, amount: 5, reason: 'x' }))
        .status,
    ).toBe(403);
    // Anyone else is credited as before.
    const stranger = await signIn(t);
    expect(
      (
        await again.agent
          .post('/api/support/reimburse')
          .send({ username: stranger.username, amount: 5, reason: 'x' })
      ).status,
    ).toBe(200);
  });
});
