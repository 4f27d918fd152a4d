import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { JobTools } from '@studio/contracts';
import { startTestApp, type TestApp } from '../../../test/test-app';

describe('health and API document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('reports the database, Redis and the mail transport (the test mail catcher) as up', async () => {
    const res = await request(t.url).get('/api/health');
    expect(res.status).toBe(200);
    expect(res.body.content).toMatchObject({ status: 'ok', database: 'up', redis: 'up', mail: 'up' });
    // Every tool's engine: the local one here, nothing remote to probe.
    const engines = res.body.content.engines as { tool: string; kind: string; readiness: string }[];
    expect(engines.map((e) => e.tool)).toEqual([...JobTools]);
    for (const engine of engines) {
      expect(engine.kind).toBe('local');
      expect(['ready', 'not_configured']).toContain(engine.readiness);
    }
  });

  it('reports a mail server that does not answer as down, and no SMTP_URL as mails to the log', async () => {
    const unreachable = await startTestApp({ SMTP_URL: 'smtp://127.0.0.1:1' });
    const logOnly = await startTestApp({ SMTP_URL: '' });
    try {
      const down = (await request(unreachable.url).get('/api/health')).body.content;
      expect(down).toMatchObject({ status: 'degraded', mail: 'down' });
      const log = (await request(logOnly.url).get('/api/health')).body.content;
      expect(log).toMatchObject({ status: 'ok', mail: 'log' });
    } finally {
      await Promise.all([unreachable.close(), logOnly.close()]);
    }
  });

  it('a GPU server that takes connections but never answers is unreachable there, before its own timeout', async () => {
    // Without the deadline the answer waits for the engine's own 5 s status timeout, past the
    // container health check's 5 s.
    // The engine's own timeout would end its status request (the socket closes); the deadline answers first.
    let received = 0;
    let ended = 0;
    const silent = createServer((req) => {
      received += 1;
      req.socket.once('close', () => (ended += 1));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const app = await startTestApp({ ENGINE_GENERATE: 'comfyui', COMFYUI_URL: `http://127.0.0.1:${port}` });
    try {
      const res = await request(app.url).get('/api/health');
      expect({ received: received > 0, ended }).toEqual({ received: true, ended: 0 });
      expect(res.body.content.status).toBe('degraded');
      expect(res.body.content.engines).toContainEqual({
        tool: 'generate',
        kind: 'comfyui',
        readiness: 'unreachable',
      });
    } finally {
      await app.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('lists every endpoint in the OpenAPI document', async () => {
    const res = await request(t.url).get('/api/openapi.json');
    expect(res.status).toBe(200);
    const operations = Object.entries(res.body.paths as Record<string, object>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /api/health',
        'POST /api/register',
        'POST /api/login',
        'POST /api/logout',
        'GET /api/session',
        'GET /api/getProfile/{account}',
        'POST /api/makeFolder',
        'GET /api/getlogs',
        'GET /api/admin/logs',
        'GET /api/admin/stats',
        'GET /api/admin/allowances',
        'GET /api/billing/allowance',
        'GET /api/billing/status',
        'POST /api/createCheckoutSession',
        'GET /api/checkout/{sessionId}',
        'POST /api/createPortalSession',
        'POST /api/stripe/webhook',
        'GET /api/stripe/test-checkout/{sessionId}',
        'POST /api/stripe/test-checkout/{sessionId}/pay',
        'GET /api/credits/history',
        'POST /api/patreonSecret',
        'GET /api/support/users/{username}/credits',
        'POST /api/support/reimburse',
        'POST /api/support/reimburse/tool/preview',
        'POST /api/support/reimburse/tool',
        'POST /api/admin/credits/grant',
        'POST /api/admin/credits/adjust',
        'GET /api/admin/credits/approvals',
        'POST /api/admin/credits/approvals/{id}',
        'POST /api/admin/patreonSecrets',
        'GET /api/getBulkInpaints/{id}',
        'PATCH /api/folders/{id}',
        'DELETE /api/folders/{id}',
        'GET /api/deleteGen/{itemId}',
        'DELETE /api/content/{itemId}',
        'GET /api/content/{file}',
        'POST /api/downloadContent',
        'POST /api/generateNoise',
        'POST /api/superResolution',
        'POST /api/faceSwap',
        'POST /api/faceSwap/check',
        'GET /api/jobs',
        'GET /api/jobs/{id}',
        'GET /api/jobs/history',
        'POST /api/jobs/{id}/cancel',
        'POST /api/jobs/batches/{batchId}/cancel',
        'POST /api/jobs/{id}/retry',
        'GET /api/jobs/{id}/inputs/{index}',
        'POST /api/inpaintImage',
        'POST /api/bulkInpaintImage',
        'POST /api/generateImage',
        'POST /api/faceSwapVideo',
        'POST /api/faceSwapVideo/check',
        'GET /api/operations',
        // the public verify page (modules/provenance)
        'POST /api/verify',
        // Prometheus, outside the API prefix (modules/metrics)
        'GET /metrics',
        'PUT /api/admin/notices/{tool}',
        'PUT /api/admin/flags',
        'GET /api/admin/engines',
        'POST /api/replicate/webhook',
        'GET /api/support/users',
        'POST /api/admin/content/{itemId}/takedown',
        'PUT /api/admin/users/{username}/badges',
        'PUT /api/admin/users/{username}/role',
        'DELETE /api/admin/users/{username}/suspension',
        'GET /api/account',
        'POST /api/account/verification',
        'POST /api/email/verify',
        'POST /api/password/forgot',
        'POST /api/password/reset',
        'POST /api/account/password',
        'GET /api/account/export',
        'DELETE /api/account',
        'GET /api/account/sessions',
        'POST /api/account/sessions/logout-others',
        'DELETE /api/account/sessions/{id}',
        // personal API keys (issue 41)
        'GET /api/account/api-keys',
        'POST /api/account/api-keys',
        'DELETE /api/account/api-keys/{keyId}',
        'GET /api/account/api-keys/usage',
        'GET /api/account/webhooks',
        'POST /api/account/webhooks',
        'PATCH /api/account/webhooks/{endpointId}',
        'DELETE /api/account/webhooks/{endpointId}',
        'GET /api/account/webhooks/deliveries',
        'POST /api/account/webhooks/deliveries/{deliveryId}/replay',
        // age assurance and moderation (issue 37)
        'GET /api/age-assurance',
        'POST /api/age-assurance/card',
        'POST /api/age-assurance/card/{sessionId}/complete',
        'POST /api/age-assurance/card/{sessionId}/test-card',
        'POST /api/age-assurance/provider',
        'POST /api/age-assurance/provider/{reference}/complete',
        'POST /api/age-assurance/persona/webhook',
        'GET /api/support/users/{username}/age-assurance',
        'POST /api/support/users/{username}/age-assurance',
        'GET /api/moderation/held',
        'GET /api/moderation/held/{itemId}/file',
        'POST /api/moderation/held/{itemId}/release',
        'POST /api/moderation/held/{itemId}/remove',
        // notice and removal (issue 38, modules/takedown)
        'POST /api/reports',
        'POST /api/reports/appeals/{itemId}',
        'GET /api/admin/reports',
        'GET /api/admin/reports/transparency',
        'GET /api/admin/reports/transparency.csv',
        'GET /api/admin/reports/{id}',
        'GET /api/admin/reports/{id}/file',
        'POST /api/admin/reports/{id}/decision',
        'POST /api/admin/reports/{id}/appeals/{itemId}/decision',
      ].sort(),
    );
    const docs = await request(t.url).get('/api/docs');
    expect(docs.status).toBe(200);
    expect(docs.text).toContain('swagger');
  });

  it('sends security headers', async () => {
    const res = await request(t.url).get('/api/health');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
