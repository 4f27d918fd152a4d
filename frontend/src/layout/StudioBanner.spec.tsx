import { Messages } from '@studio/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { STUDIO_NOT_ANSWERING } from '../api/availability';
import { briefOutage, callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../test/fetchMock';
import { jobsAnswer, jobView } from '../test/jobs';
import { operationsAnswer } from '../test/operations';
import { rememberAccount, renderApp } from '../test/renderApp';

const notReady: FakeAnswer = { status: 503, body: { message: 'error', content: { status: 'not_ready' } } };
const ready: FakeAnswer = { status: 200, body: { message: 'success', content: { status: 'ready' } } };

/** The studio's parts, down until the test brings them back. */
function outage() {
  const state = { down: true };
  // Retry-After 1 s: the page's first check comes within a test's wait.
  const whileDown = (answer: FakeAnswer) => () => (state.down ? briefOutage(1) : answer);
  return { state, whileDown, readiness: () => (state.down ? notReady : ready) };
}

const banner = () => screen.getByTestId('studio-banner');
const toasts = () => document.querySelectorAll('.ant-notification-notice');

/** How many times a banner line was put on the page: one calm banner does not blink. */
function countBannerShows(): () => number {
  let shows = 0;
  const observer = new MutationObserver((records) => {
    for (const record of records)
      record.addedNodes.forEach((node) => {
        if (node instanceof HTMLElement && node.classList.contains('ant-alert')) shows += 1;
      });
  });
  observer.observe(banner(), { childList: true });
  return () => shows;
}

// A loaded machine renders the app slowly; the waits return as soon as what they wait for shows.
jest.setTimeout(30_000);

describe('StudioBanner', () => {
  it('stays out of the way while the studio answers', async () => {
    mockFetch();
    renderApp('/');
    expect(banner()).toHaveAttribute('role', 'status');
    expect(banner()).toHaveAttribute('aria-live', 'polite');
    expect(banner()).toBeEmptyDOMElement();
  });

  it('a page opened during an outage shows one banner, no error toasts, and fills in by itself once the studio is back', async () => {
    rememberAccount('alice');
    const { state, whileDown, readiness } = outage();
    const job = jobView({ tool: 'clone', state: 'running', progress: 40 });
    const fetchMock = mockFetch({
      'GET /api/session': whileDown(sessionAnswer({ username: 'alice', balance: 7 })),
      'GET /api/jobs': whileDown(jobsAnswer([job])),
      'GET /api/operations': whileDown(operationsAnswer()),
      'GET /api/billing/allowance': whileDown({ status: 404, body: { message: 'error', content: 'none' } }),
      'GET /api/health/ready': readiness,
    });
    renderApp('/');
    const status = await screen.findByRole('status');
    await waitFor(() => expect(status).toHaveTextContent(Messages.briefOutage));
    const shows = countBannerShows();

    // Reads are asked again (the page's check of readiness included) while it is down...
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/session').length).toBeGreaterThan(1));
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/health/ready').length).toBeGreaterThan(1));
    expect(within(banner()).getAllByText(Messages.briefOutage)).toHaveLength(1);
    expect(toasts()).toHaveLength(0);

    // ...and the page fills in without a reload once it is back; the banner goes by itself.
    state.down = false;
    await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('7'));
    await waitFor(() => expect(banner()).toBeEmptyDOMElement());
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/jobs').length).toBeGreaterThan(0));
    await waitFor(() =>
      expect(screen.getByTestId('job-tray-toggle').closest('.ant-badge')).toHaveTextContent('1'),
    );
    expect(shows()).toBe(0);
    expect(toasts()).toHaveLength(0);
  });

  it('a write is sent once: the banner tells why, the form stays as it was for the user to press again', async () => {
    const { whileDown, readiness } = outage();
    const fetchMock = mockFetch({
      'POST /api/login': whileDown({ status: 200, body: { message: 'success', content: {} } }),
      'GET /api/health/ready': readiness,
    });
    renderApp('/login');
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'alice' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret-pass-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log In' }));

    await waitFor(() => expect(banner()).toHaveTextContent(Messages.briefOutage));
    expect(callsTo(fetchMock, 'POST /api/login')).toHaveLength(1);
    expect(toasts()).toHaveLength(0);
    expect(screen.getByLabelText('Username')).toHaveValue('alice');
    expect(screen.getByLabelText('Password')).toHaveValue('secret-pass-1');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Log In' })).toBeEnabled());
    // Still once, after the page has checked readiness again meanwhile.
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/health/ready').length).toBeGreaterThan(0));
    expect(callsTo(fetchMock, 'POST /api/login')).toHaveLength(1);
  });

  it('says the studio does not answer, without a word on charges, when nothing answers at all', async () => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const fetchMock = mockFetch({});
    fetchMock.mockImplementation(async () => {
      throw new TypeError('Failed to fetch');
    });
    renderApp('/login');
    fireEvent.change(screen.getByLabelText('Username'), { target: { value: 'alice' } });
    fireEvent.change(screen.getByLabelText('Password'), { target: { value: 'secret-pass-1' } });
    fireEvent.click(screen.getByRole('button', { name: 'Log In' }));
    await waitFor(() => expect(banner()).toHaveTextContent(STUDIO_NOT_ANSWERING));
    expect(banner()).not.toHaveTextContent('charged');
    expect(toasts()).toHaveLength(0);
  });
});
