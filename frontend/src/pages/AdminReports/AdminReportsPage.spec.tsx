import type { ReportView } from '@studio/contracts';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

const report = (over: Partial<ReportView>): ReportView => ({
  id: 'r1',
  status: 'open',
  category: 'intimate_without_consent',
  reporterRole: 'depicted',
  reporter: { name: 'Jane', email: 'jane@example.com' },
  explanation: 'me without consent',
  signature: 'Jane',
  hasFile: true,
  receivedAt: '2026-11-28T10:00:00.000Z',
  deadline: '2026-11-30T10:00:00.000Z',
  msLeft: 40 * 3600_000,
  overdue: false,
  matches: [
    {
      itemId: 'i1',
      ownerId: 'a',
      ownerName: 'alice',
      method: 'perceptual',
      distance: 2,
      removed: false,
      kind: 'item',
      restorable: false,
    },
    {
      itemId: 'j1:input:0',
      ownerId: 'b',
      ownerName: 'bob',
      method: 'exact',
      distance: 0,
      removed: false,
      kind: 'input',
      copyOf: 'i1',
      restorable: false,
    },
  ],
  ...over,
});

const ok = (content: unknown): FakeAnswer => ({ status: 200, body: { message: 'success', content } });

describe('staff reports queue', () => {
  it('shows each report with its clock (overdue in red) and matches, and removes every copy with a reason', async () => {
    rememberAccount('staff');
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'staff', role: 'support' }),
      'GET /api/admin/reports?status=open': ok({
        reports: [
          report({ id: 'late', msLeft: -2 * 3600_000 - 5 * 60_000, overdue: true }),
          report({ id: 'r1' }),
        ],
      }),
      'POST /api/admin/reports/r1/decision': ok({ report: report({ status: 'removed' }) }),
    });
    renderApp('/admin/reports');
    const clocks = await screen.findAllByTestId('report-clock');
    expect(clocks.map((c) => c.textContent)).toEqual(['overdue by 2 h 5 min', '40 h 0 min left']);
    expect(screen.getAllByTestId('report-match')[0]).toHaveTextContent(
      'alice · item i1 · perceptual (2 bits)',
    );

    const rows = screen.getAllByRole('row');
    fireEvent.click(within(rows[2]).getByRole('button', { name: 'Remove all 2 copies' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Reason'), {
      target: { value: 'Shared without consent' },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Remove all 2 copies' }));
    await waitFor(() => expect(callsTo(fetchMock, 'POST /api/admin/reports/r1/decision')).toHaveLength(1));
    expect(JSON.parse(String(callsTo(fetchMock, 'POST /api/admin/reports/r1/decision')[0].body))).toEqual({
      action: 'remove',
      reason: 'Shared without consent',
    });
  });

  it("decides an owner's appeal with a reason: reverse or uphold", async () => {
    rememberAccount('staff');
    const removed = report({
      id: 'r2',
      status: 'removed',
      decision: { action: 'remove', reason: 'x', by: 'other', at: '2026-11-28T11:00:00.000Z' },
    });
    removed.matches = removed.matches.map((m) => ({
      ...m,
      removed: true,
      restorable: true,
      ...(m.itemId === 'i1' ? { appeal: { text: 'my own face', at: '2026-11-28T12:00:00.000Z' } } : {}),
    }));
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'staff', role: 'support' }),
      'GET /api/admin/reports?status=open': ok({ reports: [] }),
      'GET /api/admin/reports?status=decided': ok({ reports: [removed] }),
      'POST /api/admin/reports/r2/appeals/i1/decision': ok({ report: removed }),
    });
    renderApp('/admin/reports');
    fireEvent.click(await screen.findByText('Decided'));
    const lines = await screen.findAllByTestId('report-match');
    expect(lines[1]).toHaveTextContent('bob · input j1:input:0 · exact copy of i1 · removed');
    expect(within(lines[1]).queryByRole('button')).toBeNull(); // no appeal, nothing to decide
    expect(lines[0]).toHaveTextContent('appealed: “my own face”');
    fireEvent.click(within(lines[0]).getByRole('button', { name: 'Reverse: restore' }));
    const dialog = await screen.findByRole('dialog');
    expect(dialog).toHaveTextContent('The item is put back as it was');
    fireEvent.change(within(dialog).getByLabelText('Reason'), { target: { value: 'Not the person' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Reverse: restore' }));
    await waitFor(() =>
      expect(callsTo(fetchMock, 'POST /api/admin/reports/r2/appeals/i1/decision')).toHaveLength(1),
    );
    expect(
      JSON.parse(String(callsTo(fetchMock, 'POST /api/admin/reports/r2/appeals/i1/decision')[0].body)),
    ).toEqual({ outcome: 'reversed', reason: 'Not the person' });
  });

  it('is Not Found for a user', async () => {
    rememberAccount('someone');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'someone', role: 'user' }) });
    renderApp('/admin/reports');
    expect(await screen.findByText(/not found/i)).toBeInTheDocument();
  });
});
