/**
 * Jest for the web client: jsdom, TypeScript through ts-jest (transpile only, because
 * `tsc -p frontend` already type-checks the same files, specs included).
 * Run from the repository root: npx jest -c frontend/jest.config.cjs
 * @type {import('jest').Config}
 */
module.exports = {
  displayName: 'frontend',
  rootDir: __dirname,
  roots: ['<rootDir>/src'],
  testEnvironment: '<rootDir>/src/test/environment.cjs',
  testMatch: ['**/*.spec.ts', '**/*.spec.tsx'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  moduleNameMapper: {
    '^@studio/contracts$': '<rootDir>/../libs/contracts/src',
    '\\.css$': '<rootDir>/src/test/styleStub.cjs',
    // Unit tests never open a real socket: every io() call gets a fake the tests can drive.
    '^socket.io-client$': '<rootDir>/src/test/fakeSocket.ts',
    // The charts draw on a canvas jsdom lacks: a stub renders the points it was given.
    '^@ant-design/charts$': '<rootDir>/src/test/fakeCharts.tsx',
  },
  setupFiles: ['<rootDir>/src/test/polyfills.ts'],
  setupFilesAfterEnv: ['<rootDir>/src/test/setupTests.ts'],
};
