import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { API_KEY_PREFIX, type CreatedApiKey, type CreatedWebhookEndpoint } from '@studio/contracts';
import { accountIdOf, connectSocket, PASSWORD, signIn, uniqueName, type Client } from '../../test/clients';
import {
  personaSettings,
  personaWebhookUrl,
  startFakePersona,
  type FakePersona,
} from '../../test/fake-persona-server';
import { linkIn, waitForMail } from '../../test/mailbox';
import { startApi, type CapturedOutput } from '../../test/processes';
import { postWebhook, signedEvent, startCheckout, stripeTestConfig } from '../../test/stripe';
import { startTestApp, type TestApp } from '../../test/test-app';
import { WebhookReceiver } from '../../test/webhook-receiver';

/**
 * Issue 52: no secret reaches the log. The real API entry point (backend/api/src/main.ts, so the
 * real LoggingModule) runs as a child process logging every level as JSON to a captured stdout;
 * the flows that carry each kind of secret run against it, and no secret they made may appear in
 * what it wrote, in its metrics or in the activity log.
 */
describe('secrets in logs, metric labels and the activity log', () => {
  let host: TestApp;
  /** The captured API, as the test clients take it (its URL; the host's database and services). */
  let api: TestApp;
  let child: Awaited<ReturnType<typeof startApi>>['child'];
  let output: CapturedOutput;
  let fake: FakePersona;
  let receiver: WebhookReceiver;
  const admin = { username: uniqueName('chief'), password: `admin-${hex(12)}` };
  const metricsToken = `metrics-${hex(16)}`;
  /** Every secret value the flows made or sent, by what it is. */
  const secrets = new Map<string, string>();

  beforeAll(async () => {
    fake = await startFakePersona();
    receiver = await new WebhookReceiver().start();
    const shared = {
      ...stripeTestConfig(),
      ...personaSettings(fake),
      AGE_ASSURANCE: 'required',
      WEBHOOK_ALLOW_LOOPBACK: 'true',
    };
    // The host holds the database and runs no jobs: the captured API runs the worker inside, as
    // `WORKER_INLINE=true npm start` does, so webhook deliveries are made (and logged) there.
    host = await startTestApp({ ...shared, WORKER_INLINE: 'false' });
    const started = await startApi(
      host,
      {
        ...shared,
        WORKER_INLINE: 'true',
        LOG_LEVEL: 'trace',
        LOG_PRETTY: 'false',
        METRICS_TOKEN: metricsToken,
        ADMIN_USERNAME: admin.username,
        ADMIN_PASSWORD: admin.password,
        ...(process.env.TEST_SMTP_URL ? { SMTP_URL: process.env.TEST_SMTP_URL } : {}),
      },
      { capture: true },
    );
    ({ child, output } = started);
    api = { ...host, url: started.url };
    fake.webhookUrl = personaWebhookUrl(api.url);
    for (const [what, value] of Object.entries(stripeTestConfig()).filter(([name]) => /SECRET/.test(name)))
      secrets.set(`setting ${what}`, value);
    for (const [what, value] of Object.entries(personaSettings(fake)).filter(([name]) =>
      /KEY|SECRET/.test(name),
    ))
      secrets.set(`setting ${what}`, value);
    secrets.set('setting METRICS_TOKEN', metricsToken);
    secrets.set('setting ADMIN_PASSWORD', admin.password);
  }, 180_000);
  afterAll(async () => {
    // Only when the test did not get to stop it: 'close' is when its output pipes are closed too.
    if (child && child.exitCode === null && child.signalCode === null) {
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGKILL');
      await closed;
    }
    await host?.close();
    await fake?.close();
    await receiver?.close();
  });

  it('runs every flow that carries a secret, and the log, the metrics and the activity log hold none of them', async () => {
    const email = (name: string) => `${name}@example.com`;
    const keep = (what: string, value: string) => {
      expect(value.length).toBeGreaterThanOrEqual(8);
      secrets.set(what, value);
    };
    const cookieValue = (client: Client) => client.cookie.slice(client.cookie.indexOf('=') + 1);

    // Registration and login: a password in the body, the session cookie set and then sent.
    const user = await signIn(api, uniqueName('secrets'));
    keep('registration password', PASSWORD);
    keep('session cookie', cookieValue(user));
    await connectSocket(api, user.cookie).then((socket) => socket.close());

    // Email verification: the mailed link opened in a browser (token in the query string), and the
    // token posted as the page does; the same token sent to the API in a query string too.
    const verify = linkIn(await waitForMail(email(user.username), /Verify your email/), '/verify-email');
    keep('email verification token', verify.token);
    await request(api.url).get(`/verify-email?token=${verify.token}`);
    await request(api.url).get(`/api/email/verify?token=${verify.token}`);
    expect((await request(api.url).post('/api/email/verify').send({ token: verify.token })).status).toBe(200);

    // A personal API key: made (its secret in the answer), then used as a Bearer token, and sent
    // the way other APIs take keys.
    const made = await user.agent.post('/api/account/api-keys').send({ name: 'logs', scopes: ['read'] });
    expect(made.status).toBe(201);
    const { key, secret: apiKey } = made.body.content as CreatedApiKey;
    expect(apiKey.startsWith(API_KEY_PREFIX)).toBe(true);
    // The preview may be shown (it names the key); the rest of the secret may not.
    keep('API key', apiKey.slice(key.preview.length));
    const withKey = await request(api.url).get('/api/jobs').set('Authorization', `Bearer ${apiKey}`);
    expect(withKey.status).toBe(200);
    await request(api.url).get('/api/jobs').set('X-API-Key', apiKey);
    const mistyped = `${API_KEY_PREFIX}${hex(20)}`;
    keep('mistyped API key', mistyped.slice(key.preview.length));
    expect((await request(api.url).get('/api/jobs').set('Authorization', `Bearer ${mistyped}`)).status).toBe(
      401,
    );

    // A webhook endpoint: its signing secret is in the answer that makes it; its deliveries are signed.
    const endpoint = await user.agent
      .post('/api/account/webhooks')
      .send({ url: receiver.url(`/${user.username}`), events: ['balance.changed'] });
    expect(endpoint.status).toBe(201);
    keep('webhook signing secret', (endpoint.body.content as CreatedWebhookEndpoint).secret);

    // Persona: the age check through the hosted flow; Persona's signed webhooks reach the API.
    const started = await user.agent.post('/api/age-assurance/provider');
    expect(started.status).toBe(200);
    const flow = (started.body.content as { url: string }).url;
    await fetch(flow);
    const answered = await fetch(flow, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'result=adult',
      redirect: 'manual',
    });
    expect(answered.status).toBe(302);
    expect(fake.delivered.map((d) => d.status)).toEqual([200, 200]);
    for (const [i, { signature }] of fake.delivered.entries())
      keep(`Persona-Signature ${i}`, v1Of(signature));

    // Stripe: a checkout (started on the host, which records it), then its signed payment event.
    const buyer = await signIn(host, user.username);
    const sessionId = await startCheckout(host, buyer);
    const paid = signedEvent('checkout.session.completed', {
      id: sessionId,
      payment_status: 'paid',
      metadata: { userId: await accountIdOf(host, user.username), username: user.username, packs: '1' },
    });
    keep('Stripe-Signature', v1Of(paid.header));
    const credited = await postWebhook(api.url, paid);
    expect(credited.status).toBe(200);
    expect(credited.body.content).toMatchObject({ alreadyCredited: false });
    const delivery = await receiver.waitFor((got) => got.find((r) => r.path === `/${user.username}`));
    keep('webhook-signature (sent)', delivery.headers['webhook-signature']!.split(',')[1]!);

    // A Standard Webhooks signature sent to the API (Replicate's route; Replicate is off here).
    const replicateSignature = `v1,${randomBytes(32).toString('base64')}`;
    keep('webhook-signature (received)', replicateSignature.slice(3));
    await request(api.url)
      .post('/api/replicate/webhook')
      .set('webhook-id', `msg_${hex(8)}`)
      .set('webhook-timestamp', String(Math.floor(Date.now() / 1000)))
      .set('webhook-signature', replicateSignature)
      .send({ id: 'p1' });

    // A Patreon secret (refused: no such secret was issued).
    const patreon = `patreon-${hex(12)}`;
    keep('Patreon secret', patreon);
    expect((await user.agent.post('/api/patreonSecret').send({ secret: patreon })).status).toBe(400);

    // Password change: the current and the new password in the body.
    const changed = `changed-${hex(10)}`;
    keep('changed password', changed);
    const change = await user.agent
      .post('/api/account/password')
      .send({ currentPassword: PASSWORD, password: changed });
    expect(change.status).toBe(200);

    // Password reset: the mailed link opened (token in the query string), the token and the new
    // password posted.
    expect(
      (
        await request(api.url)
          .post('/api/password/forgot')
          .send({ email: email(user.username) })
      ).status,
    ).toBe(200);
    const reset = linkIn(await waitForMail(email(user.username), /Reset your password/), '/reset-password');
    keep('password reset token', reset.token);
    await request(api.url).get(`/reset-password?token=${reset.token}`);
    const fresh = `reset-${hex(10)}`;
    keep('reset password', fresh);
    const resetDone = await request(api.url)
      .post('/api/password/reset')
      .send({ token: reset.token, password: fresh });
    expect(resetDone.status).toBe(200);
    const again = await signIn(api, user.username, fresh);
    keep('session cookie after reset', cookieValue(again));

    // Prometheus with its token; the metrics it reads are checked too.
    const metrics = await request(api.url).get('/metrics').set('Authorization', `Bearer ${metricsToken}`);
    expect(metrics.status).toBe(200);

    // The activity log, as an admin reads it.
    const chief = await signIn(api, admin.username, admin.password);
    keep('admin session cookie', cookieValue(chief));
    const logs = await chief.agent.get('/api/admin/logs').query({ pageSize: '100' });
    expect(logs.status).toBe(200);

    // Account deletion: the password in the body of a DELETE.
    expect((await again.agent.delete('/api/account').send({ password: fresh })).status).toBe(200);

    // Everything written: the API stops as in production (SIGTERM), and its output has ended.
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
    const logged = `${output.stdout}\n${output.stderr}`;
    // It did log the requests: the checks below read a real log, not an empty one.
    expect(logged).toContain('"url":"/api/account/api-keys"');
    expect(logged).toContain('"url":"/api/stripe/webhook"');

    const places = { log: logged, metrics: metrics.text, 'activity log': JSON.stringify(logs.body) };
    const leaks = [...secrets].flatMap(([what, value]) =>
      Object.entries(places)
        .filter(([, text]) => text.includes(value))
        .map(([where, text]) => `${what} in the ${where}: …${around(text, value)}…`),
    );
    expect(leaks).toEqual([]);
  }, 180_000);
});

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** The signature itself (v1=…) of a `t=…,v1=…` header. */
function v1Of(header: string): string {
  const v1 = /v1=([0-9a-f]+)/.exec(header)?.[1];
  if (!v1) throw new Error(`no v1 signature in ${header}`);
  return v1;
}

/** Where a value appears, with a little of what surrounds it. */
function around(text: string, value: string): string {
  const at = text.indexOf(value);
  return text.slice(Math.max(0, at - 80), at + value.length + 20);
}
