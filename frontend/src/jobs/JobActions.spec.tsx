import { JobMessages, JobSocketEvents, type CancelJobResult, type JobView } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { openSocket } from '../test/fakeSocket';
import { callsTo, mockFetch, sentJobRef, sessionAnswer, type FakeAnswer } from '../test/fetchMock';
import {
  contentItems,
  deferred,
  jobsAnswer,
  jobView,
  pickImage,
  pushJobEvent,
  submitAnswer,
} from '../test/jobs';
import { operationsAnswer, ownProfile } from '../test/operations';
import { rememberAccount, renderApp } from '../test/renderApp';

jest.mock('../images/scaleImage', () => jest.requireActual('../test/fakeScaleImage'));

const ok = (content: unknown): FakeAnswer => ({ status: 200, body: { message: 'success', content } });
const cancelAnswer = (jobs: JobView[], refunded: number): FakeAnswer =>
  ok({ cancelled: jobs.length, refunded, jobs } satisfies CancelJobResult);

async function loggedIn(path: string, answers: Record<string, unknown> = {}, balance = 10) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/operations': operationsAnswer(),
    ...(answers as Record<string, FakeAnswer>),
  });
  const app = renderApp(path);
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  await waitFor(() => expect(openSocket()?.listenerCount(JobSocketEvents.cancelled)).toBe(1));
  return { fetchMock, app };
}

function trayRow(jobId: string) {
  const tray = screen.getByTestId('job-tray');
  return within(tray)
    .getAllByTestId('tray-job')
    .find((r) => r.getAttribute('data-job') === jobId)!;
}

async function openTray(jobs: JobView[], answers: Record<string, unknown> = {}, balance = 10) {
  const opened = await loggedIn('/', { 'GET /api/jobs': jobsAnswer(jobs), ...answers }, balance);
  fireEvent.click(screen.getByTestId('job-tray-toggle'));
  await screen.findByTestId('job-tray');
  return opened;
}

/** The open confirmation (antd Popconfirm) and its buttons. */
async function confirmation() {
  return (await screen.findAllByRole('tooltip')).at(-1)!.closest('.ant-popover') as HTMLElement;
}

const toasts = (text: string) =>
  screen.queryAllByText(text, { selector: '.ant-notification-notice-message' });

describe('queue position and ETA', () => {
  afterEach(() => jest.restoreAllMocks());

  it('shows place in line and estimate on a waiting job, live from the pushes, and time left on a running one', async () => {
    // The estimates count down from when they were heard: the clock stands still (a busy machine
    // may take seconds between a push and the check) until the test moves it.
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(start);
    const waiting = jobView({ tool: 'superResolution', position: 3, etaSeconds: 60 });
    const running = jobView({ tool: 'clone', state: 'running', progress: 40, etaSeconds: 40 });
    await openTray([running, waiting]);
    expect(within(trayRow(waiting._id)).getByTestId('job-wait')).toHaveTextContent(
      '3rd in line · about 1 min',
    );
    expect(within(trayRow(running._id)).getByTestId('job-wait')).toHaveTextContent(
      'Working on it · about 40 s left',
    );

    pushJobEvent(JobSocketEvents.positions, {
      tool: 'superResolution',
      positions: [{ jobId: waiting._id, position: 1, etaSeconds: 20 }],
    });
    expect(within(trayRow(waiting._id)).getByTestId('job-wait')).toHaveTextContent(
      'Next in line · about 20 s',
    );

    // Started: no place in line, the last estimate still counts down.
    pushJobEvent(JobSocketEvents.progress, { jobId: waiting._id, tool: 'superResolution', progress: 10 });
    expect(within(trayRow(waiting._id)).getByTestId('job-wait')).toHaveTextContent(
      'Working on it · about 20 s left',
    );
    // Ten seconds later, without a push: the tray's ticker counts it down.
    clock.mockReturnValue(start + 10_000);
    await waitFor(() =>
      expect(within(trayRow(waiting._id)).getByTestId('job-wait')).toHaveTextContent(
        'Working on it · about 10 s left',
      ),
    );
  });
});

