import { ReportMessages } from '@studio/contracts';
import { fireEvent, screen, waitFor } from '@testing-library/react';
import { callsTo, mockFetch, sentForm, sessionAnswer } from '../../test/fetchMock';
import { rememberAccount, renderApp } from '../../test/renderApp';
import { receiptText } from './ReportPage';

const receipt = {
  status: 201,
  body: {
    message: 'success',
    content: {
      report: {
        id: 'r1',
        receivedAt: '2026-11-28T10:00:00.000Z',
        deadline: '2026-11-30T10:00:00.000Z',
        receiptMailed: true,
      },
    },
  },
};

const fill = (label: RegExp, value: string) =>
  fireEvent.change(screen.getByLabelText(label), { target: { value } });

describe('public report page', () => {
  it('is linked from the footer, needs no login, and sends what a valid notice needs', async () => {
    const fetchMock = mockFetch({ 'POST /api/reports': receipt });
    const app = renderApp('/');
    fireEvent.click(await screen.findByRole('link', { name: 'Report content' }));
    await waitFor(() => expect(app.pathname()).toBe('/report'));
    await screen.findByRole('heading', { name: /Report content/ });

    fill(/Where it appears/, 'https://elsewhere.example/post/1');
    fill(/Why it shows/, 'This is me, shared without my consent');
    fill(/Your name/, 'Jane Doe');
    fill(/Your email/, 'jane@example.com');
    fill(/Signature/, 'Jane Doe');
    fireEvent.click(screen.getByRole('button', { name: 'Send report' }));
    // The good-faith statement is required before anything is sent.
    expect(await screen.findByText(ReportMessages.goodFaithRequired)).toBeInTheDocument();
    expect(callsTo(fetchMock, 'POST /api/reports')).toHaveLength(0);

    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Send report' }));
    expect(await screen.findByTestId('report-receipt')).toHaveTextContent('Reference r1');
    expect(screen.getByTestId('report-receipt')).toHaveTextContent('a receipt is on its way to you');
    const form = sentForm(callsTo(fetchMock, 'POST /api/reports')[0]);
    expect(Object.fromEntries(form.entries())).toEqual({
      category: 'intimate_without_consent',
      reporterRole: 'depicted',
      url: 'https://elsewhere.example/post/1',
      name: 'Jane Doe',
      email: 'jane@example.com',
      explanation: 'This is me, shared without my consent',
      signature: 'Jane Doe',
      goodFaith: 'true',
    });
  });

  it('says so when the server mailed no receipt (the address had its few receipts today), or the notice is anonymous', () => {
    const answer = { ...receipt.body.content.report, receiptMailed: false };
    expect(receiptText(answer, true)).toContain(ReportMessages.receiptNotMailed);
    expect(receiptText(answer, true)).not.toContain('on its way');
    expect(receiptText(answer, false)).toContain(ReportMessages.receiptAnonymous);
    expect(receiptText({ ...answer, receiptMailed: true }, true)).toContain('a receipt is on its way to you');
  });

  it("shows the server's reason for a refused report", async () => {
    mockFetch({
      'POST /api/reports': { status: 400, body: { message: 'error', content: ReportMessages.badUrl } },
    });
    renderApp('/report');
    await screen.findByRole('heading', { name: /Report content/ });
    fill(/Where it appears/, 'https://elsewhere.example/x');
    fill(/Why it shows/, 'why');
    fill(/Your name/, 'J');
    fill(/Your email/, 'j@example.com');
    fill(/Signature/, 'J');
    fireEvent.click(screen.getByRole('checkbox'));
    fireEvent.click(screen.getByRole('button', { name: 'Send report' }));
    expect(await screen.findByTestId('report-error')).toHaveTextContent(ReportMessages.badUrl);
  });
});

describe('appeal page', () => {
  it('asks a visitor to log in first', async () => {
    mockFetch({});
    renderApp('/appeal?item=i1');
    await screen.findByRole('heading', { name: 'Appeal a removal' });
    expect(screen.getByRole('link', { name: 'Log in' })).toBeInTheDocument();
  });

  it('does not tell a logged-in owner to log in first', async () => {
    rememberAccount('bob');
    mockFetch({ 'GET /api/session': sessionAnswer({ username: 'bob' }) });
    renderApp('/appeal?item=i1');
    await screen.findByRole('heading', { name: 'Appeal a removal' });
    expect(screen.queryByRole('link', { name: 'Log in' })).not.toBeInTheDocument();
  });
});
