import { Messages } from '@studio/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { mockFetch, sentBody } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';

interface Fields {
  username?: string;
  email?: string;
  password?: string;
  adult?: boolean;
}

function fillAndSubmit({ username = '', email = '', password = '', adult = false }: Fields) {
  if (username) fireEvent.change(screen.getByLabelText('Username'), { target: { value: username } });
  if (email) fireEvent.change(screen.getByLabelText('Email'), { target: { value: email } });
  if (password) fireEvent.change(screen.getByLabelText('Password'), { target: { value: password } });
  if (adult) fireEvent.click(screen.getByRole('checkbox', { name: /18 or older/ }));
  fireEvent.click(screen.getByRole('button', { name: 'Register' }));
}

const complete: Fields = {
  username: 'alice',
  email: 'alice@example.com',
  password: 'correct horse',
  adult: true,
};

describe('RegisterPage', () => {
  it('shows the form the spec describes', () => {
    mockFetch();
    renderApp('/register');
    expect(screen.getByLabelText('Email')).toHaveAttribute('type', 'email');
    expect(screen.getByLabelText('Password')).toHaveAttribute('type', 'password');
    expect(screen.getByRole('checkbox', { name: 'I confirm that I am 18 or older' })).not.toBeChecked();
    expect(screen.getByRole('link', { name: 'Log In' })).toHaveAttribute('href', '/login');
  });

  it.each(['username', 'email', 'password'] as const)(
    'says "Missing fields!" and sends nothing when %s is empty',
    async (field) => {
      const fetchMock = mockFetch();
      renderApp('/register');
      fillAndSubmit({ ...complete, [field]: '' });
      expect(await screen.findByText(Messages.missingFields)).toBeInTheDocument();
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it('says "Max accounts reached!" and sends nothing once this browser registered', async () => {
    localStorage.setItem('registered', 'true');
    const fetchMock = mockFetch();
    renderApp('/register');
    fillAndSubmit(complete);
    expect(await screen.findByText(Messages.maxAccounts)).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('refuses to send without the 18+ confirmation', async () => {
    const fetchMock = mockFetch();
    renderApp('/register');
    fillAndSubmit({ ...complete, adult: false });
    expect(await screen.findByText(Messages.mustBeAdult)).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it.each(['studio-support', 'supportteam', 'the.admin', 'aclmin'])(
    'refuses the staff-looking name %s as the server does, and sends nothing',
    async (username) => {
      const fetchMock = mockFetch();
      renderApp('/register');
      fillAndSubmit({ ...complete, username });
      expect(await screen.findByText(Messages.usernameReservedName)).toBeInTheDocument();
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it('registers, remembers it and goes to /login', async () => {
    const fetchMock = mockFetch({
      'POST /api/register': { status: 200, body: { message: 'success', content: 'ok' } },
    });
    const app = renderApp('/register');
    fillAndSubmit(complete);

    expect(await screen.findByText(Messages.registered)).toBeInTheDocument();
    await waitFor(() => expect(app.pathname()).toBe('/login'));
    expect(screen.getByRole('button', { name: 'Log In' })).toBeInTheDocument();
    expect(localStorage.getItem('registered')).toBe('true');
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(fetchMock.mock.calls[0][1]).toMatchObject({ method: 'POST', credentials: 'include' });
    expect(sentBody(fetchMock)).toEqual({
      username: 'alice',
      email: 'alice@example.com',
      password: 'correct horse',
      adult: true,
    });
  });

  it.each([
    [409, { message: 'error', content: 'taken' }, Messages.accountExists],
    [500, { message: 'error', content: 'stack trace' }, Messages.serverError],
    [400, { message: 'error', content: Messages.usernameCharacters }, Messages.usernameCharacters],
  ])('answers status %i with the right toast and stays', async (status, body, toast) => {
    mockFetch({ 'POST /api/register': { status, body } });
    const app = renderApp('/register');
    fillAndSubmit(complete);
    expect(await screen.findByText(toast)).toBeInTheDocument();
    expect(app.pathname()).toBe('/register');
    expect(localStorage.getItem('registered')).toBeNull();
  });
});
