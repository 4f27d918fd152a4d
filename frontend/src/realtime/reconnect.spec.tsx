import { Messages, SocketEvents } from '@studio/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import { STUDIO_NOT_ANSWERING, studioAvailability } from '../api/availability';
import { openSocket } from '../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../test/fetchMock';
import { jobsAnswer, jobView } from '../test/jobs';
import { rememberAccount, renderApp } from '../test/renderApp';

const ready: FakeAnswer = { status: 200, body: { message: 'success', content: { status: 'ready' } } };
const badge = () => screen.getByTestId('job-tray-toggle').closest('.ant-badge');

/** Logged in on the home screen with one running job; the test decides what the server says next. */
async function loggedInWithRunningJob() {
  rememberAccount('alice');
  const job = jobView({ tool: 'clone', state: 'running', progress: 40 });
  const server = {
    balance: 9,
    jobs: [job],
    readiness: ready as FakeAnswer | (() => never),
  };
  const fetchMock = mockFetch({
    'GET /api/session': () => sessionAnswer({ username: 'alice', balance: server.balance }),
    'GET /api/jobs': () => jobsAnswer(server.jobs),
    'GET /api/billing/allowance': { status: 404, body: { message: 'error', content: 'none' } },
    'GET /api/health/ready': () =>
      typeof server.readiness === 'function' ? server.readiness() : server.readiness,
  });
  renderApp('/');
  await waitFor(() => expect(badge()).toHaveTextContent('1'));
  await waitFor(() => expect(openSocket()?.listenerCount(SocketEvents.ready)).toBeGreaterThan(0));
  return { job, server, fetchMock, socket: openSocket()! };
}

// A loaded machine renders the app slowly; the waits return as soon as what they wait for shows.
jest.setTimeout(30_000);

describe('the socket through an outage', () => {
  it('reconnects by itself, forever, with randomised growing waits', async () => {
    const { socket } = await loggedInWithRunningJob();
    expect(socket.options).toMatchObject({
      withCredentials: true,
      reconnection: true,
      reconnectionAttempts: Infinity,
      randomizationFactor: 0.5,
    });
  });

  it('tries again when the server refused the handshake because a part was down', async () => {
    const { socket } = await loggedInWithRunningJob();
    act(() => socket.refuse('Server selection timed out after 1500 ms'));
    await waitFor(() => expect(socket.connects).toBe(1));
    expect(socket.active).toBe(true);
  });

  it('a lost connection shows the banner while nothing answers; reconnected, the tray and balance are read again', async () => {
    const { job, server, fetchMock, socket } = await loggedInWithRunningJob();
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    server.readiness = () => {
      throw new TypeError('Failed to fetch');
    };
    act(() => socket.serverEmit('disconnect', 'transport close'));
    await waitFor(() => expect(screen.getByTestId('studio-banner')).toHaveTextContent(STUDIO_NOT_ANSWERING));

    // Meanwhile the job ended and the balance moved; their pushes went nowhere.
    server.jobs = [{ ...job, state: 'succeeded', progress: 100 }];
    server.balance = 4;
    const jobReads = callsTo(fetchMock, 'GET /api/jobs').length;
    server.readiness = ready;
    act(() => socket.serverEmit('connect', undefined));
    await waitFor(() => expect(screen.getByTestId('studio-banner')).toBeEmptyDOMElement());
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/jobs').length).toBeGreaterThan(jobReads));
    await waitFor(() => expect(badge()).not.toHaveTextContent('1'));
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('4'));
  });

  it('when the studio comes back while the socket stayed open, what was pushed meanwhile is read again', async () => {
    const { job, server, fetchMock } = await loggedInWithRunningJob();
    // Redis down: the API kept the socket, but its pushes (through Redis) were lost.
    act(() => studioAvailability.reportUnavailable(true));
    await waitFor(() => expect(screen.getByTestId('studio-banner')).toHaveTextContent(Messages.briefOutage));
    server.jobs = [{ ...job, state: 'succeeded', progress: 100 }];
    server.balance = 3;
    const sessionReads = callsTo(fetchMock, 'GET /api/session').length;

    // The page's next check of readiness finds it back (within its first backoff step).
    await waitFor(() => expect(screen.getByTestId('studio-banner')).toBeEmptyDOMElement());
    await waitFor(() => expect(badge()).not.toHaveTextContent('1'));
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('3'));
    expect(callsTo(fetchMock, 'GET /api/session').length).toBeGreaterThan(sessionReads);
  });
});
