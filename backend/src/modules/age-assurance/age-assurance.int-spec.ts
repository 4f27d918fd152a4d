import sharp from 'sharp';
import { AGE_CHECK_PATH, SAFETY_REASONS, TEST_CARDS } from '@studio/contracts';
import { AccountsRepository } from '../accounts';
import {
  PASSWORD,
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { AgeAssuranceService } from './age-assurance.service';
import { fixture, rectangleMask } from '../../../test/fixtures';
import { stripeTestConfig } from '../../../test/stripe';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { photoToolRequests } from '../../../test/photo-tool-requests';
import { unzip } from '../../../test/zip';

const card = (funding: string) => TEST_CARDS.find((c) => c.funding === funding)!.number;

describe('age assurance (AGE_ASSURANCE=required, local test card check on real stripe-mock, FerretDB, Redis)', () => {
  let t: TestApp;
  let admin: Client;
  let face: Buffer;
  let mask: Buffer;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    t = await startTestApp({
      ...stripeTestConfig(),
      STRIPE_TEST_CHECKOUT: 'true',
      AGE_ASSURANCE: 'required',
      JOB_WAIT_MS: '60000',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    admin = await signIn(t, adminName, 'admin-password-1');
    face = await sharp(fixture('ai-face.jpg')).png().toBuffer();
    mask = await rectangleMask(256, 256, { left: 100, top: 150, w: 60, h: 40 });
  }, 120_000);
  afterAll(() => t?.close());

  const newcomer = async (coins = 100) => {
    const client = await signIn(t, uniqueName('adult'));
    await grantCredits(t, client.username, coins);
    return client;
  };
  const tools = photoToolRequests(() => mask);
  const swapCheck = (c: Client) => tools.swapCheck(c, face, face);
  const swap = (c: Client) => tools.swap(c, face, face);
  const inpaint = (c: Client) => tools.inpaint(c, face);
  const generate = (c: Client, tags: Record<string, string>, prompt = 'adult woman, portrait') =>
    c.agent.post('/api/generateImage').send({ title: 't', author: c.username, tags, prompt });
  const startCardCheck = async (c: Client) => {
    const res = await c.agent.post('/api/age-assurance/card');
    expect(res.status).toBe(200);
    expect(res.body.content.url).toBe(`${t.url}/stripe/test-age-check/${res.body.content.sessionId}`);
    return res.body.content.sessionId as string;
  };
  const enterCard = (c: Client, sessionId: string, number: string) =>
    c.agent.post(`/api/age-assurance/card/${sessionId}/test-card`).send({ cardNumber: number });
  const historyLength = async (c: Client) =>
    ((await c.agent.get('/api/credits/history')).body.content.items as unknown[]).length;
  const safetyLog = async () =>
    (await admin.agent.get('/api/admin/logs').query({ category: 'Safety', pageSize: '100' })).body.content
      .items as { message: string; detail?: string; author?: { username: string } }[];

  const expectAgeRefusal = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBe(403);
    expect(res.body).toEqual({
      message: 'error',
      content: SAFETY_REASONS.age_not_assured,
      reason: 'age_not_assured',
      link: AGE_CHECK_PATH,
    });
  };

  it('refuses the photo tools and sexual tags to an unassured account before any charge; clone stays open', async () => {
    const user = await newcomer();
    expect((await user.agent.get('/api/age-assurance')).body.content).toEqual({
      required: true,
      assured: false,
    });
    const entries = await historyLength(user);

    expectAgeRefusal(await swapCheck(user));
    expectAgeRefusal(await swap(user));
    expectAgeRefusal(await inpaint(user));
    expectAgeRefusal(await generate(user, { clothing: 'nude' }));
    expectAgeRefusal(await generate(user, { setting: 'strip club' }));
    expectAgeRefusal(await generate(user, {}, 'adult woman, NAKED, on a beach'));
    expect(await balanceOf(user)).toBe(100);
    expect(await historyLength(user)).toBe(entries);

    // Non-sexual tags are not age-gated (no generation engine in tests: 503, nothing charged).
    expect((await generate(user, { clothing: 'sweater' })).status).toBe(503);
    const clone = await user.agent
      .post('/api/generateNoise')
      .field('author', user.username)
      .field('amount', '1')
      .attach('original', face, 'face.png');
    expect(clone.status).toBe(200);
    expect(await balanceOf(user)).toBe(99);

    // The log lines come from domain events, written as the consumer takes them.
    await eventually(async () => {
      const refusals = (await safetyLog()).filter((line) => line.author?.username === user.username);
      expect(refusals.map((line) => line.message)).toEqual(
        expect.arrayContaining([
          'Refused Face swap: age_not_assured.',
          'Refused Magic Brush: age_not_assured.',
        ]),
      );
    });
  }, 120_000);

  it('a test debit or prepaid card does not pass; a test credit card does, and the tools open', async () => {
    const user = await newcomer();
    for (const funding of ['debit', 'prepaid']) {
      const sessionId = await startCardCheck(user);
      const refused = await enterCard(user, sessionId, card(funding));
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({
        message: 'error',
        content: SAFETY_REASONS.card_not_credit,
        reason: 'card_not_credit',
      });
    }
    expect((await user.agent.get('/api/age-assurance')).body.content.assured).toBe(false);
    expectAgeRefusal(await inpaint(user));

    // A number that is not one of the test cards changes nothing.
    const sessionId = await startCardCheck(user);
    expect((await enterCard(user, sessionId, '4111111111111111')).status).toBe(404);
    // Someone else cannot complete this account's check, nor read it back.
    const other = await newcomer();
    expect((await enterCard(other, sessionId, card('credit'))).status).toBe(404);
    expect((await other.agent.post(`/api/age-assurance/card/${sessionId}/complete`)).status).toBe(404);
    expect((await other.agent.get('/api/age-assurance')).body.content.assured).toBe(false);

    const passed = await enterCard(user, sessionId, card('credit'));
    expect(passed.status).toBe(200);
    expect(passed.body.content).toMatchObject({ required: true, assured: true, method: 'credit_card' });
    expect(await balanceOf(user)).toBe(100);

    expect((await swapCheck(user)).status).toBe(200);
    const painted = await inpaint(user);
    expect(painted.status).toBe(200);
    expect(await balanceOf(user)).toBe(99);
    // Reading the same session back again assures nothing twice.
    expect((await user.agent.post(`/api/age-assurance/card/${sessionId}/complete`)).status).toBe(409);

    await eventually(async () => {
      const lines = (await safetyLog()).filter((line) => line.author?.username === user.username);
      expect(lines.map((line) => line.message)).toEqual(
        expect.arrayContaining(['Refused: card_not_credit.', 'Age assured by a credit card check.']),
      );
      expect(lines.map((line) => line.detail)).toEqual(
        expect.arrayContaining([
          expect.stringContaining('Card age check not passed (debit card)'),
          expect.stringContaining('Card age check not passed (prepaid card)'),
        ]),
      );
      // Nothing of the card is in the log: no number, no last digits.
      expect(JSON.stringify(lines)).not.toMatch(/4242|5556|5100/);
    });
  }, 120_000);

  it('staff record a manual check, audited with who and why; users cannot', async () => {
    const user = await newcomer();
    const supportName = uniqueName('help');
    await signIn(t, supportName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(supportName))!.id, 'support');
    const support = await signIn(t, supportName);

    const reason = 'Passport seen on a video call, ticket 4411';
    expect(
      (await user.agent.post(`/api/support/users/${user.username}/age-assurance`).send({ reason })).status,
    ).toBe(403);
    expect(
      (await support.agent.post(`/api/support/users/${user.username}/age-assurance`).send({ reason: 'ok' }))
        .status,
    ).toBe(400);
    expectAgeRefusal(await inpaint(user));
    const self = await support.agent.post(`/api/support/users/${supportName}/age-assurance`).send({ reason });
    expect(self.status).toBe(403);
    expect((await support.agent.get('/api/age-assurance')).body.content.assured).toBe(false);

    const recorded = await support.agent
      .post(`/api/support/users/${user.username}/age-assurance`)
      .send({ reason });
    expect(recorded.status).toBe(200);
    expect(recorded.body.content).toMatchObject({ assured: true, method: 'manual' });
    expect((await user.agent.get('/api/age-assurance')).body.content).toMatchObject({
      assured: true,
      method: 'manual',
    });
    expect((await inpaint(user)).status).toBe(200);
    expect(await balanceOf(user)).toBe(99);

    const line = (await safetyLog()).find(
      (l) => l.message === `Recorded a manual age check for ${user.username}.`,
    );
    expect(line).toMatchObject({ author: { username: supportName }, detail: `Method: manual · ${reason}` });
  }, 120_000);

  it("the account export gives the check's record: method, time and reference, nothing else", async () => {
    const user = await newcomer();
    const exported = async () => {
      const zip = await downloadBytes(user, '/api/account/export');
      return JSON.parse((await unzip(zip)).get('account.json')!.toString());
    };
    expect((await exported()).ageAssurance).toBeNull();
    const sessionId = await startCardCheck(user);
    const passed = await enterCard(user, sessionId, card('credit'));
    expect(passed.status).toBe(200);
    expect((await exported()).ageAssurance).toEqual({
      method: 'credit_card',
      assuredAt: passed.body.content.assuredAt,
      reference: sessionId,
    });
  }, 120_000);

  it('forgets the check when the account is deleted', async () => {
    const user = await newcomer();
    const staffName = uniqueName('help');
    await signIn(t, staffName);
    const accounts = t.app.get(AccountsRepository);
    const userId = (await accounts.findByUsername(user.username))!.id;
    await accounts.setRole((await accounts.findByUsername(staffName))!.id, 'support');
    const staff = await signIn(t, staffName);
    await staff.agent
      .post(`/api/support/users/${user.username}/age-assurance`)
      .send({ reason: 'Passport seen on a video call, ticket 4412' })
      .expect(200);
    const ages = t.app.get(AgeAssuranceService);
    expect((await ages.status(userId)).assured).toBe(true);
    expect((await user.agent.delete('/api/account').send({ password: PASSWORD })).status).toBe(200);
    expect((await ages.status(userId)).assured).toBe(false);
  }, 120_000);
});
