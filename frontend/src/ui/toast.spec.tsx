import { act, render, screen, waitFor } from '@testing-library/react';
import { TOAST_DURATION_MS } from '@studio/contracts';
import { AppProviders } from '../AppProviders';
import { useToast, type Toast } from './toast';

/** The toast APIs of two screens of one app (one holder). */
function twoScreens(): [Toast, Toast] {
  const apis: Toast[] = [];
  function Screen({ index }: { index: number }) {
    apis[index] = useToast();
    return null;
  }
  render(
    <AppProviders>
      <Screen index={0} />
      <Screen index={1} />
    </AppProviders>,
  );
  return [apis[0], apis[1]];
}

describe('toasts', () => {
  it('a success closes the errors it resolves, from whichever screen they came', async () => {
    const [first, second] = twoScreens();
    act(() => first.error('Wrong username or password'));
    expect(await screen.findByText('Wrong username or password')).toBeInTheDocument();
    act(() => second.success('Logged in!'));
    expect(await screen.findByText('Logged in!')).toBeInTheDocument();
    // Gone because of the success, not because its own time ran out.
    await waitFor(() => expect(screen.queryByText('Wrong username or password')).not.toBeInTheDocument(), {
      timeout: TOAST_DURATION_MS / 2,
    });
  });

  it('keeps an error while nothing has succeeded since', async () => {
    const [toast] = twoScreens();
    act(() => toast.error('Your current password is not right'));
    act(() => toast.info('Checking…'));
    expect(await screen.findByText('Checking…')).toBeInTheDocument();
    expect(screen.getByText('Your current password is not right')).toBeInTheDocument();
  });
});
