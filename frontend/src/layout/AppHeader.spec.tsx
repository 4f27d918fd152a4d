import { Messages, SocketEvents } from '@studio/contracts';
import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { TELEGRAM_URL } from '../config';
import { logPageAnswer, logsKey, statsAnswer, statsKey } from '../test/admin';
import { openSocket } from '../test/fakeSocket';
import { callsTo, mockFetch, sentBody, sessionAnswer, type FakeAnswer } from '../test/fetchMock';
import { rememberAccount, renderApp } from '../test/renderApp';

async function openAccountMenu() {
  fireEvent.click(screen.getByTestId('account-menu'));
  return screen.findAllByRole('menuitem');
}

function menuLabels(items: HTMLElement[]) {
  return items.map((item) => item.textContent);
}

describe('AppHeader', () => {
  it('offers Log in and Register when logged out, and no balance', async () => {
    mockFetch();
    const app = renderApp('/');
    expect(screen.getByRole('link', { name: 'AI Studio' })).toHaveAttribute('href', '/');
    expect(screen.queryByTestId('balance')).not.toBeInTheDocument();

    expect(menuLabels(await openAccountMenu())).toEqual(['Log in', 'Register']);
    fireEvent.click(screen.getByRole('menuitem', { name: /Register/ }));
    await waitFor(() => expect(app.pathname()).toBe('/register'));
    expect(openSocket()).toBeUndefined();
  });

  it('writes the balance with thousands separators', async () => {
    rememberAccount('alice');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'alice', balance: 5_000_000 }) });
    renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('5,000,000'));
    expect(screen.getByTestId('balance')).toHaveAttribute('aria-label', '5,000,000 coins, buy coins');
  });

  it('shows the account name, the balance and the user menu without Logs', async () => {
    rememberAccount('alice');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'alice', balance: 120 }) });
    renderApp('/');

    expect(screen.getByTestId('account-menu')).toHaveTextContent('alice');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('120'));
    expect(screen.getByTestId('balance')).toHaveAttribute('href', '/profile/refill');

    expect(menuLabels(await openAccountMenu())).toEqual([
      'Profile',
      'My jobs',
      'Credit history',
      'Clone',
      'Magic Brush',
      'Face Swap',
      'Video Face Swap (BETA)',
      'Buy Coins',
      'Billing',
      'Join Telegram',
      'Log out',
    ]);
  });

  it('adds Logs, Support, Reports, Moderation and Operations for an admin session', async () => {
    rememberAccount('root');
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'root', role: 'admin' }),
      [statsKey()]: statsAnswer(),
      [logsKey()]: logPageAnswer([]),
    });
    const app = renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('0'));
    // Role is only known once the server answered.
    await waitFor(() => expect(screen.getByTestId('account-menu')).toHaveTextContent('root'));

    const labels = menuLabels(await openAccountMenu());
    expect(labels.slice(-6)).toEqual(['Logs', 'Support', 'Reports', 'Moderation', 'Operations', 'Log out']);
    fireEvent.click(await screen.findByRole('menuitem', { name: /Logs/ }));
    await waitFor(() => expect(app.pathname()).toBe('/admin/logs'));
  });

  it('adds only Support and Reports for a support session', async () => {
    rememberAccount('helper');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'helper', role: 'support' }) });
    const app = renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('0'));

    const labels = menuLabels(await openAccountMenu());
    expect(labels).not.toContain('Logs');
    expect(labels).not.toContain('Operations');
    expect(labels).not.toContain('Moderation');
    expect(labels.slice(-3)).toEqual(['Support', 'Reports', 'Log out']);
    fireEvent.click(await screen.findByRole('menuitem', { name: /Support/ }));
    await waitFor(() => expect(app.pathname()).toBe('/admin/support'));
  });

  it('adds only Moderation for a moderator session', async () => {
    rememberAccount('mira');
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'mira', role: 'moderator' }),
      'GET /api/moderation/held': { status: 200, body: { message: 'success', content: [] } },
    });
    const app = renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('0'));
    await waitFor(() => expect(screen.getByTestId('account-menu')).toHaveTextContent('mira'));

    const labels = menuLabels(await openAccountMenu());
    expect(labels).not.toContain('Support');
    expect(labels.slice(-2)).toEqual(['Moderation', 'Log out']);
    fireEvent.click(await screen.findByRole('menuitem', { name: /Moderation/ }));
    await waitFor(() => expect(app.pathname()).toBe('/admin/moderation'));
  });

  it('forgets a remembered account the server no longer knows', async () => {
    rememberAccount('alice');
    mockFetch({ 'GET /api/session': { status: 401, body: { message: 'error', content: 'x' } } });
    renderApp('/');
    await waitFor(() => expect(screen.getByTestId('account-menu')).toHaveTextContent('Account'));
    expect(screen.queryByTestId('balance')).not.toBeInTheDocument();
    expect(localStorage.getItem('account')).toBeNull();
    expect(localStorage.getItem('verified')).toBeNull();
  });

  it('logs out even when the logout call fails, and closes the socket', async () => {
    rememberAccount('alice');
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 5 }),
      'POST /api/logout': { status: 500, body: { message: 'error', content: 'down' } },
    });
    renderApp('/');
    await waitFor(() => expect(openSocket()).toBeDefined());
    const socket = openSocket()!;

    await openAccountMenu();
    fireEvent.click(screen.getByRole('menuitem', { name: /Log out/ }));

    expect(await screen.findByText(Messages.loggedOut)).toBeInTheDocument();
    expect(screen.getByTestId('account-menu')).toHaveTextContent('Account');
    expect(screen.queryByTestId('balance')).not.toBeInTheDocument();
    expect(localStorage.getItem('account')).toBeNull();
    expect(socket.connected).toBe(false);
    expect(fetchMock).toHaveBeenCalledWith('/api/logout', expect.objectContaining({ method: 'POST' }));
  });

  it('updates the balance when the server pushes balance.changed', async () => {
    rememberAccount('alice');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'alice', balance: 100 }) });
    renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('100'));
    await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.balanceChanged)).toBeGreaterThan(0));
    expect(openSocket()!.options).toMatchObject({ withCredentials: true });

    act(() => {
      openSocket()!.serverEmit(SocketEvents.balanceChanged, { balance: 80, delta: -20, reason: 'clone' });
    });
    expect(screen.getByTestId('balance')).toHaveTextContent('80');
  });

  it('reads the balance again when its socket (re)joins, so a change made before that is not missed', async () => {
    rememberAccount('alice');
    let balance = 100;
    const fetchMock = mockFetch({ 'GET /api/session': () => sessionAnswer({ username: 'alice', balance }) });
    renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('100'));
    await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.ready)).toBeGreaterThan(0));

    balance = 300; // a grant lands while the socket is still joining: its push reaches nobody
    act(() => openSocket()!.serverEmit(SocketEvents.ready, { username: 'alice' }));
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('300'));
    expect(callsTo(fetchMock, 'GET /api/session')).toHaveLength(2);
  });

  it('keeps a pushed balance over a session answer that was read before it', async () => {
    rememberAccount('alice');
    let answerSession: (answer: FakeAnswer) => void = () => undefined;
    let calls = 0;
    mockFetch({
      'GET /api/session': () => {
        calls += 1;
        if (calls === 1) return sessionAnswer({ username: 'alice', balance: 5 });
        return new Promise<FakeAnswer>((resolve) => (answerSession = resolve));
      },
    });
    renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('5'));
    await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.ready)).toBeGreaterThan(0));

    act(() => openSocket()!.serverEmit(SocketEvents.ready, { username: 'alice' }));
    await waitFor(() => expect(calls).toBe(2));
    // A job is charged while that session call is on its way; its answer still says 5.
    act(() =>
      openSocket()!.serverEmit(SocketEvents.balanceChanged, { balance: 4, delta: -1, reason: 'clone' }),
    );
    await act(async () => answerSession(sessionAnswer({ username: 'alice', balance: 5 })));
    expect(screen.getByTestId('balance')).toHaveTextContent('4');
  });

  it("shows the server's answer when the billing portal cannot open, and opens Telegram in a new tab", async () => {
    rememberAccount('alice');
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice' }),
      'POST /api/createPortalSession': {
        status: 404,
        body: { message: 'error', content: 'No billing account yet: buy coins first.' },
      },
    });
    const open = jest.spyOn(window, 'open').mockImplementation(() => null);
    renderApp('/');

    await openAccountMenu();
    fireEvent.click(screen.getByRole('menuitem', { name: /Billing/ }));
    expect(await screen.findByText('No billing account yet: buy coins first.')).toBeInTheDocument();
    const portalCall = fetchMock.mock.calls.findIndex(([url]) => String(url) === '/api/createPortalSession');
    expect(sentBody(fetchMock, portalCall)).toEqual({ username: 'alice', cart: 1 });

    await openAccountMenu();
    fireEvent.click(screen.getByRole('menuitem', { name: /Join Telegram/ }));
    expect(open).toHaveBeenCalledWith(TELEGRAM_URL, '_blank', 'noopener,noreferrer');
  });
});
