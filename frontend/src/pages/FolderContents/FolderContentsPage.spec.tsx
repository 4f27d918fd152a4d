import { act, screen, waitFor } from '@testing-library/react';
import type { ContentItem, FolderChange, FolderContents, SocketEventPayloads } from '@studio/contracts';
import { openSocket } from '../../test/fakeSocket';
import { mockFetch, sessionAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';
import { applyFolderChange, applyTakedown } from './useFolderContents';

const FOLDER = '0123456789abcdef01234567';

function item(id: string, extra: Partial<ContentItem> = {}): ContentItem {
  return {
    _id: id,
    url: `/api/content/${id}.png`,
    kind: 'image',
    createdAt: '2026-11-21T00:00:00.000Z',
    ...extra,
  };
}

function showFolder(contents: FolderContents) {
  rememberAccount('alice');
  mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice' }),
    [`GET /api/getBulkInpaints/${FOLDER}`]: { status: 200, body: { message: 'success', content: contents } },
  });
  return renderApp(`/profile/bulkInpaints/${FOLDER}`);
}

/** The server telling the owner that an admin took one of their items down. */
async function pushTakedown(takedown: SocketEventPayloads['content.taken_down']) {
  // The folder screen and the toasts both listen.
  await waitFor(() => expect(openSocket()?.listenerCount('content.taken_down')).toBe(2));
  act(() => openSocket()!.serverEmit('content.taken_down', takedown));
}

describe('FolderContentsPage', () => {
  it('says there are no inpaints when the folder is empty', async () => {
    showFolder({ inpaint: [], inpaints: [] });
    expect(await screen.findByText('No inpaints found.')).toBeInTheDocument();
  });

  it('asks to wait while a batch has no items yet, with its status lines', async () => {
    showFolder({
      inpaint: [
        { _id: 'b1', title: 'STATUS: 3 of 10 done', amount: 10 },
        { _id: 'b2', title: 'STATUS: single', amount: 1 },
        { _id: 'b3', title: 'Model shoot', amount: 5 },
      ],
      inpaints: [],
    });
    expect(await screen.findByText('Please wait, we are processing your request.')).toBeInTheDocument();
    expect(screen.getByText('STATUS: 3 of 10 done')).toBeInTheDocument();
    // Only 'STATUS:' entries above one image are status lines.
    expect(screen.queryByText('STATUS: single')).not.toBeInTheDocument();
    expect(screen.queryByText('Model shoot')).not.toBeInTheDocument();
  });

  it('shows items with their title or No Title, videos as video, and hides flagged items', async () => {
    const { container } = showFolder({
      inpaint: [],
      inpaints: [
        item('a1', { title: 'Sunset' }),
        item('a2'),
        { ...item('a3'), url: '/api/content/a3.mp4', kind: 'video' },
        item('a4', { title: 'Taken down', visible: false }),
      ],
    });
    expect(await screen.findByText('Sunset')).toBeInTheDocument();
    expect(screen.getAllByText('No Title')).toHaveLength(2);
    expect(screen.queryByText('Taken down')).not.toBeInTheDocument();
    expect(container.querySelectorAll('video')).toHaveLength(1);
    expect(container.querySelectorAll('img[src="/api/content/a1.png"]')).toHaveLength(1);
  });

  it('tells the owner why an admin took an item down, instead of showing it', async () => {
    const { container } = showFolder({
      inpaint: [],
      inpaints: [
        item('b1', { title: 'Kept' }),
        item('b2', {
          title: 'Beach',
          visible: false,
          takedown: { reason: 'Reported as a real person', mode: 'hide', at: '2026-11-21T08:00:00.000Z' },
        }),
      ],
    });
    expect(await screen.findByText('Kept')).toBeInTheDocument();
    const notice = screen.getByTestId('takedown-notice');
    expect(notice).toHaveTextContent('Beach: this item was taken down');
    expect(notice).toHaveTextContent('Reported as a real person');
    expect(container.querySelectorAll('img[src="/api/content/b2.png"]')).toHaveLength(0);
  });

  it('takes an item down live when the server says so: gone from the grid, the reason shown, a toast', async () => {
    const { container } = showFolder({
      inpaint: [],
      inpaints: [item('c1', { title: 'Kept' }), item('c2', { title: 'Beach' })],
    });
    expect(await screen.findByText('Beach')).toBeInTheDocument();
    expect(screen.getAllByTestId('content-item')).toHaveLength(2);
    expect(screen.queryByTestId('takedown-notice')).not.toBeInTheDocument();

    await pushTakedown({ itemId: 'c2', title: 'Beach', reason: 'Reported as a real person', mode: 'hide' });

    expect(screen.getAllByTestId('content-item')).toHaveLength(1);
    expect(container.querySelectorAll('img[src="/api/content/c2.png"]')).toHaveLength(0);
    const notice = screen.getByTestId('takedown-notice');
    expect(notice).toHaveTextContent('Beach: this item was taken down');
    expect(notice).toHaveTextContent('Reported as a real person');
    const toast = await screen.findByText('“Beach” was hidden by our team');
    expect(toast.closest('.ant-notification-notice')).toHaveTextContent('Reason: Reported as a real person');
  });

  it("only toasts when the item taken down is in another folder, and keeps this folder's items", async () => {
    showFolder({ inpaint: [], inpaints: [item('d1', { title: 'Kept' })] });
    expect(await screen.findByText('Kept')).toBeInTheDocument();

    await pushTakedown({ itemId: 'elsewhere', reason: 'Copyright claim', mode: 'delete' });

    expect(await screen.findByText('One of your items was removed by our team')).toBeInTheDocument();
    expect(screen.getByText('Reason: Copyright claim')).toBeInTheDocument();
    expect(screen.getAllByTestId('content-item')).toHaveLength(1);
    expect(screen.queryByTestId('takedown-notice')).not.toBeInTheDocument();
  });

  it('follows pushes for this folder: new items, the batch status, removals; ignores other folders', async () => {
    showFolder({
      title: 'Beach shoot',
      inpaint: [{ _id: 'b1', title: 'STATUS: Waves: 0 of 3 done', amount: 3 }],
      inpaints: [],
    });
    expect(await screen.findByRole('heading', { name: 'Beach shoot' })).toBeInTheDocument();
    expect(screen.getByText('STATUS: Waves: 0 of 3 done')).toBeInTheDocument();
    await waitFor(() => expect(openSocket()?.listenerCount('folder.changed')).toBe(1));
    const push = (change: FolderChange) => act(() => openSocket()!.serverEmit('folder.changed', change));

    push({ folderId: 'another', added: [item('x1', { title: 'Elsewhere' })] });
    push({
      folderId: FOLDER,
      batch: { _id: 'b1', title: 'STATUS: Waves: 1 of 3 done', amount: 3 },
      added: [item('g1', { title: 'Wave 1' })],
    });
    expect(screen.getByText('STATUS: Waves: 1 of 3 done')).toBeInTheDocument();
    expect(screen.getAllByTestId('content-item')).toHaveLength(1);
    expect(screen.getByText('Wave 1')).toBeInTheDocument();
    expect(screen.queryByText('Elsewhere')).not.toBeInTheDocument();

    push({ folderId: FOLDER, removed: ['g1'], folder: { _id: FOLDER, title: 'Renamed', amount: 0 } });
    expect(screen.queryByText('Wave 1')).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Renamed' })).toBeInTheDocument();
  });

  it('reads the folder again when the socket (re)joins, as pushes sent while away are lost', async () => {
    rememberAccount('alice');
    let answer: FolderContents = { title: 'Away', inpaint: [], inpaints: [] };
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice' }),
      [`GET /api/getBulkInpaints/${FOLDER}`]: () => ({
        status: 200,
        body: { message: 'success', content: answer },
      }),
    });
    renderApp(`/profile/bulkInpaints/${FOLDER}`);
    expect(await screen.findByText('No inpaints found.')).toBeInTheDocument();
    answer = { ...answer, inpaints: [item('r1', { title: 'Made meanwhile' })] };
    await waitFor(() => expect(openSocket()?.listenerCount('session.ready')).toBeGreaterThan(0));
    act(() => openSocket()!.serverEmit('session.ready', { username: 'alice' }));
    expect(await screen.findByText('Made meanwhile')).toBeInTheDocument();
  });

  it('sends a visitor without an account home', async () => {
    mockFetch({});
    const view = renderApp(`/profile/bulkInpaints/${FOLDER}`);
    await waitFor(() => expect(view.pathname()).toBe('/'));
  });
});

