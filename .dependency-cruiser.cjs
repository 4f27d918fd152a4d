/**
 * The backend's module rules (issue 31), checked by dependency-cruiser in `npm test`
 * (`npm run deps`): backend modules (backend/src/modules/<module>) form a tree, and each shows the
 * others one public face, its index.ts. Both are errors, and the backend has no violation of
 * either: .dependency-cruiser-known-violations.json (violations a new rule may start with, which
 * `npm run deps` does not fail on) is empty since phase 2 of issue 31.
 * Tests: backend/src/modules/module-rules.spec.ts.
 */
const path = require('node:path');

const MODULE = '^backend/src/modules/[^/]+';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycles',
      severity: 'error',
      comment:
        'Backend modules must form a tree: a module may not import a module that ' +
        'imports it back, directly or around a loop, or nobody can change one without holding the ' +
        'others in mind. Move the use case into a module above both, or let the lower module publish ' +
        'a domain event that the upper one handles (see docs/architecture.md).',
      scope: 'folder',
      from: { path: `${MODULE}$` },
      to: { path: `${MODULE}$`, circular: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No file may import itself back around a loop (issue 56), in the backend, the libraries or ' +
        'the frontend: which of two files in a cycle loads first decides what the other sees, and ' +
        'neither can be read alone. Move what both need into a third file both import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'only-through-module-face',
      severity: 'error',
      comment:
        "Another module's files may be imported only through its index.ts, " +
        'the one public face naming what others may use; anything else is its own business and may ' +
        'change without notice. Import from the module folder (its index.ts) instead, or add what ' +
        'you need to that face.',
      from: { path: '^backend/src/modules/([^/]+)/', pathNot: '\\.(int-)?spec\\.ts$' },
      to: {
        path: '^backend/src/modules/[^/]+/',
        pathNot: ['^backend/src/modules/$1/', '^backend/src/modules/[^/]+/index\\.ts$'],
      },
    },
  ],
  options: {
    // production code only: a test may reach into what it tests
    exclude: { path: ['\\.(int-)?spec\\.ts$', '(^|/)node_modules/', '(^|/)dist/'] },
    doNotFollow: { path: ['node_modules'] },
    // absolute, so the rules' tests can run them on a fixture folder too
    tsConfig: { fileName: path.join(__dirname, 'backend/tsconfig.json') },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
