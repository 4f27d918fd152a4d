import { JobMessages, Messages, type FolderSummary } from '@studio/contracts';
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
});
