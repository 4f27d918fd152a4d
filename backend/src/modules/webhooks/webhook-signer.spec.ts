import { Webhook } from 'standardwebhooks';
import { WEBHOOK_SECRET_PREFIX } from '@studio/contracts';
import { newWebhookSecret, signWebhook, webhookHeaders } from './webhook-signer';

describe('the webhook signer (Standard Webhooks)', () => {
  it('makes secrets of whsec_ and the base64 of 32 random bytes', () => {
    const secret = newWebhookSecret();
    expect(secret.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('signs as the reference library verifies and signs', () => {
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      type: 'job.succeeded',
      timestamp: new Date().toISOString(),
      data: { jobId: 'j' },
    });
    const headers = webhookHeaders(secret, 'msg_abc', body);
    const reference = new Webhook(secret);
    expect(reference.verify(body, headers)).toEqual(JSON.parse(body));
    const at = new Date(Number(headers['webhook-timestamp']) * 1000);
    expect(headers['webhook-signature']).toBe(reference.sign('msg_abc', at, body));
    // A changed byte, another id or another secret fails.
    expect(() => reference.verify(body.replace('j', 'k'), headers)).toThrow();
    expect(() => reference.verify(body, { ...headers, 'webhook-id': 'msg_abd' })).toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
  });

  it('matches a signature computed by hand from the specification', () => {
    // HMAC-SHA256 under the secret's decoded bytes, of "id.timestamp.body", base64, after "v1,".
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });
});
