import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { npmStartSettings } from '../../backend/test/npm-start-settings';

/**
 * npm start's settings (deploy/local/settings.sh, sourced by start.sh): the local Stripe webhook
 * secret is drawn at random once per data folder and kept there, never a constant of the
 * repository (whsec_local_studio let anyone sign payment events for any npm start install).
 */
const settingsFor = (dataDir: string) => npmStartSettings(dataDir, 'http://127.0.0.1:12121');

describe('npm start settings (deploy/local/settings.sh)', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const dir = mkdtempSync(join(tmpdir(), 'studio-settings-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('draws the webhook secret once per data folder, keeps it owner-only, and another folder gets another', () => {
    const first = scratch();
    const secret = settingsFor(first).STRIPE_WEBHOOK_SECRET;
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    expect(settingsFor(first).STRIPE_WEBHOOK_SECRET).toBe(secret);
    expect(`whsec_${readFileSync(join(first, 'stripe-webhook-secret'), 'utf8').trim()}`).toBe(secret);
    expect(statSync(join(first, 'stripe-webhook-secret')).mode & 0o777).toBe(0o600);
    expect(settingsFor(scratch()).STRIPE_WEBHOOK_SECRET).not.toBe(secret);
  });

  it('gives a key stripe-mock takes as valid looking, and turns the test checkout on', () => {
    const settings = settingsFor(scratch());
    // stripe-mock refuses sk_test_local_studio: after sk_test_, letters and digits only
    expect(settings.STRIPE_SECRET_KEY).toMatch(/^sk_test_[A-Za-z0-9]+$/);
    expect(settings).toMatchObject({
      STRIPE_TEST_CHECKOUT: 'true',
      STRIPE_API_URL: 'http://127.0.0.1:12121',
    });
  });

  it('is what start.sh uses: no Stripe secret or key is written in start.sh', () => {
    const start = readFileSync(join(__dirname, 'start.sh'), 'utf8');
    expect(start).toContain('source "$(dirname "$0")/settings.sh"');
    expect(start).toContain('studio_payment_settings "$DATA_DIR"');
    expect(start).toContain('studio_app_settings "$DATA_DIR"');
    expect(start).not.toMatch(/whsec_|sk_test_/);
  });
});