describe('applyFolderChange', () => {
  it('adds new items newest first once, and replaces a batch entry in place', () => {
    const older = item('0000000000000000000000a1', { createdAt: '2026-11-21T00:00:00.000Z' });
    const newer = item('0000000000000000000000a2', { createdAt: '2026-11-22T00:00:00.000Z' });
    const start: FolderContents = {
      inpaint: [{ _id: 'b', title: 'STATUS: x: 0 of 2 done', amount: 2 }],
      inpaints: [older],
    };
    const change: FolderChange = {
      folderId: FOLDER,
      added: [newer],
      batch: { _id: 'b', title: 'STATUS: x: 1 of 2 done', amount: 2 },
    };
    const once = applyFolderChange(start, change);
    expect(once.inpaints).toEqual([newer, older]);
    expect(once.inpaint).toEqual([change.batch]);
    expect(applyFolderChange(once, change)).toEqual(once);
  });
});

describe('applyTakedown', () => {
  const at = new Date('2026-11-21T10:00:00.000Z');

  it('flags the item hidden with the reason, mode and time, leaving the others as they were', () => {
    const items = [item('e1', { title: 'One' }), item('e2')];
    const next = applyTakedown(items, { itemId: 'e2', reason: 'Spam', mode: 'delete' }, at);
    expect(next).toEqual([
      items[0],
      { ...items[1], visible: false, takedown: { reason: 'Spam', mode: 'delete', at: at.toISOString() } },
    ]);
    expect(next[0]).toBe(items[0]);
    expect(items[1].takedown).toBeUndefined();
  });

  it('returns the same list when the item is not in it', () => {
    const items = [item('f1')];
    expect(applyTakedown(items, { itemId: 'other', reason: 'Spam', mode: 'hide' }, at)).toBe(items);
  });
});
