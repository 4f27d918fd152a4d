import { QUEUE_BOARD_PATH } from '@studio/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { notice, operationsAnswer, operationsState, pushOperations } from '../../test/operations';
import { rememberAccount, renderApp } from '../../test/renderApp';

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

  it('shows Not Found to support staff', async () => {
    rememberAccount('helper');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'helper', role: 'support' }) });
    renderApp('/admin/operations');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
  });
});
