import { SocketEvents, type SocketEventPayloads } from '@studio/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import { openSocket } from '../test/fakeSocket';
import { mockFetch, sessionAnswer } from '../test/fetchMock';
import { operationsAnswer } from '../test/operations';
import { rememberAccount, renderApp } from '../test/renderApp';

async function loggedIn(balance: number) {
  rememberAccount('alice');
  mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/operations': operationsAnswer(),
  });
  renderApp('/');
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.balanceChanged)).toBeGreaterThan(0));
}

function pushBalance(change: SocketEventPayloads['balance.changed']) {
  act(() => openSocket()!.serverEmit(SocketEvents.balanceChanged, change));
}

const toasts = () =>
  Array.from(document.querySelectorAll('.ant-notification-notice')).map((n) => n.textContent);

describe('RealtimeProvider', () => {
  it("toasts support's reimbursement with its reason, on any screen, as the balance rises", async () => {
    await loggedIn(9);
    pushBalance({ balance: 14, delta: 5, reason: 'The swap came out blurry', kind: 'reimbursement' });

    expect(screen.getByTestId('balance')).toHaveTextContent('14');
    const toast = await screen.findByText('Support added 5 credits');
    expect(toast.closest('.ant-notification-notice')).toHaveTextContent('The swap came out blurry');
    expect(toast.closest('.ant-notification-notice-success')).not.toBeNull();
  });

  it('changes only the balance for spending, and for a change whose kind the server does not send', async () => {
    await loggedIn(20);
    pushBalance({ balance: 19, delta: -1, reason: 'Face swap (1 image)', kind: 'reservation' });
    expect(screen.getByTestId('balance')).toHaveTextContent('19');
    pushBalance({ balance: 24, delta: 5, reason: 'The swap came out blurry' });
    expect(screen.getByTestId('balance')).toHaveTextContent('24');

    // A grant after them does toast: the quiet ones were not just slow.
    pushBalance({ balance: 25, delta: 1, reason: 'Welcome back', kind: 'grant' });
    await screen.findByText('Support added 1 credit');
    expect(toasts()).toEqual([expect.stringContaining('Support added 1 creditWelcome back')]);
  });

  it("toasts a moderator's decision on a held output, on any screen", async () => {
    await loggedIn(4);
    await waitFor(() =>
      expect(openSocket()?.listenerCount(SocketEvents.moderationDecided)).toBeGreaterThan(0),
    );
    act(() =>
      openSocket()!.serverEmit(SocketEvents.moderationDecided, {
        itemId: 'a',
        title: 'Portrait',
        decision: 'removed',
        heldFor: 'minor_face',
        note: 'Looks under 18',
        refunded: 1,
      }),
    );
    const toast = await screen.findByText('“Portrait” was removed after review');
    expect(toast.closest('.ant-notification-notice')).toHaveTextContent(
      'Reason: Looks under 18. 1 credit refunded.',
    );
  });
});
