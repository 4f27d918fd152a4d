import type { Browser, Page } from 'playwright-core';
import {
  startFakeComfyUI,
  startFakeReplicate,
  type FakeComfyUIServer,
  type FakeReplicateServer,
} from '@studio/inference';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

/**
 * Generate in the browser with the GPU engine on a remote server: ComfyUI, then Replicate, each a
 * fake that speaks its real HTTP API. One credit is charged, the picture shows in the job modal.
 */
describe('Generate on remote GPU engines in the browser', () => {
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  async function generateOnce(t: TestApp, name: string): Promise<Page> {
    const username = uniqueName(name);
    await register(t, username);
    await grantCredits(t, username, 5);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await logInAs(page, t.url, username, PASSWORD);
    await page.goto(`${t.url}/generate`);
    await page.getByTestId('balance').filter({ hasText: '5' }).waitFor();
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/generateImage'));
    await page.getByRole('button', { name: /Generate/ }).click();
    expect((await answered).status()).toBe(200);
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('img[alt="Generated image"]');
      return !!img && img.complete && img.naturalWidth === 512;
    });
    await page.getByTestId('balance').filter({ hasText: '4' }).waitFor();
    return page;
  }

  describe('ComfyUI', () => {
    let t: TestApp;
    let fake: FakeComfyUIServer;

    beforeAll(async () => {
      fake = await startFakeComfyUI();
      t = await startTestApp({
        FRONTEND_DIST,
        ENGINE_GENERATE: 'comfyui',
        COMFYUI_URL: fake.url,
        JOB_WAIT_MS: '30000',
      });
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await fake?.close();
    });

    it('generates a picture through the ComfyUI workflow and charges one credit', async () => {
      fake.delayMs = 300;
      const page = await generateOnce(t, 'comfy');
      expect(fake.prompts()).toHaveLength(1);
      await screenshot(page, 'generate-comfyui');
      await page.context().close();
    }, 120_000);
  });

  describe('Replicate', () => {
    let t: TestApp;
    let fake: FakeReplicateServer;

    beforeAll(async () => {
      fake = await startFakeReplicate({ token: 'r8_e2e', versions: { e2egen: 'generate' } });
      t = await startTestApp({
        FRONTEND_DIST,
        ENGINE_GENERATE: 'replicate',
        REPLICATE_API_TOKEN: 'r8_e2e',
        REPLICATE_API_URL: fake.url,
        REPLICATE_MODEL_GENERATE: 'stability-ai/sdxl:e2egen',
        JOB_WAIT_MS: '30000',
      });
    }, 120_000);
    afterAll(async () => {
      await t?.close();
      await fake?.close();
    });

    it('generates a picture through a Replicate prediction and charges one credit', async () => {
      fake.delayMs = 300;
      const page = await generateOnce(t, 'replic');
      expect(fake.requestsTo(/^POST \/v1\/predictions$/)).toHaveLength(1);
      await screenshot(page, 'generate-replicate');
      await page.context().close();
    }, 120_000);
  });
});
