import { JobMessages, Messages, type FaceSwapCheck, type FolderSummary } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sentForm, sessionAnswer } from '../../test/fetchMock';
import { deferred, jobView, pickImage, submitAnswer } from '../../test/jobs';
import { expectLiveToolNotices, operationsAnswer } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';
import { CONSENT_TEXT } from './FaceSwapPage';

jest.mock('../../images/scaleImage', () => jest.requireActual('../../test/fakeScaleImage'));

const FOLDER = '0123456789abcdef01234567';

function profile(folders: FolderSummary[], balance: number) {
  return {
    status: 200,
    body: {
      message: 'success',
      content: {
        own: true,
        username: 'alice',
        verified: false,
        early: false,
        role: 'user',
        balance,
        folders,
      },
    },
  };
}

/** The free check's answer: one face in the face image, faces at these yaws in the target. */
function checkAnswer(targetYaws: number[] = [0]) {
  const content: FaceSwapCheck = {
    source: { width: 256, height: 256, faces: [{ index: 0, box: [20, 20, 200, 200], score: 1, yaw: 0 }] },
    target: {
      width: 800,
      height: 400,
      faces: targetYaws.map((yaw, index) => ({
        index,
        box: [40 + index * 400, 40, 300, 300],
        score: 1,
        yaw,
      })),
    },
    sourceFace: 0,
    targetFaces: [0],
    ok: true,
    problems: [],
    warnings: [],
    price: 1,
  };
  return { status: 200, body: { message: 'success', content } };
}

async function open({
  folders = [{ _id: FOLDER, title: 'Model #1', amount: 0 }],
  balance = 10,
  answers = {},
} = {}) {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance }),
    'GET /api/getProfile/alice': profile(folders, balance),
    'GET /api/operations': operationsAnswer(),
    'POST /api/faceSwap/check': checkAnswer(),
    ...answers,
  });
  const app = renderApp('/swap');
  await waitFor(() => expect(callsTo(fetchMock, 'GET /api/getProfile/alice')).toHaveLength(1));
  return { fetchMock, app };
}

async function chooseFolder(title: string) {
  fireEvent.mouseDown(await screen.findByRole('combobox'));
  fireEvent.click(await screen.findByTitle(title));
}

const swapButton = () => screen.queryByRole('button', { name: /^(swap )?(Swap|Loading\.\.\.)$/ });

async function fillEverything() {
  await chooseFolder('Model #1');
  await pickImage('Face Image', 'face.png');
  await pickImage('Target Image', 'target.png');
  await waitFor(() => expect(screen.getAllByTestId('image-preview')).toHaveLength(2));
}

