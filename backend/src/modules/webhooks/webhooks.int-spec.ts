import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import {
  ApiKeyMessages,
  JobTools,
  WebhookMessages,
  type CreatedWebhookEndpoint,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookEventType,
  webhookWindowText,
} from '@studio/contracts';
import type { AuthUser } from '../auth';
import { EngineRegistry } from '../engines';
import { WebhookEndpoint } from './webhook.schema';
import { newWebhookSecret } from './webhook-signer';
import {
  accountIdOf,
  eventually,
  grantCredits,
  PASSWORD,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { waitForMail } from '../../../test/mailbox';
import { jobEnd, ScriptedEngine, submitToolJob } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { WebhookReceiver, type ReceivedWebhook } from '../../../test/webhook-receiver';

/** Issue 41: signed webhooks through the real API (FerretDB, Redis, the worker inline). */
describe('signed webhooks', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;
  const engine = new ScriptedEngine();

  beforeAll(async () => {
    // Test receivers are on 127.0.0.1 (allowed by the setting); retries 50 ms apart, growing, for 3 s.
    t = await startTestApp({
      WEBHOOK_ALLOW_LOOPBACK: 'true',
      WEBHOOK_RETRY_FIRST_DELAY_MS: '50',
      WEBHOOK_RETRY_WINDOW_MS: '3000',
      WEBHOOK_TIMEOUT_MS: '2000',
      JOB_WAIT_MS: '0',
    });
    for (const tool of JobTools) t.app.get(EngineRegistry).override(tool, engine);
    receiver = await new WebhookReceiver().start();
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });
  beforeEach(() => {
    engine.next = 'ok';
    receiver.answer = () => 200;
  });

  const register = async (
    owner: Client,
    events: WebhookEventType[],
    url = receiver.url(`/${owner.username}`),
  ) => {
    const res = await owner.agent.post('/api/account/webhooks').send({ url, events });
    expect(res.status).toBe(201);
    return res.body.content as CreatedWebhookEndpoint;
  };
  const userOf = async (owner: Client, credits = 0): Promise<AuthUser> => ({
    id: await grantCredits(t, owner.username, Math.max(1, credits)),
    username: owner.username,
    role: 'user',
  });
  const pathOf = (r: Pick<ReceivedWebhook, 'path'>) => r.path;
  const deliveries = async (owner: Client) => {
    const res = await owner.agent.get('/api/account/webhooks/deliveries');
    expect(res.status).toBe(200);
    return res.body.content as WebhookDeliveryView[];
  };

  it('registers an endpoint with a secret shown once, and signs deliveries as the Standard Webhooks library verifies', async () => {
    const owner = await signIn(t, uniqueName('hook'));
    const { endpoint, secret } = await register(owner, ['balance.changed', 'job.succeeded']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(endpoint).toMatchObject({ enabled: true, events: ['balance.changed', 'job.succeeded'] });
    const listed = await owner.agent.get('/api/account/webhooks');
    expect(listed.body.content).toEqual([expect.objectContaining({ id: endpoint.id })]);
    expect(JSON.stringify(listed.body)).not.toContain(secret.slice(10));

    const user = await userOf(owner, 5);
    const job = await submitToolJob(t, user, 'clone');
    expect((await jobEnd(t, user, job._id)).state).toBe('succeeded');
    const got = await receiver.waitFor((all) => {
      const mine = all.filter((r) => pathOf(r) === `/${owner.username}`);
      return mine.some((r) => r.json.type === 'job.succeeded') && mine.length >= 3 ? mine : undefined;
    });
    const verifier = new Webhook(secret);
    for (const delivery of got) {
      expect(delivery.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(verifier.verify(delivery.body, delivery.headers)).toEqual(delivery.json);
      expect(delivery.headers['content-type']).toBe('application/json');
    }
    // Signed with this endpoint's secret only.
    expect(() => new Webhook(newWebhookSecret()).verify(got[0].body, got[0].headers)).toThrow();
    const grant = got.find((r) => r.json.type === 'balance.changed' && r.json.data.kind === 'grant')!;
    expect(grant.json.data).toMatchObject({ balance: 5, delta: 5, reason: 'test grant' });
    const done = got.find((r) => r.json.type === 'job.succeeded')!;
    expect(done.json.data).toEqual({
      jobId: job._id,
      tool: 'clone',
      state: 'succeeded',
      cost: job.cost,
      outputs: 1,
    });
    expect(
      got.find((r) => r.json.type === 'balance.changed' && r.json.data.jobId === job._id)?.json.data.delta,
    ).toBe(-job.cost);
    const list = await deliveries(owner);
    expect(list.every((d) => d.status === 'delivered' && d.attempts === 1 && d.lastStatusCode === 200)).toBe(
      true,
    );
  });

  it('retries after the receiver answers 500 twice: the third attempt is delivered, same webhook-id', async () => {
    const owner = await signIn(t, uniqueName('retry'));
    const { secret } = await register(owner, ['balance.changed']);
    let failures = 0;
    receiver.answer = (r) => (pathOf(r) === `/${owner.username}` && failures++ < 2 ? 500 : 200);
    await grantCredits(t, owner.username, 3);
    const attempts = await receiver.waitFor((all) => {
      const mine = all.filter((r) => pathOf(r) === `/${owner.username}`);
      return mine.some((r) => r.status === 200) ? mine : undefined;
    });
    expect(attempts.map((r) => r.status)).toEqual([500, 500, 200]);
    expect(new Set(attempts.map((r) => r.id)).size).toBe(1);
    // Each attempt is signed anew, and verifies.
    for (const attempt of attempts)
      expect(new Webhook(secret).verify(attempt.body, attempt.headers)).toBeTruthy();
    const [delivery] = await eventually(async () => {
      const list = await deliveries(owner);
      expect(list[0]).toMatchObject({ status: 'delivered', attempts: 3, lastStatusCode: 200 });
      return list;
    });
    expect(delivery.type).toBe('balance.changed');
  });

  it("sends a job's deliveries in order: the second waits while the first is being retried", async () => {
    const owner = await signIn(t, uniqueName('order'));
    await register(owner, ['balance.changed', 'job.cancelled', 'job.failed', 'job.succeeded']);
    const user = await userOf(owner, 5);
    // Wait for the grant's delivery, so what follows is the job's alone.
    await receiver.waitFor((all) => all.some((r) => pathOf(r) === `/${owner.username}`));
    // The job's first delivery (its charge) fails three times.
    let reservationFailures = 0;
    receiver.answer = (r) =>
      pathOf(r) === `/${owner.username}` &&
      r.json.type === 'balance.changed' &&
      Number(r.json.data.delta) < 0 &&
      reservationFailures++ < 3
        ? 500
        : 200;
    engine.next = 'hold';
    const job = await submitToolJob(t, user, 'clone');
    // The job ends (cancelled, refunded) while its first delivery is failing.
    await receiver.waitFor((all) => all.some((r) => r.json.data.jobId === job._id && r.status === 500));
    expect((await owner.agent.post(`/api/jobs/${job._id}/cancel`)).status).toBe(200);
    const ofJob = await receiver.waitFor((all) => {
      const mine = all.filter((r) => r.json.data.jobId === job._id);
      return mine.some((r) => r.json.type === 'job.cancelled') ? mine : undefined;
    });
    const sequence = ofJob.map((r) => `${r.json.type}:${String(r.json.data.delta ?? '')}:${r.status}`);
    expect(sequence).toEqual([
      `balance.changed:${-job.cost}:500`,
      `balance.changed:${-job.cost}:500`,
      `balance.changed:${-job.cost}:500`,
      `balance.changed:${-job.cost}:200`,
      `balance.changed:${job.cost}:200`,
      'job.cancelled::200',
    ]);
    expect(ofJob[5].json.data).toMatchObject({ state: 'cancelled', refunded: job.cost, by: 'owner' });
  });

  it('replays a delivery from the account page: same webhook-id, a fresh signature', async () => {
    const owner = await signIn(t, uniqueName('replay'));
    const { secret } = await register(owner, ['balance.changed']);
    await grantCredits(t, owner.username, 2);
    const [first] = await receiver.waitFor((all) => {
      const mine = all.filter((r) => pathOf(r) === `/${owner.username}`);
      return mine.length ? mine : undefined;
    });
    const [delivery] = await eventually(async () => {
      const list = await deliveries(owner);
      expect(list[0]?.status).toBe('delivered');
      return list;
    });
    const replayed = await owner.agent.post(`/api/account/webhooks/deliveries/${delivery.id}/replay`);
    expect(replayed.status).toBe(200);
    const again = await receiver.waitFor((all) => {
      const mine = all.filter((r) => pathOf(r) === `/${owner.username}`);
      return mine.length >= 2 ? mine[1] : undefined;
    });
    expect(again.id).toBe(first.id);
    expect(again.body).toBe(first.body);
    expect(new Webhook(secret).verify(again.body, again.headers)).toEqual(first.json);
    await eventually(async () => {
      expect((await deliveries(owner))[0]).toMatchObject({
        id: delivery.id,
        status: 'delivered',
        attempts: 1,
      });
    });
    // Another user can neither replay it nor see it.
    const other = await signIn(t, uniqueName('stranger'));
    expect((await other.agent.post(`/api/account/webhooks/deliveries/${delivery.id}/replay`)).status).toBe(
      404,
    );
    expect(await deliveries(other)).toEqual([]);
  });

  it('switches an endpoint off after its deliveries fail for the whole window, mails the owner, and replays once it is on again', async () => {
    const owner = await signIn(t, uniqueName('failing'));
    const { endpoint } = await register(owner, ['balance.changed']);
    let up = false;
    receiver.answer = (r) => (pathOf(r) === `/${owner.username}` && !up ? 500 : 200);
    await grantCredits(t, owner.username, 2);
    const off = await eventually(async () => {
      const [view] = (await owner.agent.get('/api/account/webhooks')).body.content as WebhookEndpointView[];
      expect(view.enabled).toBe(false);
      return view;
    }, 30_000);
    expect(off.disabledReason).toBe(WebhookMessages.switchedOff(webhookWindowText(3000)));
    const [given] = await deliveries(owner);
    expect(given.status).toBe('failed');
    expect(given.attempts).toBeGreaterThanOrEqual(3);
    expect(given.lastStatusCode).toBe(500);
    const mail = await waitForMail(`${owner.username}@example.com`, /webhook endpoint was switched off/);
    expect(mail.text ?? '').toContain(endpoint.url);
    // No replay while it is off; on again, the replay is delivered.
    expect((await owner.agent.post(`/api/account/webhooks/deliveries/${given.id}/replay`)).status).toBe(409);
    up = true;
    const on = await owner.agent.patch(`/api/account/webhooks/${endpoint.id}`).send({ enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.content).toMatchObject({ enabled: true });
    expect(on.body.content.disabledReason).toBeUndefined();
    expect((await owner.agent.post(`/api/account/webhooks/deliveries/${given.id}/replay`)).status).toBe(200);
    await receiver.waitFor((all) => all.some((r) => r.id === given.id && r.status === 200));
  });

  it('lets only the owner manage an endpoint (404 for another user) and no API key at all', async () => {
    const owner = await signIn(t, uniqueName('mine'));
    const { endpoint } = await register(owner, ['job.failed']);
    const other = await signIn(t, uniqueName('notmine'));
    expect((await other.agent.get('/api/account/webhooks')).body.content).toEqual([]);
    expect(
      (await other.agent.patch(`/api/account/webhooks/${endpoint.id}`).send({ enabled: false })).status,
    ).toBe(404);
    expect((await other.agent.delete(`/api/account/webhooks/${endpoint.id}`)).status).toBe(404);
    expect(
      (await other.agent.get('/api/account/webhooks/deliveries').query({ endpointId: endpoint.id })).status,
    ).toBe(404);
    expect(
      (await other.agent.post('/api/account/webhooks/deliveries/msg_aaaaaaaaaaaaaaaaaaaaaaaaaaa/replay'))
        .status,
    ).toBe(404);
    // A key with every scope is refused on every webhook route (decided in docs/api.md).
    const made = await owner.agent
      .post('/api/account/api-keys')
      .send({ name: 'all', scopes: ['read', 'tools', 'folders'] });
    const key = made.body.content.secret as string;
    const withKey = (method: 'get' | 'post' | 'patch' | 'delete', path: string) =>
      request(t.url)[method](path).set('Authorization', `Bearer ${key}`);
    for (const [method, path] of [
      ['get', '/api/account/webhooks'],
      ['post', '/api/account/webhooks'],
      ['patch', `/api/account/webhooks/${endpoint.id}`],
      ['delete', `/api/account/webhooks/${endpoint.id}`],
      ['get', '/api/account/webhooks/deliveries'],
      ['post', '/api/account/webhooks/deliveries/msg_aaaaaaaaaaaaaaaaaaaaaaaaaaa/replay'],
    ] as const) {
      const res = await withKey(method, path).send({ url: 'https://example.com/x', events: ['job.failed'] });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
      expect(res.body.content).toBe(ApiKeyMessages.scope(undefined));
    }
    // The owner switches it off and deletes it.
    const offByOwner = await owner.agent
      .patch(`/api/account/webhooks/${endpoint.id}`)
      .send({ enabled: false });
    expect(offByOwner.body.content).toMatchObject({
      enabled: false,
      disabledReason: WebhookMessages.switchedOffByOwner,
    });
    expect((await owner.agent.delete(`/api/account/webhooks/${endpoint.id}`)).status).toBe(200);
    expect((await owner.agent.get('/api/account/webhooks')).body.content).toEqual([]);
  });

  it('tells the page that this (local) install also takes receivers on this machine', async () => {
    const owner = await signIn(t, uniqueName('localhook'));
    expect((await owner.agent.get('/api/account/webhooks/settings')).body.content).toEqual({
      localReceivers: true,
    });
  });

  it('refuses bad registrations with 400, and private addresses with 422, even with the local setting', async () => {
    const owner = await signIn(t, uniqueName('badhook'));
    for (const body of [
      { url: 'https://example.com/x', events: [] },
      { url: 'https://example.com/x', events: ['job.exploded'] },
      { url: '', events: ['job.failed'] },
      { events: ['job.failed'] },
    ]) {
      const res = await owner.agent.post('/api/account/webhooks').send(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
    for (const url of [
      'https://10.0.0.1/hook',
      'http://192.168.1.1/',
      'https://169.254.169.254/latest',
      'http://0.0.0.0:1/',
      'ftp://127.0.0.1/',
    ]) {
      const res = await owner.agent.post('/api/account/webhooks').send({ url, events: ['job.failed'] });
      expect({ url, status: res.status }).toEqual({ url, status: 422 });
      expect(typeof res.body.content).toBe('string');
    }
    expect((await owner.agent.get('/api/account/webhooks')).body.content).toEqual([]);
  });

  it('forgets the endpoints of a deleted account', async () => {
    const owner = await signIn(t, uniqueName('gonehook'));
    const { endpoint } = await register(owner, ['job.failed']);
    expect((await owner.agent.delete('/api/account').send({ password: PASSWORD })).status).toBe(200);
    const endpoints = t.app.get(getModelToken(WebhookEndpoint.name)) as Model<WebhookEndpoint>;
    await eventually(async () => {
      expect(await endpoints.countDocuments({ _id: new Types.ObjectId(endpoint.id) })).toBe(0);
    });
  });

  describe('with production settings (no loopback setting)', () => {
    let prod: TestApp;
    beforeAll(async () => {
      prod = await startTestApp({ WEBHOOK_RETRY_FIRST_DELAY_MS: '50', WEBHOOK_RETRY_WINDOW_MS: '600000' });
    }, 60_000);
    afterAll(async () => {
      await prod?.close();
    });

    it('refuses http, 127.0.0.1, 10.0.0.1, localhost and the other non-public addresses at registration with a clear 422', async () => {
      const owner = await signIn(prod, uniqueName('prodhook'));
      const cases: [string, string | RegExp][] = [
        [receiver.url(), WebhookMessages.httpsOnly],
        [`https://127.0.0.1:${receiver.port}/hook`, WebhookMessages.notPublic('127.0.0.1')],
        ['https://10.0.0.1/hook', WebhookMessages.notPublic('10.0.0.1')],
        ['https://localhost/hook', /private network/],
        ['https://[::1]/hook', WebhookMessages.notPublic('::1')],
        ['https://[::ffff:127.0.0.1]/hook', /private network/],
        // issue 52: IPv4-translated IPv6 (::ffff:0:0/96) was let through
        ['https://[::ffff:0:7f00:1]/', WebhookMessages.notPublic('::ffff:0:7f00:1')],
        ['https://[::ffff:0:127.0.0.1]/hook', WebhookMessages.notPublic('::ffff:0:7f00:1')],
        ['https://2130706433/hook', WebhookMessages.notPublic('127.0.0.1')],
        ['https://[fd00::1]/hook', /private network/],
        ['https://169.254.169.254/', WebhookMessages.notPublic('169.254.169.254')],
      ];
      for (const [url, message] of cases) {
        const res = await owner.agent
          .post('/api/account/webhooks')
          .send({ url, events: ['balance.changed'] });
        expect({ url, status: res.status }).toEqual({ url, status: 422 });
        expect(res.body.content).toMatch(message);
      }
      expect((await owner.agent.get('/api/account/webhooks')).body.content).toEqual([]);
      // The page is told so before anything is typed.
      expect((await owner.agent.get('/api/account/webhooks/settings')).body.content).toEqual({
        localReceivers: false,
      });
    });

    it('checks the address again at delivery (a name that points inside later): nothing reaches 127.0.0.1 or 10.0.0.1', async () => {
      const owner = await signIn(prod, uniqueName('rebind'));
      const endpoints = prod.app.get(getModelToken(WebhookEndpoint.name)) as Model<WebhookEndpoint>;
      // The id without a grant: a grant's balance.changed, fanned out late on a busy machine, found
      // the first endpoint created below and made it a fourth delivery (a loaded run failed so).
      const ownerId = await accountIdOf(prod, owner.username);
      const connectionsBefore = receiver.connections;
      // As if registered while these pointed at public addresses (DNS rebinding).
      for (const url of [
        `https://127.0.0.1:${receiver.port}/x`,
        `https://localhost:${receiver.port}/x`,
        'https://10.0.0.1/x',
      ]) {
        await endpoints.create({
          owner: new Types.ObjectId(ownerId),
          url,
          events: ['balance.changed'],
          secret: newWebhookSecret(),
          enabled: true,
        });
      }
      await grantCredits(prod, owner.username, 1);
      const list = await eventually(async () => {
        const res = await owner.agent.get('/api/account/webhooks/deliveries');
        const attempted = (res.body.content as WebhookDeliveryView[]).filter((d) => d.attempts > 0);
        expect(attempted).toHaveLength(3);
        expect(new Set(attempted.map((d) => d.endpointId)).size).toBe(3);
        return attempted;
      });
      for (const delivery of list) {
        expect(delivery.lastError).toMatch(/private network/);
        expect(delivery.lastStatusCode).toBeUndefined();
      }
      expect(receiver.connections).toBe(connectionsBefore);
    });
  });
});
