import type { Browser } from 'playwright-core';
import { SAFETY_REASONS } from '@studio/contracts';
import { PASSWORD, register, uniqueName } from '../../backend/test/clients';
import {
  personaSettings,
  personaWebhookUrl,
  startFakePersona,
  type FakePersona,
} from '../../backend/test/fake-persona-server';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

describe("age check at Persona in the browser (fake Persona's hosted flow and signed webhooks)", () => {
  let t: TestApp;
  let fake: FakePersona;
  let browser: Browser;

  beforeAll(async () => {
    fake = await startFakePersona();
    t = await startTestApp({
      FRONTEND_DIST,
      AGE_ASSURANCE: 'required',
      ...personaSettings(fake),
    });
    fake.webhookUrl = personaWebhookUrl(t.url);
    browser = await launchBrowser();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await fake?.close();
  });

  it('an adult passes through the provider and comes back assured; an under-18 result is refused in plain words', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    try {
      for (const [result, passes] of [
        ['Under 18', false],
        ['Adult', true],
      ] as const) {
        const username = uniqueName('person');
        await register(t, username);
        await logInAs(page, t.url, username, PASSWORD);
        await page.goto(`${t.url}/age-check`);
        await page.getByRole('button', { name: 'Check with Persona (ID or face)' }).click();
        await page.waitForURL((url) => url.href.startsWith(`${fake.url}/verify?inquiry-id=inq_`));
        await page.getByRole('button', { name: result }).click();
        if (passes) {
          await page.getByTestId('age-assured').waitFor();
          expect(await page.getByTestId('age-assured').textContent()).toContain('(age check provider)');
          await screenshot(page, 'age-check-provider-passed');
        } else {
          const error = page.getByTestId('age-check-error');
          await error.getByText(SAFETY_REASONS.age_check_declined).waitFor();
          await screenshot(page, 'age-check-provider-declined');
        }
        await context.clearCookies();
      }
    } finally {
      await context.close();
    }
  }, 180_000);
});
