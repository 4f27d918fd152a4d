import request from 'supertest';
import { Messages } from '@studio/contracts';
import { startTestApp, type TestApp } from '../../../test/test-app';

describe("Replicate's webhook on a server without Replicate (real FerretDB, Redis)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('answers 404, not a server error (503), signed or not', async () => {
    for (const headers of [
      {},
      {
        'webhook-id': 'm1',
        'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
        'webhook-signature': 'v1,x',
      },
    ]) {
      const res = await request(t.url)
        .post('/api/replicate/webhook')
        .set('content-type', 'application/json')
        .set(headers)
        .send(JSON.stringify({ id: 'abc', status: 'succeeded' }));
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'error', content: Messages.notFound });
    }
  });
});
