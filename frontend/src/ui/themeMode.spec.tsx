import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { mockFetch, sessionAnswer } from '../test/fetchMock';
import { rememberAccount, renderApp } from '../test/renderApp';
import { themeStorageKey } from './themeMode';

/** Makes matchMedia say the system prefers dark (or not) and lets a test flip it. */
function systemPrefersDark(dark: boolean) {
  const listeners = new Set<(event: MediaQueryListEvent) => void>();
  const state = { dark };
  window.matchMedia = ((query: string) => ({
    get matches() {
      return query.includes('dark') ? state.dark : false;
    },
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: (_: string, listener: (event: MediaQueryListEvent) => void) => listeners.add(listener),
    removeEventListener: (_: string, listener: (event: MediaQueryListEvent) => void) =>
      listeners.delete(listener),
    dispatchEvent: () => false,
  })) as unknown as typeof window.matchMedia;
  return (next: boolean) => {
    state.dark = next;
    listeners.forEach((listener) => listener({ matches: next } as MediaQueryListEvent));
  };
}

const theme = () => document.documentElement.dataset.theme;
const realMatchMedia = window.matchMedia;

describe('theme mode', () => {
  afterEach(() => {
    window.matchMedia = realMatchMedia;
  });

  it('follows the system setting while nobody has chosen, also when it changes', async () => {
    const flip = systemPrefersDark(true);
    mockFetch();
    renderApp('/login');
    await waitFor(() => expect(theme()).toBe('dark'));
    expect(screen.getByTestId('theme-toggle')).toHaveAttribute('aria-label', 'Light mode');
    act(() => flip(false));
    await waitFor(() => expect(theme()).toBe('light'));
  });

  it("keeps a user's toggled choice under their name, and another user still follows the system", async () => {
    systemPrefersDark(true);
    rememberAccount('alice');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'alice', balance: 1 }) });
    const first = renderApp('/profile/refill');
    await waitFor(() => expect(theme()).toBe('dark'));
    fireEvent.click(screen.getByTestId('theme-toggle'));
    await waitFor(() => expect(theme()).toBe('light'));
    expect(localStorage.getItem(themeStorageKey('alice'))).toBe('light');
    first.unmount();

    // A reload: alice's choice applies from the first paint, against the dark system setting.
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'alice', balance: 1 }) });
    const again = renderApp('/login');
    expect(theme()).toBe('light');
    again.unmount();

    rememberAccount('bob');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'bob', balance: 1 }) });
    renderApp('/login');
    await waitFor(() => expect(theme()).toBe('dark'));
  });
});
