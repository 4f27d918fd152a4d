import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const SETTINGS_SCRIPT = join(__dirname, '../../deploy/local/settings.sh');

/**
 * The settings `npm start` gives the app (deploy/local/settings.sh, which start.sh sources) for a
 * data folder and a stripe-mock address: its Stripe key, webhook secret, test checkout flag,
 * allowance, admin and secrets. Run with only PATH, so nothing of the test's environment leaks in.
 */
export function npmStartSettings(dataDir: string, stripeApiUrl: string): Record<string, string> {
  const printed = execFileSync('bash', [SETTINGS_SCRIPT, dataDir, stripeApiUrl], {
    env: { PATH: process.env.PATH },
  }).toString();
  return Object.fromEntries(
    printed
      .split('\0')
      .filter(Boolean)
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}
