import { JobSocketEvents, SAFETY_REASONS } from '@studio/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { openSocket } from '../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer } from '../test/fetchMock';
import { contentItems, jobsAnswer, jobView, pushJobEvent } from '../test/jobs';
import { rememberAccount, renderApp } from '../test/renderApp';
import { TRAY_DOCK_QUERY } from './trayDock';

function rows() {
  return within(screen.getByTestId('job-tray')).getAllByTestId('tray-job');
}

function row(jobId: string) {
  return rows().find((r) => r.getAttribute('data-job') === jobId)!;
}

async function loggedIn(jobs = jobsAnswer([])) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance: 10 }),
    'GET /api/jobs': jobs,
  });
  renderApp('/');
  await waitFor(() => expect(callsTo(fetchMock, 'GET /api/jobs')).toHaveLength(1));
  await waitFor(() => expect(openSocket()?.listenerCount(JobSocketEvents.progress)).toBe(1));
  return fetchMock;
}

/** Makes the window as wide as a desktop's (the tray opens by itself only where it can dock). */
function screenWide(wide: boolean) {
  const original = window.matchMedia;
  window.matchMedia = (query: string) => ({ ...original(query), matches: wide && query === TRAY_DOCK_QUERY });
}

describe('JobTray', () => {
  beforeEach(() => screenWide(true));

  it('is not there for a logged-out visitor, who is not asked for jobs', () => {
    const fetchMock = mockFetch();
    renderApp('/');
    expect(screen.queryByTestId('job-tray-toggle')).not.toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('lists the jobs from GET /api/jobs: progress, results with their folder, failures with the refund', async () => {
    const running = jobView({ tool: 'superResolution', state: 'running', progress: 30 });
    const done = jobView({ tool: 'clone', state: 'succeeded', progress: 100, folderId: 'f9' });
    done.items = contentItems(3, done._id);
    const failed = jobView({
      tool: 'faceSwap',
      state: 'failed',
      error: 'No face found in the face image',
      refunded: 1,
    });
    await loggedIn(jobsAnswer([running, done, failed]));

    // Closed until the user opens it (no job started on this page).
    expect(screen.queryByTestId('job-tray')).not.toBeInTheDocument();
    const toggle = screen.getByTestId('job-tray-toggle');
    expect(toggle.closest('.ant-badge')).toHaveTextContent('1');
    fireEvent.click(toggle);

    // Active jobs first, then the finished ones, newest first.
    expect(rows().map((r) => r.getAttribute('data-state'))).toEqual(['running', 'failed', 'succeeded']);
    expect(within(row(running._id)).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '30');
    expect(within(row(done._id)).getByText(/3 images/)).toBeInTheDocument();
    expect(within(row(done._id)).getByRole('link', { name: /Open folder/ })).toHaveAttribute(
      'href',
      '/profile/bulkInpaints/f9',
    );
    expect(within(row(failed._id)).getByText('No face found in the face image')).toBeInTheDocument();
    expect(within(row(failed._id)).getByText('1 credit was refunded.')).toBeInTheDocument();

    fireEvent.click(screen.getByRole('button', { name: 'Close the job tray' }));
    expect(screen.queryByTestId('job-tray')).not.toBeInTheDocument();
  });

  it('over the page (narrow screen), folds away when the page is pressed elsewhere, not when the panel is', async () => {
    screenWide(false);
    await loggedIn(jobsAnswer([jobView({ tool: 'clone', state: 'running', progress: 5 })]));
    fireEvent.click(screen.getByTestId('job-tray-toggle'));
    fireEvent.mouseDown(rows()[0]);
    expect(screen.getByTestId('job-tray')).toBeInTheDocument();
    fireEvent.mouseDown(screen.getByRole('heading', { name: 'Clone' }));
    expect(screen.queryByTestId('job-tray')).not.toBeInTheDocument();
  });

  it('docked beside the page (wide screen), stays open when the page is pressed', async () => {
    await loggedIn(jobsAnswer([jobView({ tool: 'clone', state: 'running', progress: 5 })]));
    fireEvent.click(screen.getByTestId('job-tray-toggle'));
    expect(document.querySelector('.app-shell')).toHaveClass('job-tray-docked');
    fireEvent.mouseDown(screen.getByRole('heading', { name: 'Clone' }));
    expect(screen.getByTestId('job-tray')).toBeInTheDocument();
  });

  it('opens when a job starts and follows it over the socket to its result, with a toast', async () => {
    await loggedIn();
    const job = jobView({ tool: 'clone', state: 'queued', cost: 4 });
    pushJobEvent(JobSocketEvents.queued, { job, position: 2 });

    expect(screen.getByTestId('job-tray')).toBeInTheDocument();
    expect(within(row(job._id)).getByText('Queued')).toBeInTheDocument();
    expect(within(row(job._id)).getByText('2nd in line')).toBeInTheDocument();
    pushJobEvent(JobSocketEvents.positions, { tool: 'clone', positions: [{ jobId: job._id, position: 1 }] });
    expect(within(row(job._id)).getByText('Next in line')).toBeInTheDocument();

    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'clone', progress: 25 });
    expect(within(row(job._id)).getByText('Running')).toBeInTheDocument();
    expect(within(row(job._id)).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '25');
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'clone', progress: 75 });
    expect(within(row(job._id)).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '75');

    const items = contentItems(4, job._id);
    pushJobEvent(JobSocketEvents.completed, { job: { ...job, state: 'succeeded', progress: 100, items } });
    expect(row(job._id)).toHaveAttribute('data-state', 'succeeded');
    expect(within(row(job._id)).getByRole('link', { name: /Open folder/ })).toHaveAttribute(
      'href',
      '/profile/bulkInpaints/folder1',
    );
    expect(await screen.findByText('Clones ready')).toBeInTheDocument();
    expect(screen.getByText('4 images were added to your folder.')).toBeInTheDocument();

    // A late progress event or a repeated completion changes nothing and toasts nothing more.
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'clone', progress: 90 });
    pushJobEvent(JobSocketEvents.completed, { job: { ...job, state: 'succeeded', progress: 100, items } });
    expect(row(job._id)).toHaveAttribute('data-state', 'succeeded');
    expect(screen.getAllByText('Clones ready')).toHaveLength(1);
  });

  it("counts a batch's whole size from its first job's event, before the others' have arrived", async () => {
    await loggedIn();
    const batch = { id: 'b12', name: 'Twelve', size: 12 };
    const first = jobView({ tool: 'inpaint', state: 'queued', batch });
    pushJobEvent(JobSocketEvents.queued, { job: first, position: 1 });
    const batchRow = screen.getByTestId('tray-batch');
    expect(batchRow).toHaveAttribute('data-jobs', '12');
    expect(within(batchRow).getByText(/0 of 12 done/)).toBeInTheDocument();

    // The first job ends while the other eleven are still on their way: the batch is not done.
    pushJobEvent(JobSocketEvents.completed, { job: { ...first, state: 'succeeded', progress: 100 } });
    expect(batchRow).toHaveAttribute('data-state', 'running');
    expect(within(batchRow).getByText(/1 of 12 done/)).toBeInTheDocument();
    expect(within(batchRow).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '8');
  });

  it('shows a failure with its message and refund, and toasts it', async () => {
    await loggedIn();
    const job = jobView({ tool: 'faceSwap', state: 'running', progress: 10 });
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'faceSwap', progress: 10 });
    expect(screen.getByTestId('job-tray')).toBeInTheDocument();

    pushJobEvent(JobSocketEvents.failed, {
      job: { ...job, state: 'failed', error: 'No face found in the target image', refunded: 1 },
      message: 'No face found in the target image',
      refunded: 1,
    });
    expect(row(job._id)).toHaveAttribute('data-state', 'failed');
    expect(within(row(job._id)).getByText('Failed')).toBeInTheDocument();
    expect(within(row(job._id)).getByText('1 credit was refunded.')).toBeInTheDocument();
    expect(
      screen.getByText('No face found in the target image', { selector: '.ant-notification-notice-message' }),
    ).toBeInTheDocument();
  });

  it('says a held job waits for review (nothing added to the folder), then shows its image once released', async () => {
    await loggedIn();
    const job = jobView({ tool: 'generate', state: 'running', progress: 50 });
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'generate', progress: 50 });
    pushJobEvent(JobSocketEvents.completed, {
      job: { ...job, state: 'succeeded', progress: 100, held: 'minor_face' },
    });
    expect(within(row(job._id)).getByTestId('job-held')).toHaveTextContent('Held for review');
    expect(await screen.findByText('Generated held for review')).toBeInTheDocument();
    expect(screen.getByText(SAFETY_REASONS.minor_face)).toBeInTheDocument();
    expect(screen.queryByText('The result was added to your folder.')).not.toBeInTheDocument();

    // Released: the server pushes the job again with its item.
    pushJobEvent(JobSocketEvents.completed, {
      job: { ...job, state: 'succeeded', progress: 100, items: contentItems(1, job._id) },
    });
    expect(within(row(job._id)).queryByTestId('job-held')).not.toBeInTheDocument();
    expect(within(row(job._id)).getByText(/1 image/)).toBeInTheDocument();
  });

  it('stays closed on a narrow screen when a job starts (it would cover the form), open on request', async () => {
    screenWide(false);
    await loggedIn();
    const job = jobView({ tool: 'faceSwap', state: 'queued' });
    pushJobEvent(JobSocketEvents.queued, { job, position: 1 });
    expect(screen.queryByTestId('job-tray')).not.toBeInTheDocument();
    fireEvent.click(screen.getByTestId('job-tray-toggle'));
    expect(row(job._id)).toHaveAttribute('data-state', 'queued');
  });
});
