import { FRONTEND_DIST } from './browser';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const report = require('../scripts/bundle-report.cjs') as {
  readManifest(dist: string): Record<string, { file: string; imports?: string[] }>;
  routeInitialJs(
    manifest: Record<string, { file: string; imports?: string[] }>,
    route: string,
    dist: string,
  ): { files: string[]; gzipBytes: number };
};

const HOME_BUDGET_BYTES = 200_000;

/**
 * The built frontend (the same dist the browser tests use) keeps each route's first download
 * small: sizes come from Vite's build manifest and gzip, so the check is deterministic for a build.
 */
describe('bundle size of the built frontend', () => {
  const manifest = report.readManifest(FRONTEND_DIST);

  it('keeps / under its budget of gzip JavaScript before it renders', () => {
    const home = report.routeInitialJs(manifest, '/', FRONTEND_DIST);
    // 472.6 kB with all of antd in one chunk; 274.9 kB with lazy routes; 225.6 kB with the account
    // menu, the job tray's panel and the clone dialogs loaded on first use; 234.5 kB by issue 54,
    // 155.4 kB without antd's Upload, Tooltip, Typography and App in the first load (ImageDropzone,
    // ThemeToggle's hint, ToolFrame's heading, ToastHost; figures in docs/frontend.md).
    expect(home.gzipBytes).toBeLessThan(HOME_BUDGET_BYTES);
  });

  it('loads the admin chart, the tables and the login form only on the routes that use them', () => {
    const home = report.routeInitialJs(manifest, '/', FRONTEND_DIST).files;
    const logs = report.routeInitialJs(manifest, '/admin/logs', FRONTEND_DIST).files;
    const login = report.routeInitialJs(manifest, '/login', FRONTEND_DIST).files;
    expect(home.some((file) => /FaceSwapChart|AdminLogsPage|Table|LoginPage/.test(file))).toBe(false);
    // Opened by a click, loaded then: the account menu, the job tray's panel, the clone dialogs.
    expect(home.some((file) => /AccountMenuDropdown|JobTrayPanel|JobModal|CloneAmountModal/.test(file))).toBe(
      false,
    );
    expect(logs.some((file) => /AdminLogsPage/.test(file))).toBe(true);
    expect(login.some((file) => /LoginPage/.test(file))).toBe(true);
    // Every route starts from the same entry chunk.
    expect(logs).toEqual(expect.arrayContaining(home));
  });
});
