import { Messages } from '@studio/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { mockFetch, sentBody, sessionAnswer } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';

function logIn(username: string, password: string) {
  fireEvent.change(screen.getByLabelText('Username'), { target: { value: username } });
  fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
  fireEvent.click(screen.getByRole('button', { name: 'Log In' }));
}

describe('LoginPage', () => {
  it('logs in, remembers the account, goes home and loads the balance', async () => {
    const fetchMock = mockFetch({
      'POST /api/login': {
        status: 200,
        body: { message: 'success', content: { username: 'alice', verified: true, role: 'user' } },
      },
      'GET /api/session': sessionAnswer({ username: 'alice', verified: true, balance: 75 }),
    });
    const app = renderApp('/login');
    expect(screen.getByRole('link', { name: 'Register' })).toHaveAttribute('href', '/register');

    logIn('alice', 'secret password');

    expect(await screen.findByText(Messages.loggedIn)).toBeInTheDocument();
    await waitFor(() => expect(app.pathname()).toBe('/'));
    expect(await screen.findByTestId('balance')).toHaveTextContent('75');
    expect(screen.getByTestId('account-menu')).toHaveTextContent('alice');
    expect(localStorage.getItem('account')).toBe('alice');
    expect(localStorage.getItem('verified')).toBe('true');
    expect(sentBody(fetchMock)).toEqual({ username: 'alice', password: 'secret password' });
  });

  it('shows the server message and stays logged out when refused', async () => {
    mockFetch({
      'POST /api/login': {
        status: 401,
        body: { message: 'error', content: Messages.wrongCredentials },
      },
    });
    const app = renderApp('/login');
    logIn('alice', 'wrong');

    expect(await screen.findByText(Messages.wrongCredentials)).toBeInTheDocument();
    expect(app.pathname()).toBe('/login');
    expect(localStorage.getItem('account')).toBeNull();
    expect(screen.queryByTestId('balance')).not.toBeInTheDocument();
  });
});
