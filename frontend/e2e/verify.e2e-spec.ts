import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import type { JobView } from '@studio/contracts';
import {
  downloadBytes,
  grantCredits,
  PASSWORD,
  signIn,
  uniqueName,
  type Client,
} from '../../backend/test/clients';
import { fixture } from '../../backend/test/fixtures';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');

/** The public /verify page, and the AI labels on a user's outputs, in Chromium. */
describe('verify page and AI labels in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  let alice: Client;
  let job: JobView;
  let marked: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'verify-e2e-'));
    await run('bash', [
      path.join(ROOT, 'deploy', 'local', 'make-signing-cert.sh'),
      path.join(dir, 'ca'),
      'Studio',
    ]);
    t = await startTestApp({
      FRONTEND_DIST,
      JOB_WAIT_MS: '60000',
      PROVENANCE_CERT_CHAIN: path.join(dir, 'ca', 'chain.pem'),
      PROVENANCE_PRIVATE_KEY: path.join(dir, 'ca', 'signer.key'),
      PROVENANCE_PYTHON: path.join(ROOT, '.tools', 'provenance', 'bin', 'python'),
    });
    browser = await launchBrowser();
    alice = await signIn(t, uniqueName('alice'));
    await grantCredits(t, alice.username, 5);
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('amount', '1')
      .attach('original', fixture('cgi-model-3.jpg'), 'model.jpg');
    job = res.body.content.job as JobView;
    expect(job.state).toBe('succeeded');
    marked = path.join(dir, 'clone.png');
    await writeFile(marked, await downloadBytes(alice, job.items[0].url));
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  const drop = async (file: string) => {
    await page.locator('input[type=file]').setInputFiles(file);
  };

  it('anyone (no login) checks a studio output, a re-encoded copy and a file that is not a picture', async () => {
    await page.goto(`${t.url}/verify`);
    await page.getByRole('heading', { name: 'Verify a file' }).waitFor();

    await drop(marked);
    await page
      .getByTestId('verify-manifest')
      .filter({ hasText: 'Signed by this studio, unchanged' })
      .waitFor();
    await page.getByTestId('verify-watermark').filter({ hasText: 'Found: made by this studio' }).waitFor();
    await page.getByText('Clones', { exact: true }).waitFor();
    expect(await page.getByTestId('verify-result').innerText()).not.toContain(alice.username);
    expect(await page.getByTestId('verify-admin').count()).toBe(0);
    await screenshot(page, 'verify-signed');

    // shared as a smaller JPEG: the manifest is gone, the watermark stays
    const copy = path.join(dir, 'shared.jpg');
    await sharp(marked).resize(512).jpeg({ quality: 75 }).toFile(copy);
    await drop(copy);
    await page.getByTestId('verify-manifest').filter({ hasText: 'No content credential' }).waitFor();
    await page.getByTestId('verify-watermark').filter({ hasText: 'Found: made by this studio' }).waitFor();
    await screenshot(page, 'verify-stripped');

    const text = path.join(dir, 'notes.png');
    await writeFile(text, 'not a picture at all');
    await drop(text);
    await page.getByTestId('verify-error').filter({ hasText: 'not a JPEG, PNG or WebP image' }).waitFor();
  }, 120_000);

  it('labels the outputs in the gallery and the lightbox as AI-generated', async () => {
    await logInAs(page, t.url, alice.username, PASSWORD);
    await page.goto(`${t.url}/profile/bulkInpaints/${job.folderId}`);
    const tile = page.getByTestId('content-item').first();
    await tile.getByTestId('ai-label').filter({ hasText: 'AI-generated' }).waitFor();
    await tile.getByRole('button').click();
    await page
      .getByTestId('lightbox-bar')
      .getByTestId('ai-label')
      .filter({ hasText: 'AI-generated' })
      .waitFor();
    await screenshot(page, 'verify-labels-lightbox');
  }, 60_000);
});