describe('FaceSwapPage', () => {
  it('sends a logged-out visitor to the login page', async () => {
    const fetchMock = mockFetch();
    const app = renderApp('/swap');
    await waitFor(() => expect(app.pathname()).toBe('/login'));
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it("shows the face swap's maintenance notices and follows the admins' changes live", async () => {
    await expectLiveToolNotices({
      tool: 'faceSwap',
      otherTool: 'inpaint',
      text: 'Face swaps are slower today.',
      open: (answers) => open({ answers }),
    });
  });

  it('asks for a folder first when the user has none', async () => {
    await open({ folders: [] });
    expect(await screen.findByText(JobMessages.createFolderFirst)).toBeInTheDocument();
    expect(screen.getByText('Parent Folder*')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Go to your profile' })).toHaveAttribute('href', '/profile');
  });

  it('shows Swap only once a folder and both images are chosen, and enables it with consent', async () => {
    await open();
    expect(swapButton()).not.toBeInTheDocument();
    await chooseFolder('Model #1');
    expect(swapButton()).not.toBeInTheDocument();
    await pickImage('Face Image', 'face.png');
    await screen.findByTestId('image-preview');
    expect(swapButton()).not.toBeInTheDocument();
    await pickImage('Target Image', 'target.png');
    await waitFor(() => expect(swapButton()).toBeInTheDocument());
    expect(swapButton()).toBeDisabled();

    fireEvent.click(screen.getByLabelText(CONSENT_TEXT));
    expect(swapButton()).toBeEnabled();
  });

  it('sends both images, author, folder and consent; Loading... while busy; then the toast and the tray', async () => {
    const answer = deferred();
    const { fetchMock } = await open({ answers: { 'POST /api/faceSwap': answer.responder } });
    await fillEverything();
    fireEvent.click(screen.getByLabelText(CONSENT_TEXT));
    fireEvent.click(swapButton()!);

    await waitFor(() => expect(swapButton()).toHaveTextContent('Loading...'));
    expect(swapButton()).toBeDisabled();
    const form = sentForm(callsTo(fetchMock, 'POST /api/faceSwap')[0]);
    expect((form.get('Swap0') as File).name).toBe('face.png');
    expect((form.get('Swap1') as File).name).toBe('target.png');
    expect(form.get('author')).toBe('alice');
    expect(form.get('folder')).toBe(FOLDER);
    expect(form.get('consent')).toBe('true');
    expect(form.get('sourceFace')).toBe('0');
    expect(form.get('targetFaces')).toBe('0');
    // The free check went first, with the same two images.
    const checked = sentForm(callsTo(fetchMock, 'POST /api/faceSwap/check')[0]);
    expect((checked.get('Swap1') as File).name).toBe('target.png');

    const job = jobView({ tool: 'faceSwap', state: 'queued', folderId: FOLDER });
    await act(async () => answer.release(submitAnswer('processing', job)));
    expect(await screen.findByText(JobMessages.swapInProgress)).toBeInTheDocument();
    expect(swapButton()).toHaveTextContent('Swap');
    const tray = screen.getByTestId('job-tray');
    expect(within(tray).getByText('Face swap')).toBeInTheDocument();
    expect(within(tray).getByText('Queued')).toBeInTheDocument();
  });

  it('refuses without enough credits and sends nothing', async () => {
    const { fetchMock } = await open({ balance: 0 });
    await fillEverything();
    fireEvent.click(screen.getByLabelText(CONSENT_TEXT));
    fireEvent.click(swapButton()!);
    expect(await screen.findByText(Messages.notEnoughCredits)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/faceSwap')).toHaveLength(0);
  });

  it("shows the server's refusal", async () => {
    await open({
      answers: {
        'POST /api/faceSwap': { status: 400, body: { message: 'error', content: JobMessages.badImage } },
      },
    });
    await fillEverything();
    fireEvent.click(screen.getByLabelText(CONSENT_TEXT));
    fireEvent.click(swapButton()!);
    expect(await screen.findByText(JobMessages.badImage)).toBeInTheDocument();
    expect(swapButton()).toBeEnabled();
  });

  it('shows the faces found; the user picks target faces (one, several, all) and the swap sends the choice', async () => {
    const { fetchMock } = await open({
      answers: {
        'POST /api/faceSwap/check': checkAnswer([0, 30, 60]),
        'POST /api/faceSwap': submitAnswer('processing', jobView({ tool: 'faceSwap', state: 'queued' })),
      },
    });
    await fillEverything();
    const face = (name: string) => screen.getByRole('button', { name });
    await waitFor(() => expect(face('Target face 1')).toHaveAttribute('aria-pressed', 'true'));
    expect(face('Target face 2')).toHaveAttribute('aria-pressed', 'false');
    expect(face('Source face 1')).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('face-check-summary')).toHaveTextContent('Price: 1 credit');

    fireEvent.click(face('Target face 2')); // 30 degrees apart: accepted with a warning
    expect(screen.getByText(/Face 2 of the target is turned 30° differently/)).toBeInTheDocument();
    fireEvent.click(face('Target face 1')); // unpicked
    expect(face('Target face 1')).toHaveAttribute('aria-pressed', 'false');
    fireEvent.click(screen.getByLabelText(CONSENT_TEXT));
    expect(swapButton()).toBeEnabled();

    // All faces: the third is turned 60 degrees away, so the swap is refused before any request.
    fireEvent.click(screen.getByRole('button', { name: 'All faces' }));
    expect(screen.getByText(/Face 3 of the target is turned 60° differently/)).toBeInTheDocument();
    expect(swapButton()).toBeDisabled();
    fireEvent.click(face('Target face 3'));
    expect(swapButton()).toBeEnabled();
    fireEvent.click(swapButton()!);
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/faceSwap')).toHaveLength(1));
    const form = sentForm(callsTo(fetchMock, 'POST /api/faceSwap')[0]);
    expect(form.get('targetFaces')).toBe('0,1');
    expect(form.get('sourceFace')).toBe('0');
  });
});
