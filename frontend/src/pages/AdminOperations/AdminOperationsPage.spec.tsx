import { QUEUE_BOARD_PATH } from '@studio/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { notice, operationsAnswer, operationsState, pushOperations } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';

const ITEM = '665f1c2e9b1d4a0012345678';

const ok: FakeAnswer = { status: 200, body: { message: 'success', content: null } };

function asAdmin(answers: Record<string, FakeAnswer>) {
  rememberAccount('root');
  return mockFetch({ 'GET /api/session': sessionAnswer({ username: 'root', role: 'admin' }), ...answers });
}

function json(init: RequestInit): unknown {
  return JSON.parse(String(init.body));
}

describe('AdminOperationsPage', () => {
  it('shows the current notices and flags, and links the queue board in a new tab', async () => {
    asAdmin({
      'GET /api/operations': operationsAnswer(
        operationsState({
          notices: [notice('faceSwap', 'Face swap is slow today', { severity: 'error', updatedBy: 'root' })],
          flags: { videoFaceSwap: true },
        }),
      ),
    });
    renderApp('/admin/operations');

    const faceSwap = await screen.findByTestId('notice-faceSwap');
    expect(within(faceSwap).getByLabelText('Face swap notice text')).toHaveValue('Face swap is slow today');
    expect(within(faceSwap).getByRole('switch')).toBeChecked();
    expect(within(faceSwap).getByText('Error')).toBeInTheDocument();
    expect(within(faceSwap).getByText(/by root/)).toBeInTheDocument();
    expect(within(screen.getByTestId('notice-inpaint')).getByRole('switch')).not.toBeChecked();
    expect(screen.getByRole('switch', { name: 'Video face swap' })).toBeChecked();

    const board = screen.getByRole('link', { name: /Queue board/ });
    expect(board).toHaveAttribute('href', QUEUE_BOARD_PATH);
    expect(board).toHaveAttribute('target', '_blank');
  });

  it('saves a notice with text, severity and on/off', async () => {
    const fetchMock = asAdmin({
      'GET /api/operations': operationsAnswer(),
      'PUT /api/admin/notices/inpaint': ok,
    });
    renderApp('/admin/operations');
    const inpaint = await screen.findByTestId('notice-inpaint');

    fireEvent.change(within(inpaint).getByLabelText('Magic Brush notice text'), {
      target: { value: ' Upgrading the GPUs ' },
    });
    fireEvent.mouseDown(within(inpaint).getByRole('combobox', { name: 'Magic Brush notice severity' }));
    fireEvent.click(await screen.findByTitle('Info'));
    fireEvent.click(within(inpaint).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(callsTo(fetchMock, 'PUT /api/admin/notices/inpaint')).toHaveLength(1));
    expect(json(callsTo(fetchMock, 'PUT /api/admin/notices/inpaint')[0])).toEqual({
      text: 'Upgrading the GPUs',
      severity: 'info',
      enabled: false,
    });

    // The switch is busy (loading, so it takes no click) until the first save has come back.
    await waitFor(() => expect(within(inpaint).getByRole('switch')).toBeEnabled());
    fireEvent.click(within(inpaint).getByRole('switch'));
    await waitFor(() => expect(callsTo(fetchMock, 'PUT /api/admin/notices/inpaint')).toHaveLength(2));
    expect(json(callsTo(fetchMock, 'PUT /api/admin/notices/inpaint')[1])).toEqual({
      text: 'Upgrading the GPUs',
      severity: 'info',
      enabled: true,
    });
    await waitFor(() => expect(within(inpaint).getByRole('switch')).toBeChecked());
  });

  it('switches the video face swap flag and follows the pushed state', async () => {
    const fetchMock = asAdmin({
      'GET /api/operations': operationsAnswer(),
      'PUT /api/admin/flags': ok,
    });
    renderApp('/admin/operations');
    const flag = await screen.findByRole('switch', { name: 'Video face swap' });
    expect(flag).not.toBeChecked();

    fireEvent.click(flag);
    await waitFor(() => expect(callsTo(fetchMock, 'PUT /api/admin/flags')).toHaveLength(1));
    expect(json(callsTo(fetchMock, 'PUT /api/admin/flags')[0])).toEqual({ videoFaceSwap: true });
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Video face swap' })).toBeChecked());

    // Another admin switches it off: the pushed state wins.
    await waitFor(() => expect(screen.getByTestId('notice-faceSwap')).toBeInTheDocument());
    pushOperations(operationsState({ flags: { videoFaceSwap: false } }));
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Video face swap' })).not.toBeChecked());
  });

  it('names the tool in each notice example', async () => {
    asAdmin({ 'GET /api/operations': operationsAnswer() });
    renderApp('/admin/operations');
    const example = (tool: string, label: string) =>
      within(screen.getByTestId(`notice-${tool}`))
        .getByLabelText(`${label} notice text`)
        .getAttribute('placeholder');

    await screen.findByTestId('notice-faceSwap');
    expect(example('faceSwap', 'Face swap')).toBe(
      'e.g. Face swap is slower than usual while we upgrade the servers.',
    );
    expect(example('inpaint', 'Magic Brush')).toBe(
      'e.g. Magic Brush is slower than usual while we upgrade the servers.',
    );
    expect(example('clone', 'Clones')).toBe(
      'e.g. Cloning is slower than usual while we upgrade the servers.',
    );
    expect(example('generate', 'Generated')).toBe(
      'e.g. Image generation is slower than usual while we upgrade the servers.',
    );
    expect(example('superResolution', 'Super resolution')).toMatch(/^e\.g\. Super resolution is slower/);
    expect(example('faceSwapVideo', 'Video face swap')).toMatch(/^e\.g\. Video face swap is slower/);
  });

  it('takes an item down from its content URL after a confirmation, and says so', async () => {
    const fetchMock = asAdmin({
      'GET /api/operations': operationsAnswer(),
      [`POST /api/admin/content/${ITEM}/takedown`]: {
        status: 200,
        body: {
          message: 'success',
          content: {
            _id: ITEM,
            url: `/api/content/${ITEM}.png`,
            kind: 'image',
            title: 'Beach',
            visible: false,
            createdAt: '2026-11-21T08:00:00.000Z',
            takedown: { reason: 'Reported', mode: 'delete', at: '2026-11-21T12:00:00.000Z' },
          },
        },
      },
    });
    renderApp('/admin/operations');
    const card = await screen.findByTestId('takedown-card');

    fireEvent.change(within(card).getByLabelText('Content URL or item id'), {
      target: { value: `https://studio.example.com/api/content/${ITEM}.png` },
    });
    fireEvent.click(within(card).getByRole('radio', { name: 'Delete the file' }));
    fireEvent.change(within(card).getByLabelText('Reason'), {
      target: { value: '  Reported by the person shown ' },
    });
    fireEvent.click(within(card).getByRole('button', { name: 'Take down' }));

    const confirm = await screen.findByRole('tooltip');
    expect(confirm).toHaveTextContent('Take this item down?');
    expect(confirm).toHaveTextContent(`Item ${ITEM}. Its file is deleted for good.`);
    expect(callsTo(fetchMock, `POST /api/admin/content/${ITEM}/takedown`)).toHaveLength(0);

    fireEvent.click(within(confirm).getByRole('button', { name: 'Take down' }));
    await waitFor(() =>
      expect(callsTo(fetchMock, `POST /api/admin/content/${ITEM}/takedown`)).toHaveLength(1),
    );
    expect(json(callsTo(fetchMock, `POST /api/admin/content/${ITEM}/takedown`)[0])).toEqual({
      mode: 'delete',
      reason: 'Reported by the person shown',
    });
    const toast = await screen.findByText('Taken down: Beach');
    expect(toast.closest('.ant-notification-notice')).toHaveTextContent(
      'The file was deleted; its owner was told why.',
    );
    await waitFor(() => expect(within(card).getByLabelText('Content URL or item id')).toHaveValue(''));
    expect(within(card).getByRole('radio', { name: 'Hide (keep the file)' })).toBeChecked();
  });

  it('refuses what is not a content URL or an item id, and sends nothing', async () => {
    const fetchMock = asAdmin({ 'GET /api/operations': operationsAnswer() });
    renderApp('/admin/operations');
    const card = await screen.findByTestId('takedown-card');

    fireEvent.click(within(card).getByRole('button', { name: 'Take down' }));
    expect(await within(card).findByText('Paste the content URL or the item id')).toBeInTheDocument();
    expect(within(card).getByText('A reason is required')).toBeInTheDocument();

    fireEvent.change(within(card).getByLabelText('Content URL or item id'), {
      target: { value: '/api/folders/665f1c2e9b1d4a0012345678' },
    });
    fireEvent.change(within(card).getByLabelText('Reason'), { target: { value: 'Spam' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Take down' }));
    expect(
      await within(card).findByText('Not a content URL (/api/content/…) or an item id'),
    ).toBeInTheDocument();
    expect(screen.queryByText('Take this item down?')).not.toBeInTheDocument();
    expect(fetchMock.mock.calls.filter(([url]) => String(url).includes('/takedown'))).toHaveLength(0);
  });

  it("shows the server's refusal when the item does not exist, and keeps the form", async () => {
    const fetchMock = asAdmin({
      'GET /api/operations': operationsAnswer(),
      [`POST /api/admin/content/${ITEM}/takedown`]: {
        status: 404,
        body: { message: 'error', content: 'Item not found' },
      },
    });
    renderApp('/admin/operations');
    const card = await screen.findByTestId('takedown-card');

    fireEvent.change(within(card).getByLabelText('Content URL or item id'), { target: { value: ITEM } });
    fireEvent.change(within(card).getByLabelText('Reason'), { target: { value: 'Spam' } });
    fireEvent.click(within(card).getByRole('button', { name: 'Take down' }));
    const confirm = await screen.findByRole('tooltip');
    expect(confirm).toHaveTextContent('The owner can no longer open it; the file is kept.');
    fireEvent.click(within(confirm).getByRole('button', { name: 'Take down' }));

    expect(await screen.findByText('Item not found')).toBeInTheDocument();
    expect(json(callsTo(fetchMock, `POST /api/admin/content/${ITEM}/takedown`)[0])).toEqual({
      mode: 'hide',
      reason: 'Spam',
    });
    expect(within(card).getByLabelText('Content URL or item id')).toHaveValue(ITEM);
  });

  it('shows Not Found to support staff', async () => {
    rememberAccount('helper');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'helper', role: 'support' }) });
    renderApp('/admin/operations');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
  });
});

