import { PaymentMessages, SocketEvents } from '@studio/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import { openSocket } from '../../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

const SESSION = 'cs_test_a1';
const OUTCOME = `GET /api/checkout/${SESSION}`;
/** Who listens for the socket's (re)join: the header balance, the job tray and this page. */
const READY_LISTENERS = 3;
const outcome = (credited: number | null): FakeAnswer => ({
  status: 200,
  body: { message: 'success', content: { sessionId: SESSION, credited } },
});

describe('StripeResultPage', () => {
  beforeEach(() => {
    rememberAccount('alice');
    localStorage.setItem('cart', '2');
  });

  it('shows the coins at once when the webhook landed before the browser came back', async () => {
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 400 }),
      [OUTCOME]: outcome(400),
    });
    renderApp(`/stripe/success/${SESSION}`);

    expect(await screen.findByText(PaymentMessages.success)).toBeInTheDocument();
    expect(
      await screen.findByText(`${PaymentMessages.credited(400)} Your balance is 400 coins.`),
    ).toBeInTheDocument();
    expect(screen.queryByText(PaymentMessages.pleaseWait)).not.toBeInTheDocument();
    expect(callsTo(fetchMock, OUTCOME).length).toBeGreaterThan(0);
  });

  it('asks again when its socket has joined, so a webhook landing in between is not missed', async () => {
    let credited: number | null = null;
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 0 }),
      [OUTCOME]: () => outcome(credited),
    });
    renderApp(`/stripe/success/${SESSION}`);
    expect(await screen.findByText(PaymentMessages.pleaseWait)).toBeInTheDocument();
    await waitFor(() => expect(callsTo(fetchMock, OUTCOME)).toHaveLength(1));
    await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.ready)).toBe(READY_LISTENERS));

    credited = 400; // the webhook lands; its push went out before the socket joined the user's room
    act(() => openSocket()!.serverEmit(SocketEvents.ready, { username: 'alice' }));

    expect(await screen.findByTestId('credited')).toHaveTextContent(PaymentMessages.credited(400));
    expect(callsTo(fetchMock, OUTCOME)).toHaveLength(2);
  });

  it('shows the coins when the balance push arrives while it waits', async () => {
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 0 }),
      [OUTCOME]: outcome(null),
    });
    renderApp(`/stripe/success/${SESSION}`);
    await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.balanceChanged)).toBeGreaterThan(0));
    expect(screen.getByText(PaymentMessages.pleaseWait)).toBeInTheDocument();

    act(() =>
      openSocket()!.serverEmit(SocketEvents.balanceChanged, {
        balance: 400,
        delta: 400,
        reason: 'Bought 2 packs of 200 coins',
        kind: 'purchase',
      }),
    );
    expect(await screen.findByTestId('credited')).toHaveTextContent(
      `${PaymentMessages.credited(400)} Your balance is 400 coins.`,
    );
  });

  it('says what the server knows of a cancelled checkout: nothing charged', async () => {
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice' }),
      [OUTCOME]: outcome(null),
    });
    renderApp(`/stripe/canceled/${SESSION}`);
    expect(await screen.findByText(PaymentMessages.cancelled)).toBeInTheDocument();
    expect(await screen.findByText(PaymentMessages.nothingCharged)).toBeInTheDocument();
    expect(callsTo(fetchMock, OUTCOME).length).toBeGreaterThan(0);
  });

  it('never says "successful" for a session the server does not know (a made-up id)', async () => {
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 0 }),
      'GET /api/checkout/cs_test_madeup': {
        status: 404,
        body: { message: 'error', content: PaymentMessages.checkoutNotFound },
      },
    });
    renderApp('/stripe/success/cs_test_madeup');
    expect(await screen.findByText(PaymentMessages.checkoutUnknown)).toBeInTheDocument();
    expect(screen.queryByText(PaymentMessages.success)).not.toBeInTheDocument();
  });

  it('waits for the server before saying "successful"', async () => {
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 0 }),
      [OUTCOME]: outcome(null),
    });
    renderApp(`/stripe/success/${SESSION}`);
    expect(await screen.findByText(PaymentMessages.confirming)).toBeInTheDocument();
    expect(screen.queryByText(PaymentMessages.success)).not.toBeInTheDocument();
  });
});
