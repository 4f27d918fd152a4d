/**
 * Every test of the project, in four projects: unit (libs and backend services, no services
 * needed), integration (real FerretDB and Redis, started by deploy/local/test.sh), frontend
 * (components in jsdom) and e2e (the built app in Debian's chromium through playwright-core).
 */
const tsJest = ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }];
const node = {
  testEnvironment: 'node',
  // npm start's and the benches' data (copies of old checkouts among it) and the fetched tools are not the project's modules.
  modulePathIgnorePatterns: ['<rootDir>/.data/', '<rootDir>/.tools/'],
  transform: { '^.+\\.tsx?$': tsJest },
  moduleNameMapper: {
    '^@studio/contracts$': '<rootDir>/libs/contracts/src',
    '^@studio/inference$': '<rootDir>/libs/inference/src',
    // delaunator is ES-module only; jest runs CommonJS, so it takes the package's UMD build.
    '^delaunator$': '<rootDir>/node_modules/delaunator/delaunator.js',
  },
};
/** The projects that talk to Redis and MongoDB: connections a file leaves open, or work that outlives its app, fail the file (backend/test/connection-guard.ts). */
const guarded = {
  ...node,
  testEnvironment: '<rootDir>/backend/test/guarded-environment.cjs',
  setupFilesAfterEnv: ['<rootDir>/backend/test/connection-guard.ts'],
};

module.exports = {
  // Integration tests boot the whole app against real services; browser tests take longer still.
  // A bound for a test that hangs, not a speed goal: wide, as a busy machine (npm run test:loaded) is slow.
  testTimeout: 180_000,
  // Test files run in worker processes that are replaced once a file leaves them above this much
  // memory. Run in the main process (jest's choice on a 2-core machine), every file's leftovers
  // accumulated until the whole run died of a full heap after 45 minutes (CI, stop 42). Setting a
  // limit is also what makes jest use workers when it has only one.
  workerIdleMemoryLimit: '1200MB',
  // Two files at a time on CI's two cores: each file waits on its app, browser and services as
  // much as it computes. Files are isolated (own database, Redis prefix, storage folder, port 0).
  maxWorkers: process.env.TEST_WORKERS ?? 2,
  // Per-file timings, and the slowest files and each project's total at the end (deploy/local/timing-reporter.cjs).
  reporters: ['default', '<rootDir>/deploy/local/timing-reporter.cjs'],
  projects: [
    {
      ...node,
      testEnvironment: '<rootDir>/backend/test/node-environment.cjs',
      displayName: 'unit',
      testMatch: [
        '<rootDir>/libs/**/*.spec.ts',
        '<rootDir>/backend/**/*.spec.ts',
        '<rootDir>/deploy/**/*.spec.ts',
      ],
    },
    {
      ...guarded,
      displayName: 'integration',
      testMatch: ['<rootDir>/backend/**/*.int-spec.ts'],
    },
    '<rootDir>/frontend/jest.config.cjs',
    {
      ...guarded,
      displayName: 'e2e',
      testMatch: ['<rootDir>/frontend/e2e/**/*.e2e-spec.ts'],
    },
  ],
};