describe('Cancel', () => {
  it('asks first, saying what is refunded, then cancels; the answer and the push toast once', async () => {
    const job = jobView({ tool: 'superResolution', state: 'queued', cost: 4, position: 2 });
    const gone = { ...job, state: 'cancelled' as const, refunded: 4 };
    const { fetchMock } = await openTray([job], {
      [`POST /api/jobs/${job._id}/cancel`]: cancelAnswer([gone], 4),
    });

    fireEvent.click(within(trayRow(job._id)).getByRole('button', { name: /Cancel/ }));
    const confirm = await confirmation();
    expect(confirm).toHaveTextContent('It leaves the queue and its 4 credits are refunded in full.');
    // "Keep it" sends nothing.
    fireEvent.click(within(confirm).getByRole('button', { name: 'Keep it' }));
    expect(callsTo(fetchMock, `POST /api/jobs/${job._id}/cancel`)).toHaveLength(0);

    fireEvent.click(within(trayRow(job._id)).getByRole('button', { name: /Cancel/ }));
    fireEvent.click(within(await confirmation()).getByRole('button', { name: 'Cancel job' }));
    await waitFor(() => expect(trayRow(job._id)).toHaveAttribute('data-state', 'cancelled'));
    expect(callsTo(fetchMock, `POST /api/jobs/${job._id}/cancel`)).toHaveLength(1);
    expect(within(trayRow(job._id)).getByText('Cancelled')).toBeInTheDocument();
    expect(within(trayRow(job._id)).getByText(/4 credits were refunded\./)).toBeInTheDocument();
    // An ended job offers to run again instead.
    expect(within(trayRow(job._id)).queryByRole('button', { name: /Cancel/ })).not.toBeInTheDocument();
    expect(within(trayRow(job._id)).getByRole('button', { name: /Run again/ })).toBeInTheDocument();

    pushJobEvent(JobSocketEvents.cancelled, { job: gone, refunded: 4 });
    expect(toasts('Super resolution cancelled')).toHaveLength(1);
  });

  it('follows a cancel made in another tab (or by staff), with the refund', async () => {
    const job = jobView({ tool: 'faceSwap', state: 'running', cost: 1, progress: 30 });
    await openTray([job]);
    pushJobEvent(JobSocketEvents.cancelled, {
      job: { ...job, state: 'cancelled', refunded: 1, cancelledByStaff: true },
      refunded: 1,
    });
    expect(trayRow(job._id)).toHaveAttribute('data-state', 'cancelled');
    expect(within(trayRow(job._id)).getByText(/Cancelled by our support team\./)).toBeInTheDocument();
    expect(toasts('Face swap was cancelled by our support team')).toHaveLength(1);
    // A late progress event does not bring it back.
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'faceSwap', progress: 80 });
    expect(trayRow(job._id)).toHaveAttribute('data-state', 'cancelled');
  });

  it('says so when the job ended before the cancel arrived', async () => {
    const job = jobView({ tool: 'clone', state: 'running', progress: 90 });
    await openTray([job], {
      [`POST /api/jobs/${job._id}/cancel`]: {
        status: 409,
        body: { message: 'error', content: JobMessages.alreadyEnded },
      },
    });
    fireEvent.click(within(trayRow(job._id)).getByRole('button', { name: /Cancel/ }));
    expect(await confirmation()).toHaveTextContent('It stops now and its 1 credit is refunded in full.');
    fireEvent.click(within(await confirmation()).getByRole('button', { name: 'Cancel job' }));
    expect(await screen.findByText(JobMessages.alreadyEnded)).toBeInTheDocument();
  });

  it('cancels the rest of a bulk batch from its tray row and from its folder page', async () => {
    const batch = { id: 'b1', name: 'Dresses' };
    const done = jobView({ tool: 'inpaint', state: 'succeeded', batch, folderId: 'f1' });
    const open = [1, 2, 3].map(() => jobView({ tool: 'inpaint', state: 'queued', batch, folderId: 'f1' }));
    const gone = open.map((job) => ({ ...job, state: 'cancelled' as const, refunded: 1 }));
    const { fetchMock } = await openTray([...open, done], {
      'POST /api/jobs/batches/b1/cancel': cancelAnswer(gone, 3),
      'GET /api/getBulkInpaints/f1': ok({
        title: 'Bulk',
        inpaint: [{ _id: 'b1', title: 'STATUS: Dresses: 1 of 4 done', amount: 4 }],
        inpaints: contentItems(1, done._id),
      }),
    });
    const row = within(screen.getByTestId('job-tray')).getByTestId('tray-batch');
    fireEvent.click(within(row).getByRole('button', { name: /Cancel/ }));
    expect(await confirmation()).toHaveTextContent(
      'The 3 images not made yet are dropped and 3 credits refunded. Finished images stay.',
    );
    fireEvent.click(within(await confirmation()).getByRole('button', { name: 'Keep it' }));

    // The folder page's status line has the same button.
    fireEvent.click(within(row).getByRole('link', { name: /Open folder/ }));
    const status = await screen.findByTestId('batch-status');
    fireEvent.click(within(status).getByRole('button', { name: /Cancel/ }));
    fireEvent.click(within(await confirmation()).getByRole('button', { name: 'Cancel batch' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/jobs/batches/b1/cancel')).toHaveLength(1));
    expect(await screen.findByText('3 jobs cancelled')).toBeInTheDocument();
    expect(screen.getByText('3 credits were refunded.')).toBeInTheDocument();
    // Its jobs are all ended now: nothing left to cancel.
    await waitFor(() =>
      expect(within(status).queryByRole('button', { name: /Cancel/ })).not.toBeInTheDocument(),
    );
  });
});

describe('Run again', () => {
  it('confirms the price and balance, asks again at the new price on a 409, then tracks the new job', async () => {
    const job = jobView({ tool: 'superResolution', state: 'succeeded', cost: 3, progress: 100 });
    const fresh = jobView({ tool: 'superResolution', state: 'queued', cost: 5, position: 1 });
    const answers = [
      { status: 409, body: { message: 'error', content: JobMessages.priceChanged, cost: 5 } },
      ok(fresh),
    ];
    const { fetchMock } = await openTray([job], {
      [`POST /api/jobs/${job._id}/retry`]: () => answers.shift()!,
    });

    fireEvent.click(within(trayRow(job._id)).getByRole('button', { name: /Run again/ }));
    let confirm = await confirmation();
    expect(within(confirm).getByTestId('run-again-price')).toHaveTextContent(
      'The same inputs and settings, for 3 credits. Your balance is 10.',
    );
    fireEvent.click(within(confirm).getByRole('button', { name: 'Run for 3 credits' }));
    await waitFor(() => expect(callsTo(fetchMock, `POST /api/jobs/${job._id}/retry`)).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, `POST /api/jobs/${job._id}/retry`)[0].body))).toEqual({
      expectedCost: 3,
    });

    confirm = await confirmation();
    await within(confirm).findByText('The price has changed');
    expect(within(confirm).getByTestId('run-again-price')).toHaveTextContent('It now costs 5 credits.');
    fireEvent.click(within(confirm).getByRole('button', { name: 'Run for 5 credits' }));
    await waitFor(() => expect(callsTo(fetchMock, `POST /api/jobs/${job._id}/retry`)).toHaveLength(2));
    expect(JSON.parse(String(callsTo(fetchMock, `POST /api/jobs/${job._id}/retry`)[1].body))).toEqual({
      expectedCost: 5,
    });
    await waitFor(() => expect(trayRow(fresh._id)).toHaveAttribute('data-state', 'queued'));
    await waitFor(() => expect(toasts('Super resolution started again')).toHaveLength(1));
  });

  it('cannot be confirmed when the balance is short of the price', async () => {
    const job = jobView({ tool: 'clone', state: 'failed', cost: 12, refunded: 12 });
    const { fetchMock } = await openTray([job], {}, 10);
    fireEvent.click(within(trayRow(job._id)).getByRole('button', { name: /Run again/ }));
    const confirm = await confirmation();
    expect(confirm).toHaveTextContent('Not enough credits');
    expect(within(confirm).getByRole('button', { name: 'Run for 12 credits' })).toBeDisabled();
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('/retry'))).toBe(false);
  });
});