describe('AdminOperationsPage engines', () => {
  it('shows each tool engine, whether its server answers with GPU and VRAM, and its queues', async () => {
    const generate = {
      tool: 'generate',
      kind: 'comfyui',
      available: true,
      reachable: true,
      detail: 'NVIDIA GeForce RTX 4090, 20.0 GiB of 24.0 GiB VRAM free',
      remoteQueue: { running: 1, pending: 2 },
      queue: { waiting: 3, active: 1, delayed: 0, failed: 0 },
    };
    const inpaint = {
      tool: 'inpaint',
      kind: 'replicate',
      available: true,
      reachable: false,
      readiness: 'unauthorised',
      detail: 'Replicate at https://api.replicate.com does not answer: refused the credentials',
      queue: { waiting: 0, active: 0, delayed: 0, failed: 0 },
    };
    const faceSwap = {
      tool: 'faceSwap',
      kind: 'a1111',
      available: true,
      reachable: true,
      readiness: 'models_missing',
      missing: ['ReActor model inswapper_128.onnx'],
      detail: 'answers, idle',
      queue: { waiting: 0, active: 0, delayed: 0, failed: 0 },
    };
    asAdmin({
      'GET /api/operations': operationsAnswer(),
      'GET /api/admin/engines': {
        status: 200,
        body: { message: 'success', content: [generate, inpaint, faceSwap] },
      },
    });
    renderApp('/admin/operations');
    const state = await screen.findByTestId('engine-state-generate');
    expect(state).toHaveTextContent('Answers');
    expect(state).toHaveTextContent('RTX 4090, 20.0 GiB of 24.0 GiB VRAM free');
    expect(screen.getByTestId('engine-queue-generate')).toHaveTextContent(
      '3 waiting, 1 running (server: 1 running, 2 pending)',
    );
    expect(screen.getByTestId('engine-state-inpaint')).toHaveTextContent('Does not answer');
    expect(screen.getByTestId('engine-state-inpaint')).toHaveTextContent('Credentials refused');
    expect(screen.getByTestId('engine-state-faceSwap')).toHaveTextContent('Models missing');
    expect(screen.getByTestId('engine-missing-faceSwap')).toHaveTextContent(
      'Missing: ReActor model inswapper_128.onnx',
    );
    expect(within(screen.getByTestId('engines-card')).getByText('Replicate')).toBeInTheDocument();
  });

  it('names no engine for a tool its configured engine cannot do (Generate on the CPU)', async () => {
    const generate = {
      tool: 'generate',
      kind: 'local',
      available: false,
      queue: { waiting: 0, active: 0, delayed: 0, failed: 0 },
    };
    asAdmin({
      'GET /api/operations': operationsAnswer(),
      'GET /api/admin/engines': { status: 200, body: { message: 'success', content: [generate] } },
    });
    renderApp('/admin/operations');
    expect(await screen.findByTestId('engine-none-generate')).toHaveTextContent(
      'None (the local CPU engine cannot do this)',
    );
    expect(within(screen.getByTestId('engines-card')).queryByText('Local CPU')).not.toBeInTheDocument();
  });
});
