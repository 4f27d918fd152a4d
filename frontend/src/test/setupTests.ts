import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { resetFakeSockets } from './fakeSocket';

// findBy*/waitFor wait for what they look for; on a loaded 2-core CI machine antd's first render
// can take longer than the library's 1 s default, so give them room (they return as soon as it shows).
configure({ asyncUtilTimeout: 10_000 });

beforeEach(() => {
  localStorage.clear();
  resetFakeSockets();
});

afterEach(() => {
  jest.restoreAllMocks();
});
