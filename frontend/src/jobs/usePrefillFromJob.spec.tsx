import { JobMessages, TAG_CATEGORIES } from '@studio/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sentForm, sessionAnswer, type FakeAnswer } from '../test/fetchMock';
import { jobView, submitAnswer } from '../test/jobs';
import { operationsAnswer, ownProfile } from '../test/operations';
import { rememberAccount, renderApp } from '../test/renderApp';

jest.mock('../images/scaleImage', () => jest.requireActual('../test/fakeScaleImage'));

const FOLDER = '0123456789abcdef01234567';
const ok = (content: unknown): FakeAnswer => ({ status: 200, body: { message: 'success', content } });
const file = (type: string): FakeAnswer => ({ status: 200, blob: new Blob(['bytes'], { type }) });

async function openAt(path: string, answers: Record<string, FakeAnswer>) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance: 10 }),
    'GET /api/operations': operationsAnswer(),
    'GET /api/getProfile/alice': ownProfile('alice', 10, [{ _id: FOLDER, title: 'Model #1', amount: 0 }]),
    ...answers,
  });
  renderApp(path);
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent('10'));
  return fetchMock;
}

const notice = () => screen.findByTestId('prefill-notice');

describe('usePrefillFromJob ("Edit and run")', () => {
  it('fills super resolution with the stored image and the scale, and runs it with them', async () => {
    const job = jobView({
      tool: 'superResolution',
      state: 'succeeded',
      settings: { scale: 4 },
      inputCount: 1,
    });
    const fetchMock = await openAt(`/superresolution?from=${job._id}`, {
      [`GET /api/jobs/${job._id}`]: ok(job),
      [`GET /api/jobs/${job._id}/inputs/0`]: file('image/png'),
      'POST /api/superResolution': submitAnswer('processing', jobView({ tool: 'superResolution' })),
    });
    await waitFor(async () => expect(await notice()).toHaveTextContent('Filled in from your job of'));
    expect(await screen.findByTestId('image-preview')).toHaveAttribute(
      'src',
      `data:image/png;base64,${btoa('input-0.png')}`,
    );
    expect(screen.getByRole('radio', { name: '4×' })).toBeChecked();

    fireEvent.click(screen.getByRole('button', { name: /Super Resolution/ }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/superResolution')).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, 'POST /api/superResolution')[0].body))).toMatchObject({
      original: `data:image/png;base64,${btoa('input-0.png')}`,
      scale: 4,
    });
  });

  it('fills face swap with the face, the target and the folder, in that order', async () => {
    const job = jobView({ tool: 'faceSwap', state: 'failed', folderId: FOLDER, inputCount: 2 });
    await openAt(`/swap?from=${job._id}`, {
      [`GET /api/jobs/${job._id}`]: ok(job),
      [`GET /api/jobs/${job._id}/inputs/0`]: file('image/jpeg'),
      [`GET /api/jobs/${job._id}/inputs/1`]: file('image/webp'),
    });
    await waitFor(() => expect(screen.getAllByTestId('image-preview')).toHaveLength(2));
    const [face, target] = screen.getAllByTestId('image-preview');
    expect(face).toHaveAttribute('alt', 'Face Image preview');
    expect(face).toHaveAttribute('src', `data:image/jpeg;base64,${btoa('input-0.jpg')}`);
    expect(target).toHaveAttribute('src', `data:image/webp;base64,${btoa('input-1.webp')}`);
    expect(screen.getByTitle('Model #1')).toBeInTheDocument();
  });

  it('fills video face swap with the video (its length read again), the face and the folder', async () => {
    // jsdom has no object URLs; the video preview needs one.
    URL.createObjectURL = jest.fn(() => 'blob:video');
    URL.revokeObjectURL = jest.fn();
    const job = jobView({
      tool: 'faceSwapVideo',
      state: 'failed',
      folderId: FOLDER,
      inputCount: 2,
      cost: 24,
    });
    await openAt(`/swapvideo?from=${job._id}`, {
      [`GET /api/jobs/${job._id}`]: ok(job),
      [`GET /api/jobs/${job._id}/inputs/0`]: file('video/mp4'),
      [`GET /api/jobs/${job._id}/inputs/1`]: file('image/png'),
    });
    const video = await screen.findByTestId('video-preview');
    Object.defineProperty(video, 'duration', { configurable: true, value: 12 });
    fireEvent(video, new Event('loadedmetadata'));
    expect(await screen.findByTestId('video-length')).toHaveTextContent(
      '12.00 s of video = 60 started steps',
    );
    expect(await screen.findByTestId('image-preview')).toHaveAttribute(
      'src',
      `data:image/png;base64,${btoa('input-1.png')}`,
    );
    expect(screen.getByTitle('Model #1')).toBeInTheDocument();
  });

  it('fills Generate with the tags of the job, and sends the tags with the next request', async () => {
    const category = TAG_CATEGORIES.find((c) => c.key !== 'age')!;
    const tag = category.tags[category.tags.length - 1];
    const job = jobView({
      tool: 'generate',
      state: 'succeeded',
      settings: { tags: { [category.key]: tag } },
    });
    const fetchMock = await openAt(`/generate?from=${job._id}`, {
      [`GET /api/jobs/${job._id}`]: ok(job),
      'POST /api/generateImage': submitAnswer('processing', jobView({ tool: 'generate' })),
    });
    await notice();
    await waitFor(() =>
      expect(
        screen
          .getByLabelText(category.title)
          .closest('.ant-select')!
          .querySelector('.ant-select-selection-item'),
      ).toHaveTextContent(tag),
    );
    fireEvent.click(screen.getByRole('button', { name: /Generate/ }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/generateImage')).toHaveLength(1));
    const body = JSON.parse(String(callsTo(fetchMock, 'POST /api/generateImage')[0].body));
    expect(body.tags[category.key]).toBe(tag);
  });

  it('fills Magic Brush with the image, its painted mask and the prompt', async () => {
    // jsdom has no 2D canvas: the stored mask decodes to a 2×1 image, left pixel white, right clear.
    const put = jest.fn();
    const pixels = { data: new Uint8ClampedArray([255, 255, 255, 255, 0, 0, 0, 0]) };
    jest.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue({
      drawImage: jest.fn(),
      getImageData: () => pixels,
      putImageData: put,
      clearRect: jest.fn(),
    } as unknown as CanvasRenderingContext2D);
    jest
      .spyOn(HTMLCanvasElement.prototype, 'toBlob')
      .mockImplementation((done: BlobCallback) => done(new Blob(['m'])));
    Object.assign(globalThis, { createImageBitmap: jest.fn(async () => ({ width: 2, height: 1 })) });

    const job = jobView({
      tool: 'inpaint',
      state: 'succeeded',
      settings: { prompt: 'red silk dress' },
      inputCount: 2,
    });
    const fetchMock = await openAt(`/magic?from=${job._id}`, {
      [`GET /api/jobs/${job._id}`]: ok(job),
      [`GET /api/jobs/${job._id}/inputs/0`]: file('image/png'),
      [`GET /api/jobs/${job._id}/inputs/1`]: file('image/png'),
      'POST /api/inpaintImage': submitAnswer('processing', jobView({ tool: 'inpaint' })),
    });
    await screen.findByTestId('mask-canvas');
    // The mask is painted: Inpaint is ready without a stroke.
    await waitFor(() => expect(screen.getByRole('button', { name: /Inpaint/ })).toBeEnabled());
    expect(put).toHaveBeenCalledWith(pixels, 0, 0);
    expect(Array.from(pixels.data)).toEqual([255, 255, 255, 255, 0, 0, 0, 0]);

    fireEvent.click(screen.getByRole('button', { name: /Inpaint/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Create new inpaint' });
    expect(within(dialog).getByLabelText('Prompt')).toHaveValue('red silk dress');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Single' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/inpaintImage')).toHaveLength(1));
    expect(sentForm(callsTo(fetchMock, 'POST /api/inpaintImage')[0]).get('prompt')).toBe('red silk dress');
  });

  it('refuses a job of another tool without reading its inputs', async () => {
    const other = jobView({ tool: 'faceSwap', state: 'succeeded', inputCount: 2 });
    const fetchMock = await openAt(`/superresolution?from=${other._id}`, {
      [`GET /api/jobs/${other._id}`]: ok(other),
    });
    expect(await notice()).toHaveTextContent('That job was made with Face swap.');
    expect(fetchMock.mock.calls.some(([url]) => String(url).includes('/inputs/'))).toBe(false);
    expect(screen.queryByTestId('image-preview')).not.toBeInTheDocument();
  });

  it('says why when an input is no longer stored', async () => {
    const job = jobView({ tool: 'clone', state: 'succeeded', settings: { amount: 3 }, inputCount: 1 });
    await openAt(`/?from=${job._id}`, {
      [`GET /api/jobs/${job._id}`]: ok(job),
      [`GET /api/jobs/${job._id}/inputs/0`]: {
        status: 410,
        body: { message: 'error', content: JobMessages.inputsGone },
      },
    });
    await waitFor(async () => expect(await notice()).toHaveTextContent(JobMessages.inputsGone));
    expect(screen.queryByTestId('image-preview')).not.toBeInTheDocument();
  });
});
