import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { Browser, Page } from 'playwright-core';
import { eventually, grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { confirmation, dismissToasts, FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

/**
 * Issue 41: a key made on the account page runs a clone from a script (plain fetch, no cookie),
 * the usage part of the page shows it, and once revoked the script is refused.
 */
describe('personal API keys, from the account page to a script and back', () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const username = uniqueName('script');

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    await register(t, username);
    await grantCredits(t, username, 10);
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1366, height: 900 } });
    await logInAs(page, t.url, username, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** What a user's script does: the key in a header, nothing else of the browser's. */
  const script = (secret: string) => ({
    get: (path: string) => fetch(`${t.url}${path}`, { headers: { Authorization: `Bearer ${secret}` } }),
    clone: async (image: Buffer) => {
      const form = new FormData();
      form.set('author', username);
      form.set('amount', '1');
      form.set('original', new Blob([image], { type: 'image/png' }), 'in.png');
      return fetch(`${t.url}/api/generateNoise`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${secret}`, 'Idempotency-Key': `clone-${Date.now()}` },
        body: form,
      });
    },
  });

  it('makes a key, runs a clone with it from a script, shows the use, and stops it when revoked', async () => {
    await page.goto(`${t.url}/account`);
    await page.getByRole('button', { name: 'New key' }).click();
    const dialog = page.getByRole('dialog', { name: 'New API key' });
    await dialog.getByLabel('Name', { exact: true }).fill('Nightly clones');
    await dialog.getByRole('button', { name: 'Make key' }).click();
    const shown = page.getByTestId('api-key-secret');
    await shown.waitFor();
    const secret = (await shown.locator('code').innerText()).trim();
    expect(secret).toMatch(/^sk_studio_[A-Za-z0-9_-]{43}$/);
    await screenshot(page, 'api-key-made');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    await dismissToasts(page);

    const run = script(secret);
    const image = await sharp({ create: { width: 48, height: 48, channels: 3, background: '#3a7' } })
      .png()
      .toBuffer();
    const answer = await run.clone(image);
    expect(answer.status).toBe(200);
    const { job } = ((await answer.json()) as { content: { job: { _id: string } } }).content;
    const done = await eventually(async () => {
      const res = await run.get(`/api/jobs/${job._id}`);
      const view = ((await res.json()) as { content: { state: string; items: { url: string }[] } }).content;
      expect(view.state).toBe('succeeded');
      return view;
    }, 120_000);
    const output = await run.get(done.items[0].url);
    expect(output.status).toBe(200);
    expect((await sharp(Buffer.from(await output.arrayBuffer())).metadata()).format).toBe('png');
    // The complete script of docs/api.md, as a user runs it: upload, run, wait, download.
    const dir = mkdtempSync(join(tmpdir(), 'api-script-'));
    writeFileSync(join(dir, 'in.png'), image);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(__dirname, '../../docs/examples/clone-with-key.mjs'), join(dir, 'in.png'), join(dir, 'out.png')],
      { env: { ...process.env, STUDIO_URL: t.url, STUDIO_KEY: secret }, timeout: 150_000 },
    );
    expect(stdout).toContain(`saved ${join(dir, 'out.png')}`);
    expect(await sharp(join(dir, 'out.png')).metadata()).toMatchObject({ format: 'png' });

    await page.reload();
    const row = page.getByTestId('api-key').filter({ hasText: 'Nightly clones' });
    await row.getByText('2 coins spent this month (no cap)').waitFor();
    const usage = page.getByTestId('api-key-usage');
    await usage
      .getByRole('row')
      .filter({ hasText: 'Nightly clones' })
      .filter({ hasText: 'Clones' })
      .waitFor();
    await usage.locator('canvas').first().waitFor();
    await screenshot(page, 'api-key-usage');

    await row.getByRole('button', { name: 'Revoke Nightly clones' }).click();
    await confirmation(page).getByRole('button', { name: 'Revoke' }).click();
    await row.getByText('Revoked').waitFor();
    expect((await run.get('/api/jobs')).status).toBe(401);
    await screenshot(page, 'api-key-revoked');
  }, 240_000);
});
