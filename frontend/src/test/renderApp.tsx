import { render } from '@testing-library/react';
import { createMemoryRouter, RouterProvider } from 'react-router-dom';
import { AppProviders } from '../AppProviders';
import { routes } from '../routes';

/** Renders the whole client (real route table, layout and providers) at a path. */
export function renderApp(path = '/') {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const view = render(
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...view, router, pathname: () => router.state.location.pathname };
}

/** Stores a login as a previous visit would have. */
export function rememberAccount(username: string): void {
  localStorage.setItem('account', username);
  localStorage.setItem('verified', 'false');
}
