import { act, fireEvent, screen, waitFor } from '@testing-library/react';
import { Messages, type FolderChange } from '@studio/contracts';
import { openSocket } from '../../test/fakeSocket';
import { mockFetch, sessionAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

function publicProfile(username: string, flags: { verified: boolean; early: boolean }) {
  return { status: 200, body: { message: 'success', content: { own: false, username, ...flags } } };
}

/** The session and own profile of a user who has made no folder yet. */
function ownProfileWithoutFolders(username: string) {
  return {
    'GET /api/session': sessionAnswer({ username }),
    [`GET /api/getProfile/${username}`]: {
      status: 200,
      body: {
        message: 'success',
        content: {
          own: true,
          username,
          verified: false,
          early: false,
          role: 'user',
          balance: 0,
          folders: [],
        },
      },
    },
  };
}

describe('ProfilePage', () => {
  it('shows the early-supporter badge instead of verified', async () => {
    mockFetch({ 'GET /api/getProfile/bob': publicProfile('bob', { verified: true, early: true }) });
    renderApp('/profile/bob');

    expect(await screen.findByRole('heading', { name: 'bob' })).toBeInTheDocument();
    expect(screen.getByText('Early supporter')).toBeInTheDocument();
    expect(screen.queryByText('Verified')).not.toBeInTheDocument();
    // Not the viewer's own profile: no owner controls.
    expect(screen.queryByRole('button', { name: 'Inpaints' })).not.toBeInTheDocument();
  });

  it('shows verified when the user is not an early supporter', async () => {
    mockFetch({ 'GET /api/getProfile/bob': publicProfile('bob', { verified: true, early: false }) });
    renderApp('/profile/bob');
    expect(await screen.findByText('Verified')).toBeInTheDocument();
    expect(screen.queryByText('Early supporter')).not.toBeInTheDocument();
  });

  it('shows the own profile of the stored account with folders and the Inpaints button', async () => {
    rememberAccount('alice');
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 10 }),
      'GET /api/getProfile/alice': {
        status: 200,
        body: {
          message: 'success',
          content: {
            own: true,
            username: 'alice',
            verified: false,
            early: false,
            role: 'user',
            balance: 42,
            folders: [{ _id: 'f1', title: 'Model #1', amount: 3 }],
          },
        },
      },
    });
    const app = renderApp('/');
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('10'));

    fireEvent.click(screen.getByTestId('account-menu'));
    fireEvent.click(await screen.findByRole('menuitem', { name: /Profile/ }));

    expect(await screen.findByRole('heading', { name: 'alice' })).toBeInTheDocument();
    expect(app.pathname()).toBe('/profile');
    expect(screen.getByText('Model #1')).toBeInTheDocument();
    expect(screen.getByText('3')).toBeInTheDocument();
    // Loading the own profile refreshes the header balance.
    expect(screen.getByTestId('balance')).toHaveTextContent('42');

    fireEvent.click(screen.getByRole('button', { name: 'Inpaints' }));
    await waitFor(() => expect(app.pathname()).toBe('/profile/inpaints/alice'));
  });

  it('says "No folders yet." when the owner has none', async () => {
    rememberAccount('alice');
    mockFetch(ownProfileWithoutFolders('alice'));
    renderApp('/profile/inpaints/alice');
    expect(await screen.findByText('No folders yet.')).toBeInTheDocument();
  });

  it('says at once that a folder name with a text-direction override is refused, and sends nothing', async () => {
    rememberAccount('alice');
    const fetchMock = mockFetch(ownProfileWithoutFolders('alice'));
    renderApp('/profile/inpaints/alice');
    fireEvent.click(await screen.findByRole('button', { name: /Create Folder/ }));
    fireEvent.change(await screen.findByLabelText('Folder Name'), { target: { value: 'gpj.\u202eexe' } });
    expect(await screen.findAllByText(Messages.unsafeCharacters)).not.toHaveLength(0);
    const create = screen.getAllByRole('button', { name: 'Create Folder' }).at(-1)!;
    fireEvent.click(create);
    await screen.findAllByText(Messages.unsafeCharacters);
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('/makeFolder'))).toBe(false);
  });

  it("follows the server's folder pushes: a new folder, a count, a rename, a deletion", async () => {
    rememberAccount('alice');
    mockFetch(ownProfileWithoutFolders('alice'));
    renderApp('/profile/inpaints/alice');
    expect(await screen.findByText('No folders yet.')).toBeInTheDocument();
    await waitFor(() => expect(openSocket()?.listenerCount('folder.changed')).toBeGreaterThan(0));
    const push = (change: FolderChange) => act(() => openSocket()!.serverEmit('folder.changed', change));
    const id = 'f'.repeat(24);

    push({ folderId: id, folder: { _id: id, title: 'Beach', amount: 0 } });
    expect(await screen.findByRole('link', { name: /Beach/ })).toBeInTheDocument();
    push({ folderId: id, folder: { _id: id, title: 'Beach', amount: 1_200 }, added: [] });
    expect(screen.getByTestId('folder-amount')).toHaveTextContent('1,200');
    push({ folderId: id, folder: { _id: id, title: 'Shore', amount: 1_200 } });
    expect(screen.getByRole('link', { name: /Shore/ })).toBeInTheDocument();
    push({ folderId: id, deleted: true });
    expect(await screen.findByText('No folders yet.')).toBeInTheDocument();
  });

  it('shows "User not found" for an unknown name', async () => {
    mockFetch({
      'GET /api/getProfile/ghost': { status: 404, body: { message: 'error', content: 'Not found' } },
    });
    renderApp('/profile/ghost');
    expect(await screen.findByText('User not found')).toBeInTheDocument();
  });

  it('sends a logged-out visitor of /profile home without asking the server', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/profile');
    await waitFor(() => expect(app.pathname()).toBe('/'));
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
