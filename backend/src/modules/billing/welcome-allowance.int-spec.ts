import request from 'supertest';
import {
  AccountMessages,
  type AllowanceStats,
  type AllowanceStatus,
  type CreditHistoryEntry,
} from '@studio/contracts';
import { balanceOf, eventually, PASSWORD, signIn, uniqueName, type Client } from '../../../test/clients';
import { linkIn, waitForMail } from '../../../test/mailbox';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AuditService } from '../audit/audit.service';
import { AccountsRepository } from '../accounts/accounts.repository';
import { allowanceKey, isDisposableAddress, WelcomeAllowance } from './welcome-allowance';
import { LedgerService } from './ledger.service';

const COINS = 25;

/** Registers with a given address and logs in; the agent keeps the session cookie. */
async function signUp(t: TestApp, email: string): Promise<Client & { email: string }> {
  const username = uniqueName('fresh');
  const reg = await request(t.url)
    .post('/api/register')
    .send({ email, username, password: PASSWORD, adult: true });
  if (reg.status !== 200) throw new Error(`register: ${reg.status} ${JSON.stringify(reg.body)}`);
  return { ...(await signIn(t, username)), email };
}

/** Opens the mailed verification link as the browser at `from` would (through the proxy). */
async function verifyFrom(t: TestApp, email: string, from: string) {
  const { token } = linkIn(await waitForMail(email, /Verify your email/), '/verify-email');
  const res = await request(t.url).post('/api/email/verify').set('X-Forwarded-For', from).send({ token });
  return { res, token };
}

const historyOf = async (client: Client): Promise<CreditHistoryEntry[]> =>
  (await client.agent.get('/api/credits/history')).body.content.items;

