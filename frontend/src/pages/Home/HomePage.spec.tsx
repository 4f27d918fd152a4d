import { JobSocketEvents, Messages } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sentForm, sentJobRef, sessionAnswer } from '../../test/fetchMock';
import { contentItems, deferred, jobView, pickImage, pushJobEvent, submitAnswer } from '../../test/jobs';
import { expectLiveToolNotices, operationsAnswer } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';

jest.mock('../../images/scaleImage', () => jest.requireActual('../../test/fakeScaleImage'));

const LABEL = 'Image to clone';

async function openCloneModal() {
  await screen.findByTestId('image-preview');
  fireEvent.click(screen.getByRole('button', { name: /Clone/ }));
  return screen.findByRole('dialog', { name: 'Create new clones' });
}

function setAmount(dialog: HTMLElement, amount: number) {
  fireEvent.change(within(dialog).getByLabelText('Amount'), { target: { value: String(amount) } });
}

async function loggedInWithBalance(balance: number, answers = {}) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/operations': operationsAnswer(),
    ...answers,
  });
  const app = renderApp('/');
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  return { fetchMock, app };
}

describe('Clone screen (HomePage)', () => {
  it('welcomes a logged-out visitor and sends them to log in when they try to clone', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/');
    expect(screen.getByRole('button', { name: 'Create an account' })).toBeInTheDocument();
    expect(screen.getByText('Drag a file or click here...')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /Clone/ })).toBeDisabled();

    await pickImage(LABEL);
    await screen.findByTestId('image-preview');
    fireEvent.click(screen.getByRole('button', { name: /Clone/ }));

    expect(await screen.findByText(Messages.needLogin)).toBeInTheDocument();
    await waitFor(() => expect(app.pathname()).toBe('/login'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows the clone tool's maintenance notices and follows the admins' changes live", async () => {
    await expectLiveToolNotices({
      tool: 'clone',
      otherTool: 'generate',
      text: 'Cloning is slower than usual.',
      open: (answers) => loggedInWithBalance(10, answers),
    });
  });

  it('refuses an amount above the balance and sends nothing', async () => {
    const { fetchMock } = await loggedInWithBalance(3);
    await pickImage(LABEL);
    const dialog = await openCloneModal();
    expect(within(dialog).getByTestId('clone-cost')).toHaveTextContent('Costs 1 credit · your balance is 3');

    setAmount(dialog, 5);
    expect(within(dialog).getByTestId('clone-cost')).toHaveTextContent('Costs 5 credits');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Generate Clones' }));

    expect(await screen.findByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/generateNoise')).toHaveLength(0);
    expect(screen.getByRole('dialog', { name: 'Create new clones' })).toBeInTheDocument();
  });

  it('sends the image, amount and author, follows the job over the socket, then shows the clones', async () => {
    const answer = deferred();
    const { fetchMock } = await loggedInWithBalance(10, { 'POST /api/generateNoise': answer.responder });
    const file = await pickImage(LABEL, 'portrait.png');
    const dialog = await openCloneModal();
    setAmount(dialog, 3);
    fireEvent.click(within(dialog).getByRole('button', { name: 'Generate Clones' }));

    const modal = await screen.findByTestId('job-modal');
    expect(modal).toHaveAttribute('data-phase', 'generating');
    expect(within(modal).getByText('Generating...')).toBeInTheDocument();
    const [request] = callsTo(fetchMock, 'POST /api/generateNoise');
    const form = sentForm(request);
    expect(form.get('original')).toBeInstanceOf(File);
    expect((form.get('original') as File).name).toBe(file.name);
    expect(form.get('amount')).toBe('3');
    expect(form.get('author')).toBe('alice');
    expect(form.get('folder')).toBeNull();

    // The server pushes the job's events while the request waits, with the request's mark.
    const job = { ...jobView({ tool: 'clone', state: 'queued', cost: 3 }), ref: sentJobRef(request) };
    pushJobEvent(JobSocketEvents.queued, { job, position: 1 });
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'clone', progress: 40 });
    expect(within(modal).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');
    // The tray opened by itself and shows the same job.
    const tray = screen.getByTestId('job-tray');
    expect(within(tray).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');

    const done = { ...job, state: 'succeeded' as const, progress: 100, items: contentItems(3, job._id) };
    await act(async () => answer.release(submitAnswer('success', done, done.items[0].url)));

    expect(modal).toHaveAttribute('data-phase', 'success');
    expect(within(modal).getByText('Success!')).toBeInTheDocument();
    expect(within(modal).getAllByRole('img', { name: /Clone \d/ })).toHaveLength(3);
    expect(within(modal).getByTestId('result-folder')).toHaveAttribute(
      'href',
      '/profile/bulkInpaints/folder1',
    );

    fireEvent.click(modal);
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
  });

  it("says 'Check Later!' when the job is still processing", async () => {
    const job = jobView({ tool: 'clone', state: 'running', progress: 10 });
    await loggedInWithBalance(10, { 'POST /api/generateNoise': submitAnswer('processing', job) });
    await pickImage(LABEL);
    const dialog = await openCloneModal();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Generate Clones' }));

    expect(await screen.findByText('Check Later!')).toBeInTheDocument();
    expect(screen.getByTestId('job-modal')).toHaveAttribute('data-phase', 'processing');
  });

  it("shows the server's refusal and closes the modal", async () => {
    await loggedInWithBalance(10, {
      'POST /api/generateNoise': {
        status: 503,
        body: { message: 'error', content: 'This tool is not available right now' },
      },
    });
    await pickImage(LABEL);
    const dialog = await openCloneModal();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Generate Clones' }));

    expect(await screen.findByText('This tool is not available right now')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
  });

  it('lets the Generating... modal be closed while the job goes on in the tray', async () => {
    const answer = deferred();
    await loggedInWithBalance(10, { 'POST /api/generateNoise': answer.responder });
    await pickImage(LABEL);
    const dialog = await openCloneModal();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Generate Clones' }));
    fireEvent.click(await screen.findByTestId('job-modal'));
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());

    const job = jobView({ tool: 'clone', state: 'running', progress: 50 });
    await act(async () => answer.release(submitAnswer('processing', job)));
    expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument();
    expect(within(screen.getByTestId('job-tray')).getByText('Clones')).toBeInTheDocument();
  });
});
