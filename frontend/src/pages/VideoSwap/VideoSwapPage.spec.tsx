import { FaceSwapMessages, Messages, type FaceSwapVideoCheck } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sentForm, sessionAnswer } from '../../test/fetchMock';
import { jobView, pickImage, submitAnswer } from '../../test/jobs';
import { notice, operationsAnswer, operationsState, ownProfile, pushOperations } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';
import { CONSENT_TEXT } from '../FaceSwap/FaceSwapPage';
import { VideoSwapTexts } from './VideoSwapPage';

jest.mock('../../images/scaleImage', () => jest.requireActual('../../test/fakeScaleImage'));

const FOLDER = '0123456789abcdef01234567';

/** The free check's answer: one face in the face image, two people in the first frame. */
function checkAnswer() {
  const content: FaceSwapVideoCheck = {
    source: { width: 256, height: 256, faces: [{ index: 0, box: [20, 20, 200, 200], score: 1, yaw: 0 }] },
    frame: {
      width: 640,
      height: 360,
      faces: [
        { index: 0, box: [40, 40, 260, 260], score: 1, yaw: 0 },
        { index: 1, box: [400, 90, 180, 180], score: 1, yaw: 10 },
      ],
    },
    frameImage: 'data:image/jpeg;base64,AAAA',
    durationSeconds: 12.1,
    sourceFace: 0,
    targetFace: 0,
    ok: true,
    problems: [],
    warnings: [],
    price: 61,
  };
  return { status: 200, body: { message: 'success', content } };
}

async function open({ balance = 100, videoFaceSwap = false, answers = {} } = {}) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/getProfile/alice': ownProfile('alice', balance, [{ _id: FOLDER, title: 'Videos', amount: 0 }]),
    'GET /api/operations': operationsAnswer(
      operationsState({
        flags: { videoFaceSwap },
        notices: [notice('faceSwapVideo', 'We are experiencing technical difficulties.')],
      }),
    ),
    'POST /api/faceSwapVideo/check': checkAnswer(),
    ...answers,
  });
  renderApp('/swapvideo');
  await waitFor(() => expect(screen.getByTestId('balance')).toHaveTextContent(String(balance)));
  await waitFor(() => expect(callsTo(fetchMock, 'GET /api/getProfile/alice')).toHaveLength(1));
  await screen.findByTestId('maintenance-notice');
  return { fetchMock };
}

/** Chooses a video; the browser then reads its length from the metadata. */
async function pickVideo(seconds: number, name = 'clip.mp4') {
  const file = new File([new Uint8Array([0, 0, 0, 24])], name, { type: 'video/mp4' });
  await act(async () => {
    fireEvent.change(screen.getByLabelText('Video'), { target: { files: [file] } });
  });
  const video = await screen.findByTestId('video-preview');
  Object.defineProperty(video, 'duration', { configurable: true, value: seconds });
  fireEvent(video, new Event('loadedmetadata'));
  return file;
}

async function fillEverything(seconds = 12.1) {
  fireEvent.mouseDown(screen.getByLabelText('Parent Folder*'));
  fireEvent.click(await screen.findByTitle('Videos'));
  await pickVideo(seconds);
  await pickImage('Image', 'face.png');
  await screen.findByTestId('image-preview');
  fireEvent.click(screen.getByLabelText(CONSENT_TEXT));
}

const swapButton = () => screen.getByRole('button', { name: /Swap|Loading/ });

