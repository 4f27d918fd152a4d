import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { FRONTEND_DIST } from './browser';

interface RouteScores {
  path: string;
  finalPath: string;
  performance: number;
  accessibility: number;
  metrics: Record<string, string>;
  accessibilityIssues: string[];
}

/**
 * Lighthouse (npm package, desktop preset) in Debian's chromium on the built frontend served by
 * the real API: / logged out and /profile logged in. The same script prints the figures for
 * `npm run lighthouse -w @studio/frontend`.
 */
describe('Lighthouse on / and /profile', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
  }, 60_000);
  afterAll(() => t?.close());

  it('scores performance and accessibility at least 90', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(__dirname, '../scripts/lighthouse.mjs'), '--base', t.url, '--json'],
      { maxBuffer: 10 * 1024 * 1024 },
    );
    const results = JSON.parse(stdout) as RouteScores[];
    console.log(JSON.stringify(results, null, 1));
    // /profile was audited logged in (not redirected to the home page).
    expect(results.map((r) => r.finalPath)).toEqual(['/', '/profile']);
    for (const route of results) {
      expect({ path: route.path, issues: route.accessibilityIssues }).toEqual({
        path: route.path,
        issues: [],
      });
      expect(route.accessibility).toBeGreaterThanOrEqual(90);
      expect(route.performance).toBeGreaterThanOrEqual(90);
    }
  }, 240_000);
});
