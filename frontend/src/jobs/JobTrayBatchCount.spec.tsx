import { JobSocketEvents, SocketEvents, type JobView } from '@studio/contracts';
import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { openSocket } from '../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer } from '../test/fetchMock';
import { jobsAnswer, jobView } from '../test/jobs';
import { rememberAccount, renderApp } from '../test/renderApp';

/** 25 single jobs, then a batch of 30, made once (the same ids on every answer). */
const singles = Array.from({ length: 25 }, () =>
  jobView({ tool: 'clone', state: 'succeeded', progress: 100 }),
);
const batch = Array.from({ length: 30 }, () =>
  jobView({ tool: 'inpaint', state: 'queued', batch: { id: 'b30', name: 'Thirty' } }),
);

/** GET /api/jobs as the server answers it: the latest 20 jobs plus every job of a batch among them. */
function jobsAfter(batchDone: number): JobView[] {
  const now = batch.map((job, i) =>
    i < batchDone ? { ...job, state: 'succeeded' as const, progress: 100 } : job,
  );
  expect(singles).toHaveLength(25); // all older than the batch: outside the window
  return [...now].reverse();
}

describe('JobTray batch count', () => {
  it('reads a batch of 30 after 25 other jobs from its jobs, also after a reconnect', async () => {
    rememberAccount('alice');
    let jobs = jobsAfter(12);
    const fetchMock = mockFetch({
      'GET /api/session': sessionAnswer({ username: 'alice', balance: 10 }),
      'GET /api/jobs': () => jobsAnswer(jobs),
    });
    renderApp('/');
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/jobs')).toHaveLength(1));
    await waitFor(() => expect(openSocket()?.listenerCount(JobSocketEvents.progress)).toBe(1));
    fireEvent.click(screen.getByTestId('job-tray-toggle'));
    const tray = screen.getByTestId('job-tray');
    expect(within(tray).getByText(/12 of 30 done/)).toBeInTheDocument();

    // The socket drops and comes back: the tray reloads and counts the same batch, now ended.
    jobs = jobsAfter(30);
    act(() => openSocket()!.serverEmit(SocketEvents.ready, { username: 'alice' }));
    await waitFor(() => expect(callsTo(fetchMock, 'GET /api/jobs')).toHaveLength(2));
    expect(await within(tray).findByText(/30 of 30 done/)).toBeInTheDocument();
  });
});
