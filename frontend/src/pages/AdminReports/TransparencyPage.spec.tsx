import type { TransparencyReport } from '@studio/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { callsTo, mockFetch, sessionAnswer, type FakeAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';

const figures: TransparencyReport = {
  from: '2026-07-01T00:00:00.000Z',
  to: '2027-01-01T00:00:00.000Z',
  received: 12,
  removed: 7,
  rejected: 4,
  itemsRemoved: 15,
  appealed: 3,
  appealsUpheld: 2,
  appealsReversed: 1,
  medianHoursToDecision: 5.5,
  p95HoursToDecision: 30.25,
  decidedWithin48h: 0.909,
  openAtEnd: 1,
};
const ok = (content: unknown): FakeAnswer => ({ status: 200, body: { message: 'success', content } });
const query = '/api/admin/reports/transparency?from=2026-07-01&to=2027-01-01';

describe('transparency report page', () => {
  it('shows the figures of the chosen period and links their CSV', async () => {
    rememberAccount('staff');
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'staff', role: 'support' }),
      [`GET ${query}`]: ok({ transparency: figures }),
    });
    renderApp('/admin/transparency');
    fireEvent.change(await screen.findByLabelText('From'), { target: { value: '2026-07-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2027-01-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show' }));
    await waitFor(() => expect(callsTo(fetchMock, `GET ${query}`)).toHaveLength(1));
    const table = await screen.findByTestId('transparency-figures');
    for (const text of [
      'Notices received12',
      'Appeals reversed (item restored)1',
      'Median time to decision5.5 h',
    ])
      expect(table).toHaveTextContent(text);
    expect(table).toHaveTextContent('95th percentile time to decision30.25 h');
    expect(table).toHaveTextContent('Decided within 48 hours90.9 %');
    expect(screen.getByTestId('transparency-csv')).toHaveAttribute(
      'href',
      '/api/admin/reports/transparency.csv?from=2026-07-01&to=2027-01-01',
    );
  });

  it('shows the server’s refusal of a bad period', async () => {
    rememberAccount('staff');
    mockFetch({
      'GET /api/session': sessionAnswer({ username: 'staff', role: 'support' }),
      'GET /api/admin/reports/transparency?from=2027-01-01&to=2026-07-01': {
        status: 400,
        body: { message: 'error', content: 'Give the period as two dates, from before to' },
      },
    });
    renderApp('/admin/transparency');
    fireEvent.change(await screen.findByLabelText('From'), { target: { value: '2027-01-01' } });
    fireEvent.change(screen.getByLabelText('To'), { target: { value: '2026-07-01' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show' }));
    await waitFor(() =>
      expect(screen.getByTestId('transparency-error')).toHaveTextContent('Give the period as two dates'),
    );
    expect(screen.queryByTestId('transparency-figures')).toBeNull();
  });
});
