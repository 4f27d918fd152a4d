import { Messages } from '@studio/contracts';
import { screen, waitFor } from '@testing-library/react';
import { mockFetch } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';

describe('useRequireLogin', () => {
  it.each(['/magic', '/swap', '/swapvideo', '/generate'])(
    'logged out, %s says "You need to be logged in", goes to /login and asks the API nothing',
    async (path) => {
      const fetchMock = mockFetch();
      const app = renderApp(path);
      await waitFor(() => expect(app.pathname()).toBe('/login'));
      expect(await screen.findByText(Messages.needLogin)).toBeInTheDocument();
      expect(screen.getAllByText(Messages.needLogin)).toHaveLength(1);
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it.each(['/superresolution', '/profile/refill'])(
    'logged out, %s goes to /login without the message (spec: not on super resolution) and no call',
    async (path) => {
      const fetchMock = mockFetch();
      const app = renderApp(path);
      await waitFor(() => expect(app.pathname()).toBe('/login'));
      await screen.findByRole('button', { name: 'Log In' });
      expect(screen.queryByText(Messages.needLogin)).not.toBeInTheDocument();
      expect(fetchMock).not.toHaveBeenCalled();
    },
  );

  it('logged out, a folder goes home before the folder is asked for', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/profile/bulkinpaints/abc');
    await waitFor(() => expect(app.pathname()).toBe('/'));
    expect(fetchMock).not.toHaveBeenCalled();
  });
});
