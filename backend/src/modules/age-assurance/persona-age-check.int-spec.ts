import { InjectionToken } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import request from 'supertest';
import { AGE_CHECK_PATH, AgeAssuranceMessages, SAFETY_REASONS } from '@studio/contracts';
import { AccountsRepository } from '../accounts';
import { PASSWORD, eventually, signIn, uniqueName, type Client } from '../../../test/clients';
import { AgeProviderCheck } from './age-provider-check.schema';
import {
  FAKE_PERSONA_ACCOUNT,
  personaSettings,
  personaWebhookUrl,
  startFakePersona,
  type FakePersona,
  type SignedEvent,
} from '../../../test/fake-persona-server';
import { startTestApp, type TestApp } from '../../../test/test-app';

const TEMPLATE = FAKE_PERSONA_ACCOUNT.templateId;

describe('age check at Persona (fake Persona over HTTP: inquiries API, hosted flow, signed webhooks; real FerretDB, Redis)', () => {
  let t: TestApp;
  let fake: FakePersona;
  let admin: Client;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    fake = await startFakePersona();
    t = await startTestApp({
      AGE_ASSURANCE: 'required',
      ...personaSettings(fake),
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    fake.webhookUrl = personaWebhookUrl(t.url);
    admin = await signIn(t, adminName, 'admin-password-1');
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  const status = async (c: Client) => (await c.agent.get('/api/age-assurance')).body.content;
  const start = async (c: Client) => {
    const res = await c.agent.post('/api/age-assurance/provider');
    expect(res.status).toBe(200);
    return res.body.content as { reference: string; url: string };
  };
  /** The person goes through the hosted flow: opens the page, answers, is sent back to the studio. */
  const goThroughFlow = async (url: string, result: 'adult' | 'under-18') => {
    const page = await fetch(url);
    expect(page.status).toBe(200);
    const answered = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `result=${result}`,
      redirect: 'manual',
    });
    expect(answered.status).toBe(302);
    return new URL(answered.headers.get('location')!);
  };
  const post = (signed: SignedEvent, signature: string | null = signed.signature) => {
    const req = request(t.url)
      .post('/api/age-assurance/persona/webhook')
      .set('Content-Type', 'application/json');
    return (signature === null ? req : req.set('Persona-Signature', signature)).send(signed.body);
  };
  const userIdOf = async (c: Client) => (await t.app.get(AccountsRepository).findByUsername(c.username))!.id;
  const safetyLines = async (username: string) =>
    (
      (await admin.agent.get('/api/admin/logs').query({ category: 'Safety', pageSize: '100' })).body.content
        .items as { message: string; detail?: string; author?: { username: string } }[]
    ).filter((line) => line.author?.username === username);

  it('start → hosted flow → signed webhook: the account is assured (method, time, inquiry id; nothing of the person)', async () => {
    const user = await signIn(t, uniqueName('adult'));
    expect(await status(user)).toEqual({ required: true, assured: false, provider: 'persona' });
    const { reference, url } = await start(user);
    expect(reference).toMatch(/^inq_/);
    // The inquiry was made from the operator's template, for this account.
    expect(fake.inquiries.get(reference)).toMatchObject({
      templateId: TEMPLATE,
      referenceId: await userIdOf(user),
    });
    const back = await goThroughFlow(url, 'adult');
    expect(`${back.origin}${back.pathname}`).toBe(`${t.url}${AGE_CHECK_PATH}`);
    expect(back.searchParams.get('inquiry-id')).toBe(reference);

    // The webhooks (completed, then approved) were answered 200; the approved one settled it.
    const [completed, approved] = fake.delivered.slice(-2);
    expect([completed.status, approved.status]).toEqual([200, 200]);
    expect(await status(user)).toMatchObject({ required: true, assured: true, method: 'provider' });
    // Back on the site, the read-back finds it settled.
    const done = await user.agent.post(`/api/age-assurance/provider/${reference}/complete`);
    expect(done.status).toBe(200);
    expect(done.body.content).toMatchObject({ assured: true, method: 'provider' });

    // A replay of the approval, and the earlier 'completed' event arriving late, change nothing.
    for (const again of [approved, completed, approved]) {
      const res = await post(again);
      expect(res.status).toBe(200);
      expect(res.body.content).toEqual({ outcome: 'approved', alreadySettled: true });
    }
    const record = (await t.app.get(AccountsRepository).findByUsername(user.username))!;
    const { AgeAssuranceService } = await import('./age-assurance.service');
    expect(await t.app.get(AgeAssuranceService).recordOf(record.id)).toEqual({
      method: 'provider',
      assuredAt: expect.any(String),
      reference,
    });
    await eventually(async () => {
      const lines = await safetyLines(user.username);
      expect(lines.filter((l) => l.message === 'Age assured by persona (approved).')).toHaveLength(1);
    });
    // A second check for an assured account is not started.
    expect((await user.agent.post('/api/age-assurance/provider')).status).toBe(409);
  }, 120_000);

  it('refuses bad signatures, stale or future timestamps and a missing header (400), changing nothing', async () => {
    const user = await signIn(t, uniqueName('adult'));
    const { reference } = await start(user);
    fake.inquiries.get(reference)!.status = 'approved'; // decided at Persona, not yet told
    const now = Math.floor(Date.now() / 1000);
    const good = fake.event('inquiry.approved', reference);
    const refusals: [SignedEvent, string | null, string][] = [
      [
        fake.event('inquiry.approved', reference, { secret: 'wbhsec_someone-else' }),
        undefined!,
        'Invalid signature',
      ],
      [
        { body: good.body.replace('approved', 'declined'), signature: good.signature },
        undefined!,
        'Invalid signature',
      ],
      [good, null, 'Invalid signature'],
      [good, 'v1=' + good.signature.split('v1=')[1], 'Invalid signature'],
      [good, `t=${now},v1=${'0'.repeat(64)}`, 'Invalid signature'],
      [
        fake.event('inquiry.approved', reference, { t: now - 301 }),
        undefined!,
        AgeAssuranceMessages.staleSignature,
      ],
      [
        fake.event('inquiry.approved', reference, { t: now + 301 }),
        undefined!,
        AgeAssuranceMessages.staleSignature,
      ],
    ];
    for (const [signed, signature, message] of refusals) {
      const res = await post(signed, signature === undefined ? signed.signature : signature);
      expect({ status: res.status, body: res.body }).toEqual({
        status: 400,
        body: { message: 'error', content: message },
      });
    }
    expect((await status(user)).assured).toBe(false);

    // During a secret's rotation two signatures come: one that holds is enough.
    const rotated = `${fake.event('x', reference, { secret: 'wbhsec_old' }).signature} ${good.signature}`;
    const res = await post(good, rotated);
    expect(res.status).toBe(200);
    expect(res.body.content).toEqual({ outcome: 'approved' });
    expect((await status(user)).assured).toBe(true);
  }, 120_000);

  it("a webhook or read-back for another account's check assures nobody else", async () => {
    const alice = await signIn(t, uniqueName('alice'));
    const mallory = await signIn(t, uniqueName('mallory'));
    const { reference } = await start(alice);
    // Mallory cannot read Alice's check back, whatever its state.
    fake.inquiries.get(reference)!.status = 'approved';
    expect((await mallory.agent.post(`/api/age-assurance/provider/${reference}/complete`)).status).toBe(404);
    // Persona's record of the inquiry names Mallory (a check made for one account, claimed by another).
    fake.inquiries.get(reference)!.referenceId = await userIdOf(mallory);
    const res = await post(fake.event('inquiry.approved', reference));
    expect(res.status).toBe(200);
    expect(res.body.content).toEqual({ outcome: 'ignored', ignored: 'account_mismatch' });
    expect((await status(alice)).assured).toBe(false);
    expect((await status(mallory)).assured).toBe(false);
    // An inquiry this studio never started (Persona serves other sites too) is ignored.
    const unknown = await post(fake.event('inquiry.approved', 'inq_NotStartedHere1'));
    expect(unknown.status).toBe(200);
    expect(unknown.body.content).toEqual({ outcome: 'ignored', ignored: 'unknown_check' });
    expect((await status(mallory)).assured).toBe(false);
  }, 120_000);

  it("deleting the account deletes its checks' references too", async () => {
    const user = await signIn(t, uniqueName('leaving'));
    const userId = await userIdOf(user);
    const { url } = await start(user);
    await goThroughFlow(url, 'adult');
    const checks = t.app.get<Model<AgeProviderCheck>>(getModelToken(AgeProviderCheck.name) as InjectionToken);
    expect(await checks.countDocuments({ userId })).toBe(1);
    expect((await user.agent.delete('/api/account').send({ password: PASSWORD })).status).toBe(200);
    expect(await checks.countDocuments({ userId })).toBe(0);
  }, 120_000);

  it('a declined check (under 18) leaves the account unassured, with a clear answer and one log line', async () => {
    const user = await signIn(t, uniqueName('young'));
    const { reference, url } = await start(user);
    // Before the person finishes: not settled, said plainly.
    const early = await user.agent.post(`/api/age-assurance/provider/${reference}/complete`);
    expect(early.status).toBe(409);
    expect(early.body.content).toBe(AgeAssuranceMessages.providerCheckPending);

    await goThroughFlow(url, 'under-18');
    expect(fake.delivered.slice(-2).map((d) => d.status)).toEqual([200, 200]);
    expect((await status(user)).assured).toBe(false);
    for (let i = 0; i < 2; i++) {
      const res = await user.agent.post(`/api/age-assurance/provider/${reference}/complete`);
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        message: 'error',
        content: SAFETY_REASONS.age_check_declined,
        reason: 'age_check_declined',
      });
    }
    // Persona turning it round later (or a forged late approval) does not undo the settled outcome.
    fake.inquiries.get(reference)!.status = 'approved';
    const late = await post(fake.event('inquiry.approved', reference));
    expect(late.body.content).toEqual({ outcome: 'declined', alreadySettled: true });
    expect((await status(user)).assured).toBe(false);
    // The gate still refuses the photo tools.
    const gated = await user.agent.post('/api/faceSwap/check');
    expect(gated.status).toBe(403);
    await eventually(async () => {
      const lines = await safetyLines(user.username);
      const declined = lines.filter((l) => l.message === 'Refused: age_check_declined.');
      expect(declined).toHaveLength(1);
      expect(declined[0].detail).toContain(`Age check at persona not passed (declined, ${reference})`);
    });
  }, 120_000);
});
