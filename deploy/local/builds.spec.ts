import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * npm start's reuse of builds (deploy/local/lib.sh): a workspace is built again exactly when the
 * content hash of what it is built from changes, and a dependency's change reaches its dependents.
 * ensure_builds runs here on a scratch copy of the hashed files, with `npm` replaced by a recorder.
 */
const lib = join(__dirname, 'lib.sh');
const sources = [
  'package-lock.json',
  'tsconfig.json',
  'nest-cli.json',
  'libs/contracts/src/index.ts',
  'libs/contracts/package.json',
  'libs/inference/src/index.ts',
  'libs/inference/package.json',
  'backend/src/main.ts',
  'backend/api/src/main.ts',
  'backend/worker/src/main.ts',
  'backend/package.json',
  'backend/tsconfig.build.json',
  'backend/bench/some.bench.ts',
  'frontend/src/main.tsx',
  'frontend/index.html',
  'frontend/vite.config.ts',
  'frontend/package.json',
  'frontend/tsconfig.json',
  'frontend/e2e/some.e2e-spec.ts',
];

describe('ensure_builds (npm start reuses current builds)', () => {
  let root: string;
  const builds = () => {
    const log = join(root, 'npm.log');
    writeFileSync(log, '');
    execFileSync(
      'bash',
      [
        '-c',
        // npm records which workspace it was asked to build, as if it had built it
        `source "${lib}"; ROOT="${root}"; npm() { echo "$5" >>"${log}"; }; ensure_builds`,
      ],
      { stdio: ['ignore', 'ignore', 'ignore'] },
    );
    return readFileSync(log, 'utf8').split('\n').filter(Boolean);
  };
  const edit = (file: string) => writeFileSync(join(root, file), `changed ${Math.random()}`);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'builds-'));
    for (const file of sources) {
      mkdirSync(join(root, file, '..'), { recursive: true });
      writeFileSync(join(root, file), file);
    }
    for (const dist of ['libs/contracts', 'libs/inference', 'backend', 'frontend'])
      mkdirSync(join(root, dist, 'dist'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('builds everything the first time, nothing the second', () => {
    const all = ['@studio/contracts', '@studio/inference', '@studio/backend', '@studio/frontend'];
    expect(builds()).toEqual(all);
    expect(builds()).toEqual([]);
  });

  it('rebuilds what depends on a changed source, and only that', () => {
    builds();
    edit('frontend/src/main.tsx');
    expect(builds()).toEqual(['@studio/frontend']);
    edit('backend/src/main.ts');
    expect(builds()).toEqual(['@studio/backend']);
    edit('libs/inference/src/index.ts');
    expect(builds()).toEqual(['@studio/inference', '@studio/backend']);
    edit('libs/contracts/src/index.ts');
    expect(builds()).toEqual([
      '@studio/contracts',
      '@studio/inference',
      '@studio/backend',
      '@studio/frontend',
    ]);
    edit('package-lock.json');
    expect(builds()).toHaveLength(4);
  });

  it('ignores what the builds do not compile: benches, browser tests, the outputs themselves', () => {
    builds();
    edit('backend/bench/some.bench.ts');
    edit('frontend/e2e/some.e2e-spec.ts');
    writeFileSync(join(root, 'backend/dist/main.js'), 'output');
    expect(builds()).toEqual([]);
  });

  it('builds again after a build that did not finish (its stamp is written last)', () => {
    builds();
    rmSync(join(root, 'frontend/dist/.studio-build'));
    expect(builds()).toEqual(['@studio/frontend']);
  });
});
