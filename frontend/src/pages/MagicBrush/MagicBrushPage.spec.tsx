import { Messages, PromptMessages, type JobView } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sentForm, sessionAnswer } from '../../test/fetchMock';
import { contentItems, jobView, pickImage, submitAnswer } from '../../test/jobs';
import { expectLiveToolNotices, operationsAnswer, operationsState, ownProfile } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';
import { InpaintTexts } from './inpaintForm';

jest.mock('../../images/scaleImage', () => jest.requireActual('../../test/fakeScaleImage'));

const FOLDER = '0123456789abcdef01234567';
const MASK = new Blob(['mask-png'], { type: 'image/png' });

/** jsdom has no 2D canvas: a recording stand-in, and toBlob answering with a PNG blob. */
function fakeCanvas() {
  const context = {
    beginPath: jest.fn(),
    arc: jest.fn(),
    fill: jest.fn(),
    moveTo: jest.fn(),
    lineTo: jest.fn(),
    stroke: jest.fn(),
    clearRect: jest.fn(),
  };
  jest
    .spyOn(HTMLCanvasElement.prototype, 'getContext')
    .mockReturnValue(context as unknown as CanvasRenderingContext2D);
  jest
    .spyOn(HTMLCanvasElement.prototype, 'toBlob')
    .mockImplementation((callback: BlobCallback) => callback(MASK));
  return context;
}

async function open({
  balance = 10,
  answers = {},
  folders = [{ _id: FOLDER, title: 'Model #1', amount: 0 }],
} = {}) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/getProfile/alice': ownProfile('alice', balance, folders),
    'GET /api/operations': operationsAnswer(),
    ...answers,
  });
  const app = renderApp('/magic');
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  await waitFor(() => expect(callsTo(fetchMock, 'GET /api/getProfile/alice')).toHaveLength(1));
  return { fetchMock, app };
}

const inpaintButton = () => screen.getByRole('button', { name: /Inpaint/ });

async function pickAndPaint() {
  await pickImage('Image to inpaint', 'photo.png');
  const canvas = await screen.findByTestId('mask-canvas');
  fireEvent.pointerDown(canvas, { clientX: 10, clientY: 10, pointerId: 1 });
  fireEvent.pointerMove(canvas, { clientX: 30, clientY: 20, pointerId: 1 });
  fireEvent.pointerUp(canvas, { pointerId: 1 });
  return canvas;
}

async function openModal(prompt = 'red silk dress') {
  fireEvent.click(inpaintButton());
  const dialog = await screen.findByRole('dialog', { name: 'Create new inpaint' });
  fireEvent.change(within(dialog).getByLabelText('Prompt'), { target: { value: prompt } });
  return dialog;
}

async function toBulk(
  dialog: HTMLElement,
  { folder, amount, name }: { folder?: string; amount?: number; name?: string },
) {
  fireEvent.click(within(dialog).getByRole('button', { name: 'Bulk' }));
  await within(dialog).findByText('Parent Folder');
  if (folder) {
    fireEvent.mouseDown(within(dialog).getByLabelText('Parent Folder'));
    fireEvent.click(await screen.findByTitle(folder));
  }
  if (name) fireEvent.change(within(dialog).getByLabelText('Inpaint Name'), { target: { value: name } });
  if (amount)
    fireEvent.change(within(dialog).getByLabelText('Amount'), { target: { value: String(amount) } });
}

async function addImages(dialog: HTMLElement, names: string[]) {
  fireEvent.click(within(dialog).getByRole('button', { name: 'Add Images' }));
  const input = await within(dialog).findByLabelText('Extra images');
  const files = names.map((name) => new File([new Uint8Array([1, 2, 3])], name, { type: 'image/png' }));
  await act(async () => {
    fireEvent.change(input, { target: { files } });
  });
  await within(dialog).findByText(`${names.length} Images Added`);
}

const submitIn = (dialog: HTMLElement) =>
  fireEvent.click(within(dialog).getByRole('button', { name: /^Inpaint$/ }));

