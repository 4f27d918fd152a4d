import { fireEvent, screen, waitFor } from '@testing-library/react';
import { mockFetch } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';

describe('NotFoundPage', () => {
  it('catches unknown routes and its Homepage button goes to /', async () => {
    mockFetch();
    const app = renderApp('/no/such/page');
    expect(screen.getByText('Page not found')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Homepage' }));

    await waitFor(() => expect(app.pathname()).toBe('/'));
    expect(screen.getByRole('heading', { name: /Welcome/ })).toBeInTheDocument();
    expect(screen.queryByText('Page not found')).not.toBeInTheDocument();
  });
});
