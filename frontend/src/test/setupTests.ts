import '@testing-library/jest-dom';
import { configure } from '@testing-library/react';
import { studioAvailability } from '../api/availability';
import { resetFakeSockets } from './fakeSocket';

// findBy*/waitFor wait for what they look for; on a loaded 2-core CI machine antd's first render
// can take longer than the library's 1 s default, so give them room (they return as soon as it shows).
configure({ asyncUtilTimeout: 10_000 });

// Routes load their pages lazily; tests render them at once, as a returning visitor sees them.
// Imported here, after the spec's jest.mock calls, so the pages see the spec's mocks.
// The same for dialogs, menus and panels that load on first use (ui/onDemand.tsx); after the
// pages, whose modules may declare some.
beforeAll(async () => {
  await (await import('../routes')).preloadPages();
  await (await import('../ui/onDemand')).preloadOnDemand();
});

beforeEach(() => {
  localStorage.clear();
  resetFakeSockets();
});

afterEach(() => {
  jest.restoreAllMocks();
  // The page's one view of the studio: each test starts with it up and not probing.
  studioAvailability.reset();
});
