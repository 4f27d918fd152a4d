import type { BulkReimbursePreview, CreditHistoryEntry } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { userSummary } from '../../test/admin';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

const alice = userSummary({ username: 'alice', balance: 30, verified: true, early: false });
const searchKey = 'GET /api/support/users?query=ali';
const historyKey = 'GET /api/support/users/alice/credits?page=1&pageSize=20';

function history(items: Partial<CreditHistoryEntry>[]): FakeAnswer {
  const full = items.map((item, i) => ({
    _id: `h${i}`,
    kind: 'purchase' as const,
    amount: 200,
    reason: 'Stripe checkout',
    createdAt: '2026-11-20T10:00:00.000Z',
    ...item,
  }));
  return {
    status: 200,
    body: { message: 'success', content: { items: full, total: full.length, page: 1, pageSize: 20 } },
  };
}

const ok = (content: unknown): FakeAnswer => ({ status: 200, body: { message: 'success', content } });

function signIn(
  role: 'support' | 'admin',
  answers: Record<string, FakeAnswer | ((init: RequestInit) => FakeAnswer)>,
) {
  rememberAccount('staff');
  return mockFetch({ 'GET /api/session': sessionAnswer({ username: 'staff', role }), ...answers });
}

function json(init: RequestInit): unknown {
  return JSON.parse(String(init.body));
}

async function pickAlice() {
  const search = await screen.findByPlaceholderText('Start of a username');
  fireEvent.change(search, { target: { value: 'ali' } });
  fireEvent.keyDown(search, { key: 'Enter', keyCode: 13 });
  fireEvent.click(await screen.findByTestId('user-alice'));
  await screen.findByText('Credit history');
}

async function fillCreditForm(card: HTMLElement, amount: string, reason: string) {
  fireEvent.change(within(card).getByLabelText('Credits'), { target: { value: amount } });
  fireEvent.change(within(card).getByLabelText('Reason'), { target: { value: reason } });
}

function card(title: string): HTMLElement {
  return screen.getByText(title, { selector: '.ant-card-head-title' }).closest('.ant-card') as HTMLElement;
}