describe('free allowance after email verification (real FerretDB, Redis, mail catcher)', () => {
  let t: TestApp;
  beforeAll(async () => {
    // TRUST_PROXY: each test names its client address, as a proxy in front of the app would.
    t = await startTestApp({ WELCOME_ALLOWANCE_COINS: String(COINS), TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  const userIdOf = async (username: string) =>
    (await t.app.get(AccountsRepository).findByUsername(username))!.id;

  it('grants the allowance once, through the ledger, audited, apart from purchases', async () => {
    const user = await signUp(t, `${uniqueName('ana')}@example.com`.toLowerCase());
    expect(await balanceOf(user)).toBe(0);
    const { res, token } = await verifyFrom(t, user.email, '198.51.100.10');
    expect(res.status).toBe(200);

    // The event-driven grant lands without any admin step.
    await eventually(async () => expect(await balanceOf(user)).toBe(COINS));
    const entries = (await historyOf(user)).filter((e) => e.kind === 'allowance');
    expect(entries).toEqual([
      expect.objectContaining({ kind: 'allowance', amount: COINS, balanceAfter: COINS }),
    ]);
    const audit = await eventually(async () => {
      const found = (await t.app.get(AuditService).latest(200)).find((line) =>
        /free allowance/.test(line.message),
      );
      if (!found) throw new Error('no audit line yet');
      return found;
    });
    expect(audit.message).toBe(`Received the free allowance of ${COINS} coins (email verified).`);

    // A replayed verification link: refused, and nothing more is granted.
    const replay = await request(t.url)
      .post('/api/email/verify')
      .set('X-Forwarded-For', '198.51.100.10')
      .send({ token });
    expect(replay.status).toBe(400);
    expect(replay.body.content).toBe(AccountMessages.badLink);
    // Even asked again directly (a redelivered event), the ledger key holds it to one.
    const again = await t.app
      .get(WelcomeAllowance)
      .grant(await userIdOf(user.username), '198.51.100.99', new Date());
    expect(again).toEqual({ granted: false, reason: 'already' });
    expect(await balanceOf(user)).toBe(COINS);
    expect(await t.app.get(LedgerService).appliedSum(await userIdOf(user.username))).toBe(COINS);

    // Admin statistics count it on its own line, not as a purchase.
    const admin = await signIn(t, uniqueName('boss'));
    await t.app.get(AccountsRepository).setRole(await userIdOf(admin.username), 'admin');
    const stats = (await admin.agent.get('/api/admin/allowances')).body.content as AllowanceStats;
    expect(stats).toMatchObject({ coinsEach: COINS, today: { count: 1, coins: COINS } });
  });

  it("tells each account where its allowance stands, with the server's reason when refused", async () => {
    const statusOf = async (client: Client) =>
      (await client.agent.get('/api/billing/allowance')).body.content as AllowanceStatus;
    const first = await signUp(t, `${uniqueName('cy')}@example.com`.toLowerCase());
    expect(await statusOf(first)).toEqual({ state: 'unverified', coins: COINS });
    await verifyFrom(t, first.email, '198.51.100.77');
    await eventually(async () => expect(await statusOf(first)).toEqual({ state: 'granted', coins: COINS }));

    const second = await signUp(t, `${uniqueName('cy2')}@example.com`.toLowerCase());
    await verifyFrom(t, second.email, '198.51.100.77');
    await eventually(async () =>
      expect(await statusOf(second)).toEqual({ state: 'refused', coins: COINS, reason: 'address_today' }),
    );
    // Logged out: no one's status.
    expect((await request(t.url).get('/api/billing/allowance')).status).toBe(401);
  });

  it('tells a newcomer before verifying when the coins will not come (this network today, a throwaway address)', async () => {
    const statusFrom = async (client: Client, from: string) =>
      (await client.agent.get('/api/billing/allowance').set('X-Forwarded-For', from)).body
        .content as AllowanceStatus;
    const first = await signUp(t, `${uniqueName('dee')}@example.com`.toLowerCase());
    await verifyFrom(t, first.email, '198.51.100.88');
    await eventually(async () => expect(await balanceOf(first)).toBe(COINS));

    const second = await signUp(t, `${uniqueName('dee2')}@example.com`.toLowerCase());
    expect(await statusFrom(second, '198.51.100.88')).toEqual({
      state: 'unverified',
      coins: COINS,
      expected: 'address_today',
    });
    // From another network the offer stands, and asking claimed nothing: that network's slot is free.
    expect(await statusFrom(second, '198.51.100.89')).toEqual({ state: 'unverified', coins: COINS });
    await verifyFrom(t, second.email, '198.51.100.89');
    await eventually(async () => expect(await balanceOf(second)).toBe(COINS));

    const throwaway = await signUp(t, `${uniqueName('dee3')}@mailinator.com`.toLowerCase());
    expect(await statusFrom(throwaway, '198.51.100.90')).toEqual({
      state: 'unverified',
      coins: COINS,
      expected: 'disposable',
    });
  });

  it('gives a second account from the same client address on the same day nothing', async () => {
    const first = await signUp(t, `${uniqueName('ben')}@example.com`.toLowerCase());
    await verifyFrom(t, first.email, '198.51.100.20');
    await eventually(async () => expect(await balanceOf(first)).toBe(COINS));

    const second = await signUp(t, `${uniqueName('ben2')}@example.com`.toLowerCase());
    const { res } = await verifyFrom(t, second.email, '198.51.100.20');
    expect(res.status).toBe(200);
    // The same decision the event's handler reaches (idempotent, so racing it changes nothing).
    const outcome = await t.app
      .get(WelcomeAllowance)
      .grant(await userIdOf(second.username), '198.51.100.20', new Date());
    expect(outcome).toEqual({ granted: false, reason: 'address_today' });
    expect(await balanceOf(second)).toBe(0);
    expect((await historyOf(second)).some((e) => e.kind === 'allowance')).toBe(false);

    // The next day the address has a slot again (the first account still has its one).
    const tomorrow = new Date(Date.now() + 86_400_000);
    const later = await t.app
      .get(WelcomeAllowance)
      .grant(await userIdOf(second.username), '198.51.100.20', tomorrow);
    expect(later).toMatchObject({ granted: true, coins: COINS });
  });

  it('gives one allowance per mailbox and none to throwaway-mail domains', async () => {
    const name = uniqueName('cy').toLowerCase();
    const plain = await signUp(t, `${name}@gmail.com`);
    await verifyFrom(t, plain.email, '198.51.100.30');
    await eventually(async () => expect(await balanceOf(plain)).toBe(COINS));

    // The same Gmail mailbox under dots and a +tag, from another address: no second allowance.
    const dotted = await signUp(t, `${name.slice(0, 2)}.${name.slice(2)}+again@gmail.com`);
    await verifyFrom(t, dotted.email, '198.51.100.31');
    const same = await t.app
      .get(WelcomeAllowance)
      .grant(await userIdOf(dotted.username), '198.51.100.31', new Date());
    expect(same).toEqual({ granted: false, reason: 'address_used' });

    const throwaway = await signUp(t, `${uniqueName('dd')}@mailinator.com`.toLowerCase());
    await verifyFrom(t, throwaway.email, '198.51.100.32');
    const refused = await t.app
      .get(WelcomeAllowance)
      .grant(await userIdOf(throwaway.username), '198.51.100.32', new Date());
    expect(refused).toEqual({ granted: false, reason: 'disposable' });
    expect(await balanceOf(dotted)).toBe(0);
    expect(await balanceOf(throwaway)).toBe(0);
  });

  it("gives Yahoo's disposable -keyword addresses of one mailbox one allowance between them", async () => {
    const name = uniqueName('ya').toLowerCase();
    const plain = await signUp(t, `${name}@yahoo.com`);
    await verifyFrom(t, plain.email, '198.51.100.35');
    await eventually(async () => expect(await balanceOf(plain)).toBe(COINS));

    for (const [alias, from] of [
      [`${name}-shop@yahoo.com`, '198.51.100.36'],
      [`${name.toUpperCase()}-news@Yahoo.com`, '198.51.100.37'],
      [`${name}-a+b@yahoo.com`, '198.51.100.38'],
    ] as const) {
      const other = await signUp(t, alias);
      const { res } = await verifyFrom(t, other.email, from);
      expect(res.status).toBe(200);
      const again = await t.app.get(WelcomeAllowance).grant(await userIdOf(other.username), from, new Date());
      expect([alias, again]).toEqual([alias, { granted: false, reason: 'address_used' }]);
      expect(await balanceOf(other)).toBe(0);
    }
  });

  it("gives Fastmail's subdomain addresses of one mailbox one allowance between them", async () => {
    const name = uniqueName('fm').toLowerCase();
    const first = await signUp(t, `shop@${name}.fastmail.com`);
    await verifyFrom(t, first.email, '198.51.100.41');
    await eventually(async () => expect(await balanceOf(first)).toBe(COINS));

    for (const [alias, from] of [
      [`other@${name}.fastmail.com`, '198.51.100.42'],
      [`${name}@fastmail.com`, '198.51.100.43'],
      [`${name}+news@fastmail.com`, '198.51.100.44'],
    ] as const) {
      const other = await signUp(t, alias);
      const { res } = await verifyFrom(t, other.email, from);
      expect(res.status).toBe(200);
      const again = await t.app.get(WelcomeAllowance).grant(await userIdOf(other.username), from, new Date());
      expect([alias, again]).toEqual([alias, { granted: false, reason: 'address_used' }]);
      expect(await balanceOf(other)).toBe(0);
    }
  });

  it('grants nothing before the address is verified', async () => {
    const user = await signUp(t, `${uniqueName('di')}@example.com`.toLowerCase());
    const outcome = await t.app
      .get(WelcomeAllowance)
      .grant(await userIdOf(user.username), '198.51.100.40', new Date());
    expect(outcome).toEqual({ granted: false, reason: 'unverified' });
    expect(allowanceKey('x')).toBe('allowance:x');
  });
});

describe('mailbox rules of the allowance (the folding itself: mail/mailbox.spec.ts)', () => {
  it('knows throwaway-mail domains from the maintained list', () => {
    expect(isDisposableAddress('someone@mailinator.com')).toBe(true);
    expect(isDisposableAddress('someone@gmail.com')).toBe(false);
  });
});

describe('allowance off (the default outside npm start)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('says so in the billing status and grants nothing', async () => {
    const status = (await request(t.url).get('/api/billing/status')).body.content;
    expect(status).toEqual({ paymentsConfigured: false, testMode: false, welcomeAllowance: 0 });
    const user = await signIn(t, uniqueName('off'));
    const id = (await t.app.get(AccountsRepository).findByUsername(user.username))!.id;
    await t.app.get(AccountsRepository).setEmailVerified(id);
    expect(await t.app.get(WelcomeAllowance).grant(id, '198.51.100.50', new Date())).toEqual({
      granted: false,
      reason: 'off',
    });
  });
});