describe('VideoSwapPage', () => {
  beforeEach(() => {
    URL.createObjectURL = jest.fn(() => 'blob:video');
    URL.revokeObjectURL = jest.fn();
  });

  it('sends a logged-out visitor to the login page', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/swapvideo');
    await waitFor(() => expect(app.pathname()).toBe('/login'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('always shows the beta notice, with the maintenance notices of the video swap', async () => {
    await open();
    expect(screen.getByTestId('beta-notice')).toHaveTextContent(VideoSwapTexts.beta);
    expect(screen.getByTestId('maintenance-notice')).toHaveTextContent(
      'We are experiencing technical difficulties.',
    );
  });

  it('prices the video from its length and refuses one over 30 seconds', async () => {
    await open({ videoFaceSwap: true });
    await pickVideo(12.1);
    expect(screen.getByTestId('video-cost')).toHaveTextContent('This swap will cost 61 credits');
    expect(screen.getByTestId('video-length')).toHaveTextContent(
      '12.10 s of video = 61 started steps of 0.2 s × 1 credit = 61 credits',
    );

    await pickVideo(30);
    expect(screen.getByTestId('video-cost')).toHaveTextContent('This swap will cost 150 credits');
    expect(screen.queryByTestId('video-too-long')).not.toBeInTheDocument();

    await pickVideo(30.5, 'long.mp4');
    expect(screen.getByTestId('video-too-long')).toHaveTextContent('Max video length is 30 seconds.');
    expect(screen.queryByTestId('video-cost')).not.toBeInTheDocument();
  });

  it('keeps Swap disabled over 30 seconds or without enough credits', async () => {
    await open({ videoFaceSwap: true, balance: 20 });
    await fillEverything(5);
    expect(screen.getByTestId('video-cost')).toHaveTextContent('This swap will cost 25 credits');
    expect(screen.getByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(swapButton()).toBeDisabled();
    await pickVideo(3.9);
    await waitFor(() => expect(swapButton()).toBeEnabled());
    await pickVideo(31);
    expect(swapButton()).toBeDisabled();
  });

  it('keeps Swap disabled while the feature is off and enables it when admins switch it on', async () => {
    const job = jobView({ tool: 'faceSwapVideo', state: 'queued', folderId: FOLDER, cost: 61 });
    const { fetchMock } = await open({
      answers: { 'POST /api/faceSwapVideo': submitAnswer('processing', job) },
    });
    await fillEverything(12.1);
    expect(screen.getByTestId('video-swap-off')).toHaveTextContent(VideoSwapTexts.switchedOff);
    expect(swapButton()).toBeDisabled();

    pushOperations(operationsState({ flags: { videoFaceSwap: true } }));
    // Enabled once the free check (made now that the feature is on) has answered.
    await waitFor(() => expect(swapButton()).toBeEnabled());
    expect(screen.queryByTestId('video-swap-off')).not.toBeInTheDocument();

    // The free check, once the feature is on; then the user picks the second person of the video.
    fireEvent.click(await screen.findByRole('button', { name: 'Target face 2' }));
    expect(screen.getByTestId('face-check-summary')).toHaveTextContent('goes onto face 2 of the video');
    fireEvent.click(swapButton());
    expect(await screen.findByText('Video Face Swap in Progress')).toBeInTheDocument();
    const checked = sentForm(callsTo(fetchMock, 'POST /api/faceSwapVideo/check')[0]);
    expect((checked.get('SwapVideo0') as File).name).toBe('clip.mp4');
    const form = sentForm(callsTo(fetchMock, 'POST /api/faceSwapVideo')[0]);
    expect((form.get('SwapVideo0') as File).name).toBe('clip.mp4');
    expect((form.get('SwapVideo1') as File).name).toBe('face.png');
    expect(form.get('author')).toBe('alice');
    expect(form.get('folder')).toBe(FOLDER);
    expect(form.get('length')).toBe('12.1');
    expect(form.get('consent')).toBe('true');
    expect(form.get('sourceFace')).toBe('0');
    expect(form.get('targetFace')).toBe('1');
    expect(within(screen.getByTestId('job-tray')).getByText('Video face swap')).toBeInTheDocument();

    pushOperations(operationsState({ flags: { videoFaceSwap: false } }));
    expect(swapButton()).toBeDisabled();
  });

  it("shows the server's refusal", async () => {
    await open({
      videoFaceSwap: true,
      answers: {
        'POST /api/faceSwapVideo': {
          status: 400,
          body: { message: 'error', content: 'Max video length is 30 seconds.' },
        },
      },
    });
    await fillEverything(12.1);
    fireEvent.click(swapButton());
    expect(await screen.findByText('Max video length is 30 seconds.')).toBeInTheDocument();
    expect(swapButton()).toBeEnabled();
  });

  it('keeps Swap disabled while the chosen face would be refused', async () => {
    const refusing = checkAnswer();
    refusing.body.content.frame.faces = [];
    const { fetchMock } = await open({
      videoFaceSwap: true,
      answers: { 'POST /api/faceSwapVideo/check': refusing },
    });
    await fillEverything(12.1);
    expect(await screen.findByText(FaceSwapMessages.noFaceFirstFrame)).toBeInTheDocument();
    expect(swapButton()).toBeDisabled();
    expect(callsTo(fetchMock, 'POST /api/faceSwapVideo')).toHaveLength(0);
  });
});