describe('Edit and run', () => {
  it('opens the tool with ?from=<job>, and is disabled with a reason when the inputs are gone', async () => {
    const kept = jobView({ tool: 'faceSwap', state: 'succeeded', inputCount: 2 });
    const gone = jobView({ tool: 'clone', state: 'cancelled', inputCount: 0 });
    const generated = jobView({ tool: 'generate', state: 'succeeded', inputCount: 0 });
    const { app } = await openTray([kept, gone, generated], {
      'GET /api/getProfile/alice': ownProfile('alice', 10, []),
      [`GET /api/jobs/${kept._id}`]: deferred().responder,
    });

    const disabled = within(trayRow(gone._id)).getByRole('button', { name: /Edit and run/ });
    expect(disabled).toBeDisabled();
    expect(within(trayRow(gone._id)).getByRole('button', { name: /Run again/ })).toBeDisabled();
    fireEvent.mouseEnter(disabled.parentElement!);
    expect(await screen.findByText(JobMessages.inputsGone)).toBeInTheDocument();
    // Generate keeps no files: its tags are enough.
    expect(within(trayRow(generated._id)).getByRole('button', { name: /Edit and run/ })).toBeEnabled();

    fireEvent.click(within(trayRow(kept._id)).getByRole('button', { name: /Edit and run/ }));
    await waitFor(() => expect(app.pathname()).toBe('/swap'));
    expect(await screen.findByTestId('prefill-notice')).toHaveTextContent("Bringing in the job's inputs");
  });
});

