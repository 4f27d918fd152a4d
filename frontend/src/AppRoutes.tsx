import { useRoutes } from 'react-router-dom';
import { routes } from './routes';

/** Renders the route table under whichever router the caller provides. */
export function AppRoutes() {
  return useRoutes(routes);
}
