import { screen, waitFor } from '@testing-library/react';
import type { ContentItem, FolderContents } from '@studio/contracts';
import { mockFetch, sessionAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

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

  it('sends a visitor without an account home', async () => {
    mockFetch({});
    const view = renderApp(`/profile/bulkInpaints/${FOLDER}`);
    await waitFor(() => expect(view.pathname()).toBe('/'));
  });
});