describe('the jobs page', () => {
  it('has Cancel on open jobs and Run again / Edit and run on ended ones, and follows the socket', async () => {
    const waiting = jobView({ tool: 'clone', state: 'queued', cost: 2, position: 4, etaSeconds: 180 });
    const finished = jobView({ tool: 'superResolution', state: 'succeeded', progress: 100 });
    const history = ok({ items: [waiting, finished], pageSize: 20, next: null });
    await loggedIn('/jobs', { 'GET /api/jobs': jobsAnswer([waiting]), 'GET /api/jobs/history': history });
    const rows = await screen.findAllByTestId('history-job');
    const row = (job: JobView) => rows.find((r) => r.getAttribute('data-job') === job._id)!;
    expect(within(row(waiting)).getByTestId('job-wait')).toHaveTextContent('4th in line · about 3 min');
    expect(within(row(waiting)).getByRole('button', { name: /Cancel/ })).toBeInTheDocument();
    expect(within(row(finished)).getByRole('button', { name: /Run again/ })).toBeInTheDocument();
    expect(within(row(finished)).getByRole('button', { name: /Edit and run/ })).toBeInTheDocument();

    pushJobEvent(JobSocketEvents.cancelled, {
      job: { ...waiting, state: 'cancelled', refunded: 2 },
      refunded: 2,
    });
    expect(within(row(waiting)).getByText('Cancelled')).toBeInTheDocument();
    expect(within(row(waiting)).getByText(/2 credits were refunded\./)).toBeInTheDocument();
    expect(within(row(waiting)).getByRole('button', { name: /Run again/ })).toBeInTheDocument();
  });
});

describe('the result modal', () => {
  it('offers Cancel with the place in line while the job waits, then shows it cancelled with Run again', async () => {
    const job = jobView({ tool: 'superResolution', state: 'queued', cost: 2, position: 2, etaSeconds: 150 });
    const gone = { ...job, state: 'cancelled' as const, refunded: 2 };
    const { fetchMock } = await loggedIn('/superresolution', {
      'POST /api/superResolution': submitAnswer('processing', job),
      [`POST /api/jobs/${job._id}/cancel`]: cancelAnswer([gone], 2),
    });
    await pickImage('Image to upscale', 'small.png');
    await screen.findByTestId('image-preview');
    fireEvent.click(screen.getByRole('button', { name: /Super Resolution/ }));
    const modal = await screen.findByTestId('job-modal');
    await within(modal).findByText('Check Later!');
    expect(within(modal).getByTestId('job-wait')).toHaveTextContent('2nd in line · about 2 min');

    fireEvent.click(within(modal).getByRole('button', { name: /Cancel/ }));
    fireEvent.click(within(await confirmation()).getByRole('button', { name: 'Cancel job' }));
    await waitFor(() => expect(callsTo(fetchMock, `POST /api/jobs/${job._id}/cancel`)).toHaveLength(1));
    // The press on the confirmation did not close the modal; it now says what happened.
    await waitFor(() => expect(screen.getByTestId('job-modal')).toHaveAttribute('data-phase', 'cancelled'));
    expect(
      within(screen.getByTestId('job-modal')).getByText('2 credits were refunded.', { exact: false }),
    ).toBeInTheDocument();
    expect(
      within(screen.getByTestId('job-modal')).getByRole('button', { name: /Run again/ }),
    ).toBeInTheDocument();
  });

  it('keeps showing a job cancelled from another tab while its request waited', async () => {
    const answer = deferred();
    const { fetchMock } = await loggedIn('/superresolution', {
      'POST /api/superResolution': answer.responder,
    });
    await pickImage('Image to upscale', 'small.png');
    await screen.findByTestId('image-preview');
    fireEvent.click(screen.getByRole('button', { name: /Super Resolution/ }));
    const [request] = callsTo(fetchMock, 'POST /api/superResolution');
    const job = {
      ...jobView({ tool: 'superResolution', state: 'queued', cost: 2 }),
      ref: sentJobRef(request),
    };
    pushJobEvent(JobSocketEvents.queued, { job, position: 1 });
    pushJobEvent(JobSocketEvents.cancelled, {
      job: { ...job, state: 'cancelled', refunded: 2 },
      refunded: 2,
    });
    expect(screen.getByTestId('job-modal')).toHaveAttribute('data-phase', 'cancelled');
    await act(async () =>
      answer.release({ status: 409, body: { message: 'error', content: JobMessages.alreadyEnded } }),
    );
    expect(screen.getByTestId('job-modal')).toHaveAttribute('data-phase', 'cancelled');
    expect(screen.queryByText(JobMessages.alreadyEnded)).not.toBeInTheDocument();
  });
});
