import { render } from '@testing-library/react';
import { MemoryRouter, useLocation } from 'react-router-dom';
import { AppProviders } from '../AppProviders';
import { AppRoutes } from '../AppRoutes';

/** Renders the whole client (real route table, layout and providers) at a path. */
export function renderApp(path = '/') {
  const location = { pathname: path };
  const view = render(
    <MemoryRouter initialEntries={[path]}>
      <AppProviders>
        <AppRoutes />
        <LocationProbe into={location} />
      </AppProviders>
    </MemoryRouter>,
  );
  return { ...view, pathname: () => location.pathname };
}

/** Lets a test read where the app navigated. */
function LocationProbe({ into }: { into: { pathname: string } }) {
  into.pathname = useLocation().pathname;
  return null;
}

/** Stores a login as a previous visit would have. */
export function rememberAccount(username: string): void {
  localStorage.setItem('account', username);
  localStorage.setItem('verified', 'false');
}
