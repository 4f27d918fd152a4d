import { JobMessages, JobSocketEvents, Messages } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sentJobRef, sessionAnswer } from '../../test/fetchMock';
import { contentItems, deferred, jobView, pickImage, pushJobEvent, submitAnswer } from '../../test/jobs';
import { expectLiveToolNotices, operationsAnswer } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';

jest.mock('../../images/scaleImage', () => jest.requireActual('../../test/fakeScaleImage'));

const LABEL = 'Image to upscale';

async function open(balance: number, answers = {}) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/operations': operationsAnswer(),
    ...answers,
  });
  const app = renderApp('/superresolution');
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  return { fetchMock, app };
}

async function upscale() {
  await pickImage(LABEL, 'small.png');
  await screen.findByTestId('image-preview');
  fireEvent.click(screen.getByRole('button', { name: /Super Resolution/ }));
}

describe('SuperResolutionPage', () => {
  it('sends a logged-out visitor to the login page', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/superresolution');
    await waitFor(() => expect(app.pathname()).toBe('/login'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows the super resolution's maintenance notices and follows the admins' changes live", async () => {
    await expectLiveToolNotices({
      tool: 'superResolution',
      otherTool: 'faceSwap',
      text: 'Upscaling is paused for maintenance.',
      open: (answers) => open(10, answers),
    });
  });

  it('refuses when the balance does not cover the price, and sends nothing', async () => {
    const { fetchMock } = await open(1);
    expect(screen.getByTestId('tool-price')).toHaveTextContent(
      '2 credits per started megapixel of the result',
    );
    await upscale();
    expect(await screen.findByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/superResolution')).toHaveLength(0);
    expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument();
  });

  it('sends the image as a data URL, shows progress, then the result; a click closes and resets', async () => {
    const answer = deferred();
    const { fetchMock } = await open(10, { 'POST /api/superResolution': answer.responder });
    expect(screen.getByRole('button', { name: /Super Resolution/ })).toBeDisabled();
    await upscale();

    const modal = await screen.findByTestId('job-modal');
    expect(within(modal).getByText('Generating...')).toBeInTheDocument();
    const [request] = callsTo(fetchMock, 'POST /api/superResolution');
    expect(JSON.parse(String(request.body))).toEqual({
      original: `data:image/png;base64,${btoa('small.png')}`,
      author: 'alice',
      scale: 2,
    });

    // The job as the server pushes it while the request waits, with the request's mark.
    const job = {
      ...jobView({ tool: 'superResolution', state: 'running', cost: 2 }),
      ref: sentJobRef(request),
    };
    pushJobEvent(JobSocketEvents.queued, { job: { ...job, state: 'queued' }, position: 1 });
    pushJobEvent(JobSocketEvents.progress, { jobId: job._id, tool: 'superResolution', progress: 65 });
    expect(within(modal).getByRole('progressbar')).toHaveAttribute('aria-valuenow', '65');
    // Before a message exists a click does not close it.
    fireEvent.click(modal);
    expect(screen.getByTestId('job-modal')).toBeInTheDocument();

    const items = contentItems(1, job._id);
    const done = { ...job, state: 'succeeded' as const, progress: 100, items };
    await act(async () => answer.release(submitAnswer('success', done, items[0].url)));
    expect(within(modal).getByText('Success!')).toBeInTheDocument();
    expect(within(modal).getByRole('img', { name: 'Super resolution result' })).toHaveAttribute(
      'src',
      items[0].url,
    );

    fireEvent.click(within(modal).getByText('Success!'));
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
    // Reset: a new request starts from 'Generating...' again.
    fireEvent.click(screen.getByRole('button', { name: /Super Resolution/ }));
    expect(await screen.findByText('Generating...')).toBeInTheDocument();
  });

  it('sends the chosen 4x and shows the size and price of the result', async () => {
    const job = jobView({ tool: 'superResolution', state: 'queued' });
    const { fetchMock } = await open(10, { 'POST /api/superResolution': submitAnswer('processing', job) });
    await pickImage(LABEL, 'small.png');
    expect(await screen.findByTestId('sr-cost')).toHaveTextContent('128 × 128 px: 2 credits');
    fireEvent.click(screen.getByRole('radio', { name: '4×' }));
    expect(screen.getByTestId('sr-cost')).toHaveTextContent('256 × 256 px: 2 credits');
    fireEvent.click(screen.getByRole('button', { name: /Super Resolution/ }));
    await screen.findByText('Check Later!');
    const [request] = callsTo(fetchMock, 'POST /api/superResolution');
    expect(JSON.parse(String(request.body))).toMatchObject({ scale: 4 });
  });

  it("says 'Check Later!' while the job is still processing", async () => {
    const job = jobView({ tool: 'superResolution', state: 'queued' });
    await open(10, { 'POST /api/superResolution': submitAnswer('processing', job) });
    await upscale();
    expect(await screen.findByText('Check Later!')).toBeInTheDocument();
    fireEvent.click(screen.getByText('Check Later!'));
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
  });

  it("turns 'Check Later!' into the result when the job succeeds while the dialog is open", async () => {
    const job = jobView({ tool: 'superResolution', state: 'queued' });
    await open(10, { 'POST /api/superResolution': submitAnswer('processing', job) });
    await upscale();
    const modal = await screen.findByTestId('job-modal');
    await within(modal).findByText('Check Later!');
    const items = contentItems(1, job._id);
    pushJobEvent(JobSocketEvents.completed, { job: { ...job, state: 'succeeded', progress: 100, items } });
    expect(await within(modal).findByText('Success!')).toBeInTheDocument();
    expect(within(modal).queryByText('Check Later!')).not.toBeInTheDocument();
    expect(within(modal).getByRole('img', { name: 'Super resolution result' })).toHaveAttribute(
      'src',
      items[0].url,
    );
  });

  it('announces a job that failed while the request waited once, from the tray', async () => {
    const answer = deferred();
    const { fetchMock } = await open(10, { 'POST /api/superResolution': answer.responder });
    await upscale();
    const [request] = callsTo(fetchMock, 'POST /api/superResolution');
    const job = { ...jobView({ tool: 'superResolution', state: 'queued' }), ref: sentJobRef(request) };
    pushJobEvent(JobSocketEvents.queued, { job, position: 1 });
    pushJobEvent(JobSocketEvents.failed, {
      job: { ...job, state: 'failed', error: 'The image could not be upscaled', refunded: 2 },
      message: 'The image could not be upscaled',
      refunded: 2,
    });
    await act(async () =>
      answer.release({ status: 422, body: { message: 'error', content: 'The image could not be upscaled' } }),
    );
    await waitFor(() => expect(screen.queryByTestId('job-modal')).not.toBeInTheDocument());
    expect(screen.getAllByText('The image could not be upscaled')).toHaveLength(2); // one toast, one tray line
    expect(
      screen.getByText('2 credits were refunded.', { selector: '.ant-notification-notice-description' }),
    ).toBeInTheDocument();
  });

  it('shows a job cancelled while the request waited as cancelled, when the refusal comes first', async () => {
    // A busy server may answer the waiting request before the cancel's own answer and socket event:
    // the refusal's job is enough for the dialog to say so (not an error, not a closed dialog).
    const answer = deferred();
    const { fetchMock } = await open(10, { 'POST /api/superResolution': answer.responder });
    await upscale();
    const [request] = callsTo(fetchMock, 'POST /api/superResolution');
    const job = {
      ...jobView({ tool: 'superResolution', state: 'queued', cost: 2 }),
      ref: sentJobRef(request),
    };
    pushJobEvent(JobSocketEvents.queued, { job, position: 1 });
    await act(async () =>
      answer.release({
        status: 422,
        body: {
          message: 'error',
          content: JobMessages.cancelled,
          job: { ...job, state: 'cancelled', error: JobMessages.cancelled, refunded: 2 },
        },
      }),
    );
    const modal = screen.getByTestId('job-modal');
    await waitFor(() => expect(modal).toHaveAttribute('data-phase', 'cancelled'));
    expect(within(modal).getByText('The job was cancelled.', { exact: false })).toBeInTheDocument();
    expect(
      screen.queryByText(JobMessages.cancelled, { selector: '.ant-notification-notice-message' }),
    ).toBeNull();
  });
});
