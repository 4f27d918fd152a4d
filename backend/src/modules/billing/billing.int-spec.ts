import request from 'supertest';
import { Messages, PaymentMessages, type LogEntry } from '@studio/contracts';
import { eventually, markEmailVerified, signIn, spendOnTool, uniqueName } from '../../../test/clients';
import { postWebhook as deliver, signedEvent, startCheckout, stripeTestConfig } from '../../../test/stripe';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import { LedgerService } from './ledger.service';
import { PaymentsPort } from './payments.port';

describe('billing with stripe-mock and signed webhooks', () => {
  let t: TestApp;
  const adminName = uniqueName('boss');
  const supportName = uniqueName('help');

  beforeAll(async () => {
    t = await startTestApp({
      ...stripeTestConfig(),
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
      // the checkout tests send more than the default 10 a minute (each refusal counts too)
      CHECKOUT_RATE_LIMIT_PER_MINUTE: '100',
    });
    await signIn(t, supportName);
    const support = (await t.app.get(AccountsRepository).findByUsername(supportName))!;
    await t.app.get(AccountsRepository).setRole(support.id, 'support');
  });
  afterAll(() => t.close());

  const userId = async (username: string) =>
    (await t.app.get(AccountsRepository).findByUsername(username))!.id;
  const balanceOf = async (username: string) =>
    (await t.app.get(AccountsRepository).balanceOf(await userId(username))).balance;
  const postWebhook = (event: { payload: string; header: string }) => deliver(t.url, event);

  describe('checkout', () => {
    it('answers a Checkout address for 1..50 packs, and refuses any other count with 400 (never clamped)', async () => {
      const { agent, username } = await signIn(t);
      await markEmailVerified(t, username);
      const spy = jest.spyOn(t.app.get(PaymentsPort), 'createCheckout');
      try {
        for (const packs of [1, 2, 50]) {
          const res = await agent
            .post('/api/createCheckoutSession')
            .send({ coin_id: 'coins-200', coin_amount: packs });
          expect(res.status).toBe(200);
          expect(res.body.content).toMatch(/^https:\/\/checkout\.stripe\.com\//);
          expect(spy.mock.lastCall?.[0]).toMatchObject({ packs });
        }
        expect(spy.mock.lastCall?.[0].successUrl).toMatch(/\/stripe\/success\/\{CHECKOUT_SESSION_ID\}$/);
        spy.mockClear();
        for (const asked of [0, 51, -1, 1.5, 2.6, 99, '2', 'ten', '', null, true, [2], { n: 2 }]) {
          const res = await agent
            .post('/api/createCheckoutSession')
            .send({ coin_id: 'coins-200', coin_amount: asked });
          expect([asked, res.status, res.body]).toEqual([
            asked,
            400,
            {
              message: 'error',
              content:
                asked === null ? Messages.missingFields : 'coin_amount must be a whole number from 1 to 50',
            },
          ]);
        }
        expect(spy).not.toHaveBeenCalled();
      } finally {
        spy.mockRestore();
      }
    });

    it('refuses an unknown product and bad amounts', async () => {
      const { agent } = await signIn(t);
      expect(
        (await agent.post('/api/createCheckoutSession').send({ coin_id: 'gold', coin_amount: 1 })).status,
      ).toBe(400);
      const text = await agent
        .post('/api/createCheckoutSession')
        .send({ coin_id: 'coins-200', coin_amount: 'ten' });
      expect(text.status).toBe(400);
      expect(text.body.content).toBe('coin_amount must be a whole number from 1 to 50');
      expect(
        (
          await request(t.url)
            .post('/api/createCheckoutSession')
            .send({ coin_id: 'coins-200', coin_amount: 1 })
        ).status,
      ).toBe(401);
    });
  });

  describe('webhook', () => {
    it('credits 200 coins per pack once, however often the event is replayed, and says so', async () => {
      const buyer = await signIn(t);
      await markEmailVerified(t, buyer.username);
      const sessionId = await startCheckout(t, buyer, 2);
      const session = {
        id: sessionId,
        payment_status: 'paid',
        customer: `cus_${buyer.username}`,
        metadata: { userId: await userId(buyer.username), username: buyer.username, packs: '2' },
      };
      const event = signedEvent('checkout.session.completed', session);
      const first = await postWebhook(event);
      expect(first.status).toBe(200);
      expect(first.body.content).toEqual({ credited: 400, alreadyCredited: false });
      // Replays answer what happened: nothing more was credited (they said "credited: 400" again).
      for (let i = 0; i < 5; i += 1) {
        const replay = await postWebhook(event);
        expect(replay.status).toBe(200);
        expect(replay.body.content).toEqual({ credited: 0, alreadyCredited: true });
      }
      // A second delivery of the same payment under another event id changes nothing either.
      const again = await postWebhook(signedEvent('checkout.session.completed', session));
      expect(again.body.content).toEqual({ credited: 0, alreadyCredited: true });
      expect(await balanceOf(buyer.username)).toBe(400);
    });

    it('credits parallel duplicate deliveries once, and only one of them says it credited', async () => {
      const buyer = await signIn(t);
      await markEmailVerified(t, buyer.username);
      const sessionId = await startCheckout(t, buyer, 3);
      const session = {
        id: sessionId,
        payment_status: 'paid',
        metadata: { userId: await userId(buyer.username), packs: '3' },
      };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => postWebhook(signedEvent('checkout.session.completed', session))),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
      const credited = answers.map((a) => a.body.content.credited).sort((a, b) => b - a);
      expect(credited).toEqual([600, 0, 0, 0, 0, 0, 0, 0]);
      expect(await balanceOf(buyer.username)).toBe(600);
    });

    it('credits nothing for a signed event naming a checkout this server never created (answered 200, so Stripe stops)', async () => {
      const { username } = await signIn(t);
      const forged = signedEvent('checkout.session.completed', {
        id: `cs_test_invented_${username}`,
        payment_status: 'paid',
        metadata: { userId: await userId(username), username, packs: '50' },
      });
      for (let i = 0; i < 3; i += 1) {
        const res = await postWebhook(forged);
        expect(res.status).toBe(200);
        expect(res.body.content).toEqual({
          credited: 0,
          alreadyCredited: false,
          ignored: 'unknown_checkout',
        });
      }
      expect(await balanceOf(username)).toBe(0);
      expect((await t.app.get(LedgerService).history(await userId(username))).total).toBe(0);
    });

    it("credits the user and packs recorded at checkout, whatever the event's metadata claims", async () => {
      const buyer = await signIn(t);
      const thief = await signIn(t);
      await markEmailVerified(t, buyer.username);
      const sessionId = await startCheckout(t, buyer, 1);
      const res = await postWebhook(
        signedEvent('checkout.session.completed', {
          id: sessionId,
          payment_status: 'paid',
          metadata: { userId: await userId(thief.username), username: thief.username, packs: '50' },
        }),
      );
      expect(res.body.content).toEqual({ credited: 200, alreadyCredited: false });
      expect(await balanceOf(buyer.username)).toBe(200);
      expect(await balanceOf(thief.username)).toBe(0);
    });

    it("tells the success page what the caller's checkout credited: null until the webhook, then the coins; 404 for an unknown or another user's session", async () => {
      const buyer = await signIn(t);
      const other = await signIn(t);
      await markEmailVerified(t, buyer.username);
      // The session id stripe-mock gave the checkout started through the API.
      const spy = jest.spyOn(t.app.get(PaymentsPort), 'createCheckout');
      let sessionId: string;
      try {
        const started = await buyer.agent
          .post('/api/createCheckoutSession')
          .send({ coin_id: 'coins-200', coin_amount: 3 });
        expect(started.status).toBe(200);
        sessionId = (await spy.mock.results[0].value).id;
      } finally {
        spy.mockRestore();
      }
      const outcome = (client: typeof buyer, id = sessionId) => client.agent.get(`/api/checkout/${id}`);

      const pending = await outcome(buyer);
      expect(pending.status).toBe(200);
      expect(pending.body).toEqual({ message: 'success', content: { sessionId, credited: null } });
      // Any other id, or the buyer's id asked by someone else, is not found (it answered 200 null).
      const unknown = await outcome(buyer, `cs_test_never_${buyer.username}`);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: 'error', content: PaymentMessages.checkoutNotFound });
      expect((await outcome(other)).status).toBe(404);
      const event = signedEvent('checkout.session.completed', {
        id: sessionId,
        payment_status: 'paid',
        metadata: { userId: await userId(buyer.username), packs: '3' },
      });
      expect((await postWebhook(event)).status).toBe(200);
      expect((await outcome(buyer)).body.content).toEqual({ sessionId, credited: 600 });
      // Another user learns nothing about it; a malformed id is refused; the anonymous must log in.
      expect((await outcome(other)).status).toBe(404);
      const malformed = await outcome(buyer, 'not-a-session');
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual({ message: 'error', content: 'Not a checkout session id' });
      expect((await request(t.url).get(`/api/checkout/${sessionId}`)).status).toBe(401);
      expect(await balanceOf(buyer.username)).toBe(600);
    });

    it('refuses a forged or missing signature with 400 and credits nothing', async () => {
      const { username } = await signIn(t);
      const session = {
        id: `cs_forged_${username}`,
        payment_status: 'paid',
        metadata: { userId: await userId(username), packs: '50' },
      };
      const forged = await postWebhook(signedEvent('checkout.session.completed', session, 'whsec_attacker'));
      expect(forged.status).toBe(400);
      expect(forged.body).toEqual({ message: 'error', content: 'Invalid signature' });
      const unsigned = await request(t.url)
        .post('/api/stripe/webhook')
        .send(JSON.parse(signedEvent('checkout.session.completed', session).payload));
      expect(unsigned.status).toBe(400);
      expect(await balanceOf(username)).toBe(0);
    });

    it('waits for an asynchronous payment, and credits once whatever the order of events', async () => {
      const buyer = await signIn(t);
      const { username } = buyer;
      await markEmailVerified(t, username);
      const sessionId = await startCheckout(t, buyer, 1);
      const base = { id: sessionId, metadata: { userId: await userId(username), packs: '1' } };
      const succeeded = signedEvent('checkout.session.async_payment_succeeded', {
        ...base,
        payment_status: 'paid',
      });
      const completedUnpaid = signedEvent('checkout.session.completed', {
        ...base,
        payment_status: 'unpaid',
      });
      const unpaid = await postWebhook(completedUnpaid);
      expect(unpaid.status).toBe(200);
      expect(unpaid.body.content).toEqual({ credited: 0, alreadyCredited: false, ignored: 'unpaid' });
      expect(await balanceOf(username)).toBe(0);
      expect((await postWebhook(succeeded)).body.content).toEqual({ credited: 200, alreadyCredited: false });
      await postWebhook(signedEvent('checkout.session.completed', { ...base, payment_status: 'paid' }));
      expect((await postWebhook(succeeded)).body.content).toEqual({ credited: 0, alreadyCredited: true });
      expect((await postWebhook(completedUnpaid)).body.content).toEqual({
        credited: 0,
        alreadyCredited: true,
        ignored: 'unpaid',
      });
      expect(await balanceOf(username)).toBe(200);
    });

    it('pushes the new balance and records the purchase in the activity log', async () => {
      const buyer = await signIn(t);
      const { username } = buyer;
      await markEmailVerified(t, username);
      const sessionId = await startCheckout(t, buyer, 3);
      await postWebhook(
        signedEvent('checkout.session.completed', {
          id: sessionId,
          payment_status: 'paid',
          metadata: { userId: await userId(username), packs: '3' },
        }),
      );
      const admin = await signIn(t, adminName, 'admin-password-1');
      await eventually(async () => {
        const logs: LogEntry[] = (await admin.agent.get('/api/getlogs')).body.content;
        expect(logs.find((e) => e.author?.username === username && e.category === 'Credits')?.message).toBe(
          'Bought 600 coins.',
        );
      });
    });
  });

  describe('billing portal', () => {
    it('opens the portal for the customer of the first purchase', async () => {
      const buyer = await signIn(t);
      const { agent, username } = buyer;
      const none = await agent.post('/api/createPortalSession').send({ username });
      expect(none.status).toBe(404);
      expect(none.body.content).toBe('No billing account yet: buy coins first.');
      await markEmailVerified(t, username);
      const sessionId = await startCheckout(t, buyer, 1);
      await postWebhook(
        signedEvent('checkout.session.completed', {
          id: sessionId,
          payment_status: 'paid',
          customer: 'cus_portal',
          metadata: { userId: await userId(username), packs: '1' },
        }),
      );
      const res = await agent
        .post('/api/createPortalSession')
        .send({ username, session_id: sessionId, cart: 1 });
      expect(res.status).toBe(200);
      expect(res.body.content).toMatch(/^https:\/\//);
    });

    it("refuses another user's name", async () => {
      const victim = await signIn(t);
      const { agent } = await signIn(t);
      const res = await agent.post('/api/createPortalSession').send({ username: victim.username });
      expect(res.status).toBe(403);
    });
  });

  describe('credit history and support tools', () => {
    it('shows a user their own history, paged, and support anyone', async () => {
      const { agent, username } = await signIn(t);
      const id = await userId(username);
      for (let i = 0; i < 3; i += 1) {
        await t.app.get(LedgerService).credit({
          key: `hist-${id}-${i}`,
          userId: id,
          username,
          kind: 'grant',
          amount: 10 + i,
          reason: `gift ${i}`,
        });
      }
      const page1 = await agent.get('/api/credits/history?page=1&pageSize=2');
      expect(page1.status).toBe(200);
      expect(page1.body.content).toMatchObject({ total: 3, page: 1, pageSize: 2 });
      expect(page1.body.content.items.map((e: { amount: number }) => e.amount)).toEqual([12, 11]);
      expect((await agent.get('/api/credits/history?page=0')).status).toBe(400);

      const other = await signIn(t);
      expect((await other.agent.get(`/api/support/users/${username}/credits`)).status).toBe(403);
      const support = await signIn(t, supportName);
      const seen = await support.agent.get(`/api/support/users/${username}/credits`);
      expect(seen.body.content.total).toBe(3);
    });

    it('lets support reimburse (once per request id) but not grant; admins grant and adjust', async () => {
      const { agent, username } = await signIn(t);
      const body = { username, amount: 25, reason: 'Outage on Tuesday', requestId: `req-${username}` };
      expect((await agent.post('/api/support/reimburse').send(body)).status).toBe(403);

      const support = await signIn(t, supportName);
      const first = await support.agent.post('/api/support/reimburse').send(body);
      expect(first.status).toBe(200);
      expect(first.body.content).toEqual({ username, amount: 25, balance: 25 });
      await support.agent.post('/api/support/reimburse').send(body);
      expect(await balanceOf(username)).toBe(25);
      expect(
        (await support.agent.post('/api/admin/credits/grant').send({ username, amount: 5, reason: 'x' }))
          .status,
      ).toBe(403);

      const admin = await signIn(t, adminName, 'admin-password-1');
      expect(
        (await admin.agent.post('/api/admin/credits/grant').send({ username, amount: 5, reason: 'gift' }))
          .status,
      ).toBe(200);
      const below = await admin.agent
        .post('/api/admin/credits/adjust')
        .send({ username, amount: -31, reason: 'too much' });
      expect(below.status).toBe(400);
      expect(
        (
          await admin.agent
            .post('/api/admin/credits/adjust')
            .send({ username, amount: -30, reason: 'correction' })
        ).status,
      ).toBe(200);
      expect(await balanceOf(username)).toBe(0);
      expect((await support.agent.post('/api/support/reimburse').send({ ...body, amount: 0 })).status).toBe(
        400,
      );
      expect(
        (await support.agent.post('/api/support/reimburse').send({ ...body, reason: '  ' })).body.content,
      ).toBe('A reason is required');
    });

    it('gives back what each user spent on a tool in a window, once', async () => {
      const ledger = t.app.get(LedgerService);
      const spenders = await Promise.all([signIn(t), signIn(t)]);
      const from = new Date(Date.now() - 60_000).toISOString();
      for (const [i, s] of spenders.entries()) {
        const id = await userId(s.username);
        await ledger.credit({
          key: `seed-spend-${id}`,
          userId: id,
          username: s.username,
          kind: 'grant',
          amount: 100,
          reason: 'seed',
        });
        for (let j = 0; j <= i; j += 1) {
          await spendOnTool(
            t,
            { userId: id, username: s.username },
            { key: `spend-${id}-${j}`, tool: 'faceSwapTest', amount: 10, reason: 'swap' },
          );
        }
      }
      const window = {
        tool: 'faceSwapTest',
        from,
        to: new Date(Date.now() + 60_000).toISOString(),
        reason: 'Swap outage',
      };
      const support = await signIn(t, supportName);
      const preview = await support.agent.post('/api/support/reimburse/tool/preview').send(window);
      expect(preview.body.content.users).toEqual([
        { username: spenders[1].username, amount: 20 },
        { username: spenders[0].username, amount: 10 },
      ]);
      const confirmed = await support.agent.post('/api/support/reimburse/tool').send(window);
      expect(confirmed.body.content.totalCredits).toBe(30);
      const again = await support.agent.post('/api/support/reimburse/tool').send(window);
      expect(again.body.content.totalCredits).toBe(0);
      expect(await balanceOf(spenders[0].username)).toBe(100);
      expect(await balanceOf(spenders[1].username)).toBe(100);

      const admin = await signIn(t, adminName, 'admin-password-1');
      await eventually(async () => {
        const logs: LogEntry[] = (await admin.agent.get('/api/getlogs')).body.content;
        const mine = logs.filter((e) => e.author?.username === spenders[1].username).map((e) => e.message);
        expect(mine.filter((m) => m === 'Spent 10 credits.')).toHaveLength(2);
        const byStaff = logs.filter((e) => e.author?.username === supportName).map((e) => e.message);
        // One reimbursement per spend: two of 10 for the user who spent twice.
        expect(byStaff.filter((m) => m === `Reimbursed 10 coins to ${spenders[1].username}.`)).toHaveLength(
          2,
        );
      });
    });
  });

  describe('Patreon link', () => {
    it('verifies the user with a one-time secret issued by an admin', async () => {
      const { agent, username } = await signIn(t);
      expect((await agent.post('/api/admin/patreonSecrets').send({})).status).toBe(403);
      const admin = await signIn(t, adminName, 'admin-password-1');
      const [secret] = (await admin.agent.post('/api/admin/patreonSecrets').send({ count: 1 })).body.content;

      const wrong = await agent.post('/api/patreonSecret').send({ secret: 'unknown', username });
      expect(wrong.status).toBe(400);
      expect(wrong.body.content).toBe(PaymentMessages.patreonFailed);
      const spoofed = await agent.post('/api/patreonSecret').send({ secret, username: adminName });
      expect(spoofed.status).toBe(403);
      expect(spoofed.body.content).toBe(Messages.notYourAccount);

      const ok = await agent.post('/api/patreonSecret').send({ secret, username });
      expect(ok.status).toBe(200);
      expect(ok.body.content).toBe(PaymentMessages.patreonLinked);
      expect((await agent.get('/api/session')).body.content.verified).toBe(true);

      const other = await signIn(t);
      const reused = await other.agent.post('/api/patreonSecret').send({ secret, username: other.username });
      expect(reused.status).toBe(400);
      expect((await other.agent.get('/api/session')).body.content.verified).toBe(false);
    });
  });
});

describe('billing without Stripe keys', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('runs and says payments are not configured', async () => {
    expect((await request(t.url).get('/api/billing/status')).body.content).toEqual({
      paymentsConfigured: false,
      testMode: false,
      welcomeAllowance: 0,
    });
    const { agent } = await signIn(t);
    const res = await agent.post('/api/createCheckoutSession').send({ coin_id: 'coins-200', coin_amount: 1 });
    expect(res.status).toBe(503);
    expect(res.body.content).toBe(PaymentMessages.notConfigured);
  });
});