describe('SupportPage', () => {
  it("names the method of a user's age check in words, not its code", async () => {
    signIn('support', {
      [searchKey]: ok([alice]),
      [historyKey]: history([]),
      'GET /api/support/users/alice/age-assurance': ok({
        required: true,
        assured: true,
        method: 'credit_card',
        assuredAt: '2026-11-20T10:00:00.000Z',
      }),
    });
    renderApp('/admin/support');
    await pickAlice();
    expect(await within(card('alice')).findByText('credit card check')).toBeInTheDocument();
    expect(within(card('alice')).queryByText('credit_card')).not.toBeInTheDocument();
  });

  it('finds a user, shows balance, badges and history, and reimburses them', async () => {
    const fetchMock = signIn('support', {
      [searchKey]: ok([alice]),
      [historyKey]: history([
        { reason: 'Stripe checkout' },
        { kind: 'reservation', amount: -4, reason: 'Face swap' },
        // A capture confirms the reservation: it has no balance of its own (no "NaN").
        { kind: 'capture', amount: 0, reason: 'Face swap confirmed' },
      ]),
      'POST /api/support/reimburse': ok({ username: 'alice', amount: 5, balance: 35 }),
    });
    renderApp('/admin/support');
    await pickAlice();

    expect(screen.getByTestId('user-balance')).toHaveTextContent('30');
    expect(screen.getByText(/\(\$1\.50\)/)).toBeInTheDocument();
    expect(within(card('alice')).getByText('Verified')).toBeInTheDocument();
    expect(await screen.findByText('Stripe checkout')).toBeInTheDocument();
    // The same minus sign as the owner's history (creditColumns).
    expect(screen.getByText('−4')).toBeInTheDocument();
    expect(screen.queryByText('NaN')).not.toBeInTheDocument();

    // Support staff: no admin tools.
    expect(screen.queryByText('Grant credits')).not.toBeInTheDocument();
    expect(screen.queryByRole('switch', { name: 'Verified' })).not.toBeInTheDocument();
    expect(screen.queryByText('Patreon secrets')).not.toBeInTheDocument();

    await fillCreditForm(card('Reimburse'), '5', '  Face swap failed twice ');
    fireEvent.click(within(card('Reimburse')).getByRole('button', { name: 'Reimburse' }));

    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/support/reimburse')).toHaveLength(1));
    const sent = json(callsTo(fetchMock, 'POST /api/support/reimburse')[0]);
    expect(sent).toEqual({
      username: 'alice',
      amount: 5,
      reason: 'Face swap failed twice',
      requestId: expect.any(String),
    });
    await waitFor(() => expect(screen.getByTestId('user-balance')).toHaveTextContent('35'));
    // The history is read again to show the reimbursement.
    await waitFor(() => expect(callsTo(fetchMock, historyKey)).toHaveLength(2));
  }, 20_000);

  it("shows the server's refusal of a reimbursement", async () => {
    signIn('support', {
      [searchKey]: ok([alice]),
      [historyKey]: history([]),
      'POST /api/support/reimburse': { status: 404, body: { message: 'error', content: 'User not found' } },
    });
    renderApp('/admin/support');
    await pickAlice();
    await fillCreditForm(card('Reimburse'), '5', 'Outage');
    fireEvent.click(within(card('Reimburse')).getByRole('button', { name: 'Reimburse' }));
    expect(await screen.findByText('User not found')).toBeInTheDocument();
    expect(screen.getByTestId('user-balance')).toHaveTextContent('30');
  });

  it('sends a corrected amount after a refusal as a new request, and a retry after a failure as the same', async () => {
    const statuses = [422, 500, 200];
    const fetchMock = signIn('support', {
      [searchKey]: ok([alice]),
      [historyKey]: history([]),
      'POST /api/support/reimburse': () => {
        const status = statuses.shift()!;
        return status === 200
          ? ok({ username: 'alice', amount: 5, balance: 35 })
          : { status, body: { message: 'error', content: `refused ${status}` } };
      },
    });
    renderApp('/admin/support');
    await pickAlice();
    const send = async (calls: number) => {
      fireEvent.click(within(card('Reimburse')).getByRole('button', { name: 'Reimburse' }));
      await waitFor(() => expect(callsTo(fetchMock, 'POST /api/support/reimburse')).toHaveLength(calls));
    };
    await fillCreditForm(card('Reimburse'), '5', 'Outage');
    await send(1);
    expect(await screen.findByText('refused 422')).toBeInTheDocument();
    await send(2);
    expect(await screen.findByText('refused 500')).toBeInTheDocument();
    await send(3);
    await waitFor(() => expect(screen.getByTestId('user-balance')).toHaveTextContent('35'));
    const ids = callsTo(fetchMock, 'POST /api/support/reimburse').map(
      (init) => (json(init) as { requestId: string }).requestId,
    );
    expect(ids[1]).not.toBe(ids[0]); // the refusal decided the first request
    expect(ids[2]).toBe(ids[1]); // a server failure may have credited: the retry is the same request
  }, 20_000);

  it('previews who spent on a tool in a window, then reimburses them on confirmation', async () => {
    const preview: BulkReimbursePreview = {
      tool: 'faceSwap',
      from: '',
      to: '',
      users: [
        { username: 'alice', amount: 12 },
        { username: 'bob', amount: 4 },
      ],
      totalCredits: 16,
    };
    const fetchMock = signIn('support', {
      'POST /api/support/reimburse/tool/preview': (init) => ok({ ...preview, ...(json(init) as object) }),
      'POST /api/support/reimburse/tool': (init) => ok({ ...preview, ...(json(init) as object) }),
    });
    renderApp('/admin/support');
    const bulk = await waitFor(() => card('Reimburse a tool outage'));

    fireEvent.mouseDown(within(bulk).getByLabelText('Tool'));
    fireEvent.click(await screen.findByTitle('Face swap'));
    const [start, end] = within(bulk)
      .getAllByRole('textbox')
      .filter((input) => input.getAttribute('date-range'));
    for (const [input, value] of [
      [start, '2026-11-20 08:00:00'],
      [end, '2026-11-20 12:00:00'],
    ] as const) {
      fireEvent.mouseDown(input);
      fireEvent.focus(input);
      fireEvent.change(input, { target: { value } });
      fireEvent.keyDown(input, { key: 'Enter', keyCode: 13 });
    }
    fireEvent.change(within(bulk).getByLabelText('Reason'), { target: { value: 'Face swap outage' } });
    fireEvent.click(within(bulk).getByRole('button', { name: 'Preview' }));

    expect(await screen.findByTestId('bulk-total')).toHaveTextContent('2 users, 16 credits in total');
    const request = json(callsTo(fetchMock, 'POST /api/support/reimburse/tool/preview')[0]) as Record<
      string,
      string
    >;
    expect(request).toEqual({
      tool: 'faceSwap',
      from: new Date(2026, 10, 20, 8).toISOString(),
      to: new Date(2026, 10, 20, 12).toISOString(),
      reason: 'Face swap outage',
    });
    expect(within(bulk).getByText('bob')).toBeInTheDocument();

    fireEvent.click(within(bulk).getByRole('button', { name: 'Reimburse 2 users' }));
    await act(async () => {
      fireEvent.click(await screen.findByRole('button', { name: 'Reimburse' }));
    });
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/support/reimburse/tool')).toHaveLength(1));
    expect(json(callsTo(fetchMock, 'POST /api/support/reimburse/tool')[0])).toEqual(request);
    expect(await screen.findByText('Reimbursed 16 credits to 2 users')).toBeInTheDocument();
  }, 20_000);

  it('lets admins set badges, grant credits and issue a Patreon secret', async () => {
    const fetchMock = signIn('admin', {
      [searchKey]: ok([alice]),
      [historyKey]: history([]),
      'PUT /api/admin/users/alice/badges': ok({ ...alice, early: true }),
      'POST /api/admin/credits/grant': ok({ username: 'alice', amount: 100, balance: 130 }),
      'POST /api/admin/patreonSecrets': ok(['s3cr3t-1']),
    });
    renderApp('/admin/support');
    await pickAlice();

    fireEvent.click(screen.getByRole('switch', { name: 'Early supporter' }));
    await waitFor(() => expect(callsTo(fetchMock, 'PUT /api/admin/users/alice/badges')).toHaveLength(1));
    expect(json(callsTo(fetchMock, 'PUT /api/admin/users/alice/badges')[0])).toEqual({ early: true });
    await waitFor(() => expect(screen.getByRole('switch', { name: 'Early supporter' })).toBeChecked());
    expect(card('alice').querySelector('.ant-card-extra .ant-tag-gold')).toHaveTextContent('Early supporter');

    await fillCreditForm(card('Grant credits'), '100', 'Contest prize');
    fireEvent.click(within(card('Grant credits')).getByRole('button', { name: 'Grant' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/admin/credits/grant')).toHaveLength(1));
    expect(json(callsTo(fetchMock, 'POST /api/admin/credits/grant')[0])).toEqual({
      username: 'alice',
      amount: 100,
      reason: 'Contest prize',
      requestId: expect.any(String),
    });
    await waitFor(() => expect(screen.getByTestId('user-balance')).toHaveTextContent('130'));

    fireEvent.click(screen.getByRole('button', { name: 'Issue secret' }));
    expect(await screen.findByText('s3cr3t-1')).toBeInTheDocument();
    expect(json(callsTo(fetchMock, 'POST /api/admin/patreonSecrets')[0])).toEqual({ count: 1 });
  }, 20_000);

  it('shows a suspension after repeated removals; admins lift it, support only sees it', async () => {
    const suspended = {
      ...alice,
      suspended: {
        at: '2026-11-30T10:00:00.000Z',
        reason: 'repeated_removals' as const,
        reportId: 'r42',
        removals: 3,
      },
    };
    const fetchMock = signIn('admin', {
      [searchKey]: ok([suspended]),
      [historyKey]: history([]),
      'DELETE /api/admin/users/alice/suspension': ok(alice),
    });
    renderApp('/admin/support');
    await pickAlice();
    expect(screen.getByTestId('user-alice')).toHaveTextContent('suspended');
    expect(card('alice')).toHaveTextContent(
      'After 3 confirmed removals of reported content (the last by report r42)',
    );
    fireEvent.click(within(card('alice')).getByRole('button', { name: 'Lift suspension' }));
    await waitFor(() =>
      expect(callsTo(fetchMock, 'DELETE /api/admin/users/alice/suspension')).toHaveLength(1),
    );
    await waitFor(() => expect(card('alice')).not.toHaveTextContent('Suspended since'));
    expect(screen.getByTestId('user-alice')).not.toHaveTextContent('suspended');
  }, 20_000);

  it('support staff see a suspension but have no button to lift it', async () => {
    signIn('support', {
      [searchKey]: ok([
        { ...alice, suspended: { at: '2026-11-30T10:00:00.000Z', reason: 'repeated_removals' } },
      ]),
      [historyKey]: history([]),
    });
    renderApp('/admin/support');
    await pickAlice();
    expect(card('alice')).toHaveTextContent('Suspended since');
    expect(within(card('alice')).queryByRole('button', { name: 'Lift suspension' })).toBeNull();
  }, 20_000);

  it('shows Not Found to an ordinary user', async () => {
    rememberAccount('alice');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'alice', role: 'user' }) });
    renderApp('/admin/support');
    expect(await screen.findByText('Page not found')).toBeInTheDocument();
  });
});