describe('MagicBrushPage', () => {
  let context: ReturnType<typeof fakeCanvas>;
  beforeEach(() => {
    context = fakeCanvas();
  });

  it('sends a logged-out visitor to the login page', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/magic');
    await waitFor(() => expect(app.pathname()).toBe('/login'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows the inpaint tool's maintenance notices and follows the admins' changes live", async () => {
    await expectLiveToolNotices({
      tool: 'inpaint',
      otherTool: 'faceSwap',
      text: 'We are experiencing technical difficulties.',
      liveText: 'All users will be reimbursed!',
      open: (answers) => open({ answers }),
    });
  });

  it('says before any charge that the prompt is not used while the CPU engine serves Magic Brush', async () => {
    const local = { ...operationsState(), engines: { inpaint: 'local' as const } };
    await open({ answers: { 'GET /api/operations': operationsAnswer(local) } });
    expect(await screen.findByTestId('prompt-unused')).toHaveTextContent(InpaintTexts.promptUnused);
  });

  it('asks for no prompt while the CPU engine serves Magic Brush (it would ignore it)', async () => {
    const local = { ...operationsState(), engines: { inpaint: 'local' as const } };
    await open({ answers: { 'GET /api/operations': operationsAnswer(local) } });
    await screen.findByTestId('prompt-unused');
    await pickAndPaint();
    fireEvent.click(inpaintButton());
    const dialog = await screen.findByRole('dialog', { name: 'Create new inpaint' });
    expect(within(dialog).queryByLabelText('Prompt')).not.toBeInTheDocument();
    expect(within(dialog).getByTestId('no-prompt')).toBeInTheDocument();
  });

  it('shows no such note when a GPU engine serves Magic Brush', async () => {
    const gpu = { ...operationsState(), engines: { inpaint: 'gpu' as const } };
    await open({ answers: { 'GET /api/operations': operationsAnswer(gpu) } });
    await pickImage('Image to inpaint', 'photo.png');
    expect(screen.queryByTestId('prompt-unused')).not.toBeInTheDocument();
  });

  it('paints a round white mask with the brush size, enables Inpaint once painted, and clears it', async () => {
    await open();
    expect(inpaintButton()).toBeDisabled();
    await pickImage('Image to inpaint', 'photo.png');
    const canvas = await screen.findByTestId('mask-canvas');
    expect(canvas).toHaveAttribute('width', '64');
    expect(canvas).toHaveAttribute('height', '64');
    expect(screen.getByTestId('brush-size')).toHaveTextContent('20');
    expect(screen.getByRole('slider', { name: 'Brush size' })).toHaveAttribute('aria-valuemin', '5');
    expect(screen.getByRole('slider', { name: 'Brush size' })).toHaveAttribute('aria-valuemax', '50');
    expect(screen.getByRole('slider', { name: 'Zoom' })).toHaveAttribute('aria-valuemin', '0.33');
    expect(inpaintButton()).toBeDisabled();

    fireEvent.pointerDown(canvas, { clientX: 10, clientY: 10, pointerId: 1 });
    fireEvent.pointerMove(canvas, { clientX: 30, clientY: 20, pointerId: 1 });
    fireEvent.pointerUp(canvas, { pointerId: 1 });
    expect(context.arc).toHaveBeenCalledWith(expect.any(Number), expect.any(Number), 20, 0, Math.PI * 2);
    expect(context.stroke).toHaveBeenCalled();
    expect(inpaintButton()).toBeEnabled();

    // Moving without a pressed button draws nothing.
    const strokes = context.stroke.mock.calls.length;
    fireEvent.pointerMove(canvas, { clientX: 40, clientY: 40, pointerId: 1 });
    expect(context.stroke.mock.calls.length).toBe(strokes);

    fireEvent.click(screen.getByRole('button', { name: /Clear mask/ }));
    expect(context.clearRect).toHaveBeenCalledWith(0, 0, 64, 64);
    expect(inpaintButton()).toBeDisabled();
  });

  it('sends a single inpaint with image, mask, prompt and size, and shows the result', async () => {
    const job = jobView({ tool: 'inpaint', state: 'succeeded', progress: 100 });
    const items = contentItems(1, job._id);
    const { fetchMock } = await open({
      answers: { 'POST /api/inpaintImage': submitAnswer('success', { ...job, items }, items[0].url) },
    });
    await pickAndPaint();
    const dialog = await openModal('');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Single' }));
    expect(await screen.findByText(PromptMessages.promptRequired)).toBeInTheDocument();

    fireEvent.change(within(dialog).getByLabelText('Prompt'), { target: { value: ' red silk dress ' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Single' }));
    const modal = await screen.findByTestId('job-modal');
    await within(modal).findByText('Success!');
    expect(within(modal).getByRole('img', { name: 'Inpaint result' })).toHaveAttribute('src', items[0].url);

    const form = sentForm(callsTo(fetchMock, 'POST /api/inpaintImage')[0]);
    expect((form.get('original') as File).name).toBe('photo.png');
    const mask = form.get('mask') as File;
    expect([mask.name, mask.type, mask.size]).toEqual(['mask.png', 'image/png', MASK.size]);
    expect(form.get('prompt')).toBe('red silk dress');
    expect(form.get('author')).toBe('alice');
    expect(form.get('amount')).toBe('1');
    expect(form.get('width')).toBe('64');
    expect(form.get('height')).toBe('64');
    expect(form.has('folder')).toBe(false);
    expect(form.has('files')).toBe(false);
  });

  it("says 'Check Later!' when the single inpaint is still processing", async () => {
    const job = jobView({ tool: 'inpaint', state: 'running' });
    await open({ answers: { 'POST /api/inpaintImage': submitAnswer('processing', job) } });
    await pickAndPaint();
    const dialog = await openModal();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Single' }));
    expect(await screen.findByText('Check Later!')).toBeInTheDocument();
  });

  it('refuses a prompt that points at minors before sending', async () => {
    const { fetchMock } = await open();
    await pickAndPaint();
    const dialog = await openModal('school girl');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Single' }));
    expect(await screen.findByText(PromptMessages.refused)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/inpaintImage')).toHaveLength(0);
  });

  it('asks for a folder when the amount is above 1 or images were added', async () => {
    const { fetchMock } = await open();
    await pickAndPaint();
    const dialog = await openModal();
    await toBulk(dialog, { amount: 3 });
    submitIn(dialog);
    expect(await screen.findByText(Messages.selectFolder)).toBeInTheDocument();

    fireEvent.change(within(dialog).getByLabelText('Amount'), { target: { value: '1' } });
    await addImages(dialog, ['b.png']);
    submitIn(dialog);
    await waitFor(() => expect(screen.getAllByText(Messages.selectFolder)).toHaveLength(2));
    expect(callsTo(fetchMock, 'POST /api/bulkInpaintImage')).toHaveLength(0);
    expect(callsTo(fetchMock, 'POST /api/inpaintImage')).toHaveLength(0);
  });

  it('counts the painted image as one of the images: amount × (1 + added) against the balance', async () => {
    const { fetchMock } = await open({ balance: 5 });
    await pickAndPaint();
    const dialog = await openModal();
    await toBulk(dialog, { folder: 'Model #1', amount: 2 });
    await addImages(dialog, ['b.png', 'c.png']);
    expect(within(dialog).getByTestId('inpaint-cost')).toHaveTextContent(
      '3 images × 2 = 6 credits · your balance is 5',
    );
    submitIn(dialog);
    expect(await screen.findByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/bulkInpaintImage')).toHaveLength(0);
  });

  it('sends a bulk inpaint with the added images into the folder, then clears the form and links the batch', async () => {
    const jobs: JobView[] = ['a', 'b', 'c'].map(() =>
      jobView({ tool: 'inpaint', state: 'queued', folderId: FOLDER }),
    );
    const { fetchMock } = await open({
      balance: 6,
      answers: {
        'POST /api/bulkInpaintImage': {
          status: 200,
          body: {
            message: 'processing',
            content: { batch: { _id: 'batch1', title: 'STATUS: 0/6', amount: 6 }, jobs },
          },
        },
      },
    });
    await pickAndPaint();
    const dialog = await openModal('red silk dress');
    await toBulk(dialog, { folder: 'Model #1', amount: 2, name: 'Red dresses' });
    await addImages(dialog, ['b.png', 'c.png']);
    const sessionCalls = callsTo(fetchMock, 'GET /api/session').length;
    submitIn(dialog);

    expect(await screen.findByText('Bulk inpaint processing')).toBeInTheDocument();
    const form = sentForm(callsTo(fetchMock, 'POST /api/bulkInpaintImage')[0]);
    expect((form.get('original') as File).name).toBe('photo.png');
    expect((form.get('mask') as File).type).toBe('image/png');
    expect(form.getAll('files').map((file) => (file as File).name)).toEqual(['b.png', 'c.png']);
    expect(form.get('folder')).toBe(FOLDER);
    expect(form.get('inpaintName')).toBe('Red dresses');
    expect(form.get('amount')).toBe('2');
    expect(form.get('prompt')).toBe('red silk dress');
    expect(form.get('author')).toBe('alice');
    expect(form.get('width')).toBe('64');

    // The modal closes, the profile is reloaded, the batch links to its folder, the tray follows it.
    await waitFor(() =>
      expect(screen.queryByRole('dialog', { name: 'Create new inpaint' })).not.toBeInTheDocument(),
    );
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/session').length).toBeGreaterThan(sessionCalls));
    expect(screen.getByTestId('bulk-started')).toHaveTextContent('Red dresses');
    expect(screen.getByTestId('batch-folder')).toHaveAttribute('href', `/profile/bulkInpaints/${FOLDER}`);
    expect(within(screen.getByTestId('job-tray')).getAllByText('Magic Brush')).toHaveLength(3);

    // Reopened: the added files are gone.
    fireEvent.click(inpaintButton());
    const again = await screen.findByRole('dialog', { name: 'Create new inpaint' });
    fireEvent.click(within(again).getByRole('button', { name: 'Bulk' }));
    expect(await within(again).findByText('0 Images Added')).toBeInTheDocument();
  });

  it("shows the server's refusal of a bulk inpaint", async () => {
    await open({
      answers: {
        'POST /api/bulkInpaintImage': {
          status: 402,
          body: { message: 'error', content: Messages.notEnoughCredits },
        },
      },
    });
    await pickAndPaint();
    const dialog = await openModal();
    await toBulk(dialog, { folder: 'Model #1', amount: 2 });
    submitIn(dialog);
    expect(await screen.findByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Create new inpaint' })).toBeInTheDocument();
  });
});
