import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { CreatedWebhookEndpoint } from '@studio/contracts';
import { grantCredits, signIn, uniqueName } from '../../../test/clients';
import { freePort } from '../../../test/processes';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * docs/examples/clone-with-webhook.mjs, the script docs/api.md shows, run as a user would run it:
 * a key and an endpoint made on the account API, then the script uploads, runs a clone with the
 * real local engine, waits for the signed webhook (checking its signature itself) and downloads.
 */
describe('the webhook example script', () => {
  let t: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'webhook-example-'));

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_LOOPBACK: 'true' });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('uploads, runs a clone, waits for its webhook and saves the output', async () => {
    const owner = await signIn(t, uniqueName('script'));
    await grantCredits(t, owner.username, 5);
    const key = await owner.agent
      .post('/api/account/api-keys')
      .send({ name: 'example', scopes: ['read', 'tools'] });
    expect(key.status).toBe(201);
    const port = await freePort();
    const endpoint = await owner.agent
      .post('/api/account/webhooks')
      .send({ url: `http://127.0.0.1:${port}/`, events: ['job.succeeded', 'job.failed'] });
    expect(endpoint.status).toBe(201);
    const { secret } = endpoint.body.content as CreatedWebhookEndpoint;

    const input = join(dir, 'in.png');
    const output = join(dir, 'out.png');
    writeFileSync(
      input,
      await sharp({ create: { width: 96, height: 96, channels: 3, background: '#4a7' } })
        .png()
        .toBuffer(),
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(__dirname, '../../../../docs/examples/clone-with-webhook.mjs'), input, output],
      {
        env: {
          ...process.env,
          STUDIO_URL: t.url,
          STUDIO_KEY: key.body.content.secret,
          STUDIO_WEBHOOK_SECRET: secret,
          WEBHOOK_PORT: String(port),
        },
        timeout: 150_000,
      },
    );
    expect(stdout).toContain('waiting for its webhook');
    expect(stdout).toContain(`saved ${output}`);
    expect(await sharp(output).metadata()).toMatchObject({ format: 'png', width: 96, height: 96 });
  }, 180_000);
});
