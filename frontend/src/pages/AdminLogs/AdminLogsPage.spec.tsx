import { SocketEvents } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { formatLocalDateTime } from '../../admin/format';
import { adminStats, logEntry, logPageAnswer, logsKey, statsAnswer, statsKey } from '../../test/admin';
import { openSocket } from '../../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';
import { STATS_RELOAD_DELAY_MS } from './useAdminStats';
import { tooltipDollars } from './faceSwapChart';

function asAdmin(answers: Record<string, FakeAnswer | (() => FakeAnswer)>) {
  rememberAccount('root');
  return mockFetch({ 'GET /api/session': sessionAnswer({ username: 'root', role: 'admin' }), ...answers });
}

function tableRows() {
  return screen.getAllByRole('row').slice(1);
}

describe('AdminLogsPage', () => {
  it('draws the face swaps chart and the four totals from the stats', async () => {
    asAdmin({ [statsKey()]: statsAnswer(), [logsKey()]: logPageAnswer([]) });
    renderApp('/admin/logs');

    // The chart is loaded lazily: the first import takes a while under ts-jest.
    const chart = await screen.findByTestId('chart-line', {}, { timeout: 10_000 });
    await waitFor(() => expect(JSON.parse(chart.getAttribute('data-points')!)).toHaveLength(30));
    const points = JSON.parse(chart.getAttribute('data-points')!);
    expect(points[0]).toEqual({ day: '23-10', faceSwaps: 1, dollars: 0.05, series: 'FaceSwaps' });
    expect(points[29]).toMatchObject({ day: '21-11', faceSwaps: 30 });
    expect(chart).toHaveAttribute('data-x', 'day');
    expect(chart).toHaveAttribute('data-y', 'faceSwaps');
    expect(JSON.parse(chart.getAttribute('data-scale')!)).toEqual({
      color: { domain: ['FaceSwaps'], range: ['#f5222d'] },
    });
    expect(tooltipDollars(points[29])).toEqual({ name: 'Dollars', value: '$1.50' });

    expect(screen.getByTestId('total-today')).toHaveTextContent(/Today\s*12\s*credits\s*\$0\.60/);
    expect(screen.getByTestId('total-yesterday')).toHaveTextContent(/40\s*credits\s*\$2\.00/);
    expect(screen.getByTestId('total-week')).toHaveTextContent(/140\s*credits\s*\$7\.00/);
    expect(screen.getByTestId('total-month')).toHaveTextContent(/1,234\s*credits\s*\$61\.70/);
  }, 20_000);

  it('stays empty with zeros when the calls fail', async () => {
    const failed = { status: 500, body: { message: 'error', content: 'down' } };
    asAdmin({ [statsKey()]: failed, [logsKey()]: failed });
    renderApp('/admin/logs');

    const chart = await screen.findByTestId('chart-line', {}, { timeout: 10_000 });
    expect(chart).toHaveAttribute('data-points', '[]');
    await waitFor(() => expect(screen.getByTestId('total-month')).toHaveTextContent(/0\s*credits\s*\$0\.00/));
    expect(screen.getByTestId('total-today')).toHaveTextContent(/0\s*credits\s*\$0\.00/);
    expect(screen.queryAllByRole('row')).toHaveLength(1 + 1); // the header and the empty row
  }, 20_000);

  it('lists entries with local dates and a detail icon only when there is detail', async () => {
    const withDetail = logEntry({ message: 'Swapped 3 images', detail: 'job 42 on gpu-1' });
    const anonymous = logEntry({ author: undefined, category: 'Account', message: 'Someone signed up' });
    asAdmin({ [statsKey()]: statsAnswer(), [logsKey()]: logPageAnswer([withDetail, anonymous]) });
    renderApp('/admin/logs');

    expect(await screen.findByText('Swapped 3 images')).toBeInTheDocument();
    const [first, second] = tableRows();
    expect(within(first).getByText('FaceSwap')).toBeInTheDocument();
    expect(within(first).getByText('alice')).toBeInTheDocument();
    expect(within(first).getByText(formatLocalDateTime(withDetail.createdOn))).toBeInTheDocument();
    expect(formatLocalDateTime(withDetail.createdOn)).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(within(second).queryByRole('button', { name: 'Show detail' })).not.toBeInTheDocument();

    fireEvent.click(within(first).getByRole('button', { name: 'Show detail' }));
    expect(await screen.findByText('job 42 on gpu-1')).toBeInTheDocument();
  }, 20_000);

  it('pages by cursor, newer and older, and sends filters to the server', async () => {
    const many = Array.from({ length: 50 }, (_, i) => logEntry({ message: `First page ${i}` }));
    const second = Array.from({ length: 50 }, (_, i) => logEntry({ message: `Second page ${i}` }));
    const fetchMock = asAdmin({
      [statsKey()]: statsAnswer(),
      [logsKey()]: logPageAnswer(many, { next: many[49]._id }),
      [logsKey({ before: many[49]._id })]: logPageAnswer(second, { next: second[49]._id }),
      [logsKey({ before: second[49]._id })]: logPageAnswer([logEntry({ message: 'The oldest' })]),
      [logsKey({ pageSize: 20 })]: logPageAnswer([logEntry({ message: 'Twenty a page' })], { pageSize: 20 }),
      [logsKey({ category: 'Credits' })]: logPageAnswer([
        logEntry({ category: 'Credits', message: 'Credits row' }),
      ]),
      [logsKey({ category: 'Credits', user: 'bob' })]: logPageAnswer([]),
    });
    renderApp('/admin/logs');

    expect(await screen.findByText('First page 0', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByTestId('log-page')).toHaveTextContent('Page 1');
    const newer = () => screen.getByRole('button', { name: /Newer/ });
    const older = () => screen.getByRole('button', { name: /Older/ });
    expect(newer()).toBeDisabled();

    fireEvent.click(older());
    expect(await screen.findByText('Second page 0')).toBeInTheDocument();
    expect(screen.getByTestId('log-page')).toHaveTextContent('Page 2');
    await waitFor(() => expect(older()).toBeEnabled());
    fireEvent.click(older());
    expect(await screen.findByText('The oldest')).toBeInTheDocument();
    expect(screen.getByTestId('log-page')).toHaveTextContent('Page 3');
    await waitFor(() => expect(newer()).toBeEnabled());
    expect(older()).toBeDisabled(); // the last page: no next cursor

    fireEvent.click(newer());
    expect(await screen.findByText('Second page 0')).toBeInTheDocument();
    expect(screen.getByTestId('log-page')).toHaveTextContent('Page 2');
    expect(callsTo(fetchMock, logsKey({ before: many[49]._id })).length).toBeGreaterThanOrEqual(1);

    // Another page size starts again from the newest page.
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Page size' }));
    fireEvent.click(await screen.findByTitle('20 / page'));
    expect(await screen.findByText('Twenty a page')).toBeInTheDocument();
    expect(screen.getByTestId('log-page')).toHaveTextContent('Page 1');
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Page size' }));
    fireEvent.click(await screen.findByTitle('50 / page'));
    expect(await screen.findByText('First page 0')).toBeInTheDocument();

    // A filter starts again from the newest page.
    fireEvent.click(older());
    expect(await screen.findByText('Second page 0')).toBeInTheDocument();
    fireEvent.mouseDown(screen.getByRole('combobox', { name: 'Category' }));
    fireEvent.click(await screen.findByTitle('Credits'));
    expect(await screen.findByText('Credits row')).toBeInTheDocument();
    expect(screen.getByTestId('log-page')).toHaveTextContent('Page 1');

    fireEvent.change(screen.getByPlaceholderText('Username'), { target: { value: ' bob ' } });
    fireEvent.keyDown(screen.getByPlaceholderText('Username'), { key: 'Enter', keyCode: 13 });
    await waitFor(() =>
      expect(callsTo(fetchMock, logsKey({ category: 'Credits', user: 'bob' }))).toHaveLength(1),
    );
  }, 45_000);

  it('keeps the next cursor on the entry a live row pushes off the first page', async () => {
    const full = Array.from({ length: 20 }, (_, i) => logEntry({ message: `Row ${i}` }));
    const fetchMock = asAdmin({
      [statsKey()]: statsAnswer(),
      [logsKey({ pageSize: 20 })]: logPageAnswer(full, { pageSize: 20, next: full[19]._id }),
      [logsKey()]: logPageAnswer([]),
      [logsKey({ before: full[18]._id, pageSize: 20 })]: logPageAnswer(
        [logEntry({ message: 'After row 18' })],
        {
          pageSize: 20,
        },
      ),
    });
    renderApp('/admin/logs');
    await waitFor(() => expect(openSocket()).toBeDefined());
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: 'Page size' }));
    fireEvent.click(await screen.findByTitle('20 / page'));
    expect(await screen.findByText('Row 19')).toBeInTheDocument();

    act(() => openSocket()!.serverEmit(SocketEvents.auditAppended, logEntry({ message: 'Live on top' })));
    await waitFor(() => expect(tableRows()[0]).toHaveTextContent('Live on top'));
    expect(screen.queryByText('Row 19')).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: /Older/ }));
    expect(await screen.findByText('After row 18')).toBeInTheDocument();
    expect(callsTo(fetchMock, logsKey({ before: full[18]._id, pageSize: 20 }))).toHaveLength(1);
  }, 20_000);

  it('prepends live entries that match and re-reads the stats once after a burst', async () => {
    const older = logEntry({ message: 'Older entry' });
    const fetchMock = asAdmin({
      [statsKey()]: statsAnswer(),
      [logsKey()]: logPageAnswer([older]),
    });
    renderApp('/admin/logs');
    expect(await screen.findByText('Older entry')).toBeInTheDocument();
    await waitFor(() => expect(openSocket()).toBeDefined());
    expect(callsTo(fetchMock, statsKey())).toHaveLength(1);

    const live = logEntry({ message: 'Live swap', category: 'FaceSwap' });
    act(() => openSocket()!.serverEmit(SocketEvents.auditAppended, live));
    act(() => openSocket()!.serverEmit(SocketEvents.auditAppended, logEntry({ message: 'Second live' })));

    await waitFor(() => expect(tableRows()[0]).toHaveTextContent('Second live'));
    expect(tableRows()[1]).toHaveTextContent('Live swap');
    expect(tableRows()[2]).toHaveTextContent('Older entry');
    // The same entry twice is shown once.
    act(() => openSocket()!.serverEmit(SocketEvents.auditAppended, live));
    expect(screen.getAllByText('Live swap')).toHaveLength(1);

    await waitFor(() => expect(callsTo(fetchMock, statsKey())).toHaveLength(2), {
      timeout: STATS_RELOAD_DELAY_MS + 1500,
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsTo(fetchMock, statsKey())).toHaveLength(2);
  }, 20_000);

  it('does not prepend a live entry outside the filters', async () => {
    asAdmin({
      [statsKey()]: statsAnswer(adminStats()),
      [logsKey()]: logPageAnswer([]),
      [logsKey({ category: 'Credits' })]: logPageAnswer([
        logEntry({ category: 'Credits', message: 'Credits row' }),
      ]),
    });
    renderApp('/admin/logs');
    await waitFor(() => expect(openSocket()).toBeDefined());
    fireEvent.mouseDown(await screen.findByRole('combobox', { name: 'Category' }));
    fireEvent.click(await screen.findByTitle('Credits'));
    expect(await screen.findByText('Credits row')).toBeInTheDocument();

    act(() => openSocket()!.serverEmit(SocketEvents.auditAppended, logEntry({ message: 'A face swap' })));
    act(() =>
      openSocket()!.serverEmit(
        SocketEvents.auditAppended,
        logEntry({ category: 'Credits', message: 'Credits live' }),
      ),
    );
    expect(await screen.findByText('Credits live')).toBeInTheDocument();
    expect(screen.queryByText('A face swap')).not.toBeInTheDocument();
  }, 20_000);

  it('shows Not Found to a user who is not an admin, without asking for logs', async () => {
    rememberAccount('alice');
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', role: 'support' }),
    });
    renderApp('/admin/logs');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
    expect(callsTo(fetchMock, statsKey())).toHaveLength(0);
  }, 20_000);

  it('shows Not Found when logged out', async () => {
    const fetchMock = mockFetch();
    renderApp('/admin/logs');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  }, 20_000);
});
