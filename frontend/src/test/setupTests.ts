import '@testing-library/jest-dom';
import { resetFakeSockets } from './fakeSocket';

beforeEach(() => {
  localStorage.clear();
  resetFakeSockets();
});

afterEach(() => {
  jest.restoreAllMocks();
});
