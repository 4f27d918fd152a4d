import { JobMessages, JobSocketEvents } from '@studio/contracts';
import { act, render, screen, waitFor } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { AppProviders } from '../AppProviders';
import { openSocket } from '../test/fakeSocket';
import { callsTo, mockFetch, sessionAnswer } from '../test/fetchMock';
import { jobsAnswer, jobView, pushJobEvent } from '../test/jobs';
import { rememberAccount } from '../test/renderApp';
import { useJobs, type JobsValue } from './useJobs';

let jobs: JobsValue;
function Probe() {
  jobs = useJobs();
  return null;
}

async function mounted() {
  rememberAccount('alice');
  const fetchMock = mockFetch({
    'GET /api/session': sessionAnswer({ username: 'alice', balance: 10 }),
    'GET /api/jobs': jobsAnswer([]),
  });
  render(
    <MemoryRouter>
      <AppProviders>
        <Probe />
      </AppProviders>
    </MemoryRouter>,
  );
  await waitFor(() => expect(callsTo(fetchMock, 'GET /api/jobs')).toHaveLength(1));
  await waitFor(() => expect(openSocket()?.listenerCount(JobSocketEvents.failed)).toBe(1));
}

const notices = () => Array.from(document.querySelectorAll('.ant-notification-notice'));

describe('one toast per job outcome', () => {
  it('replaces "in progress" by the failure of the same job', async () => {
    await mounted();
    const job = jobView({ tool: 'faceSwap', state: 'queued' });
    act(() => jobs.track(job, JobMessages.swapInProgress));
    expect(await screen.findByText(JobMessages.swapInProgress)).toBeInTheDocument();

    pushJobEvent(JobSocketEvents.failed, {
      job: { ...job, state: 'failed', error: 'No face found in the face image' },
      message: 'No face found in the face image',
      refunded: 1,
    });
    expect(await screen.findByText('No face found in the face image')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText(JobMessages.swapInProgress)).not.toBeInTheDocument());
    expect(notices()).toHaveLength(1);
  });

  it('says nothing of "in progress" when the failure was pushed before the answer', async () => {
    await mounted();
    const job = jobView({ tool: 'faceSwap', state: 'queued' });
    pushJobEvent(JobSocketEvents.failed, {
      job: { ...job, state: 'failed', error: 'No face found' },
      message: 'No face found',
      refunded: 1,
    });
    expect(await screen.findByText('No face found')).toBeInTheDocument();
    act(() => jobs.track(job, JobMessages.swapInProgress));
    expect(screen.queryByText(JobMessages.swapInProgress)).not.toBeInTheDocument();
    expect(notices()).toHaveLength(1);
  });

  it('places toasts at the bottom, away from the header, tabs and price', async () => {
    await mounted();
    act(() => jobs.track(jobView({ tool: 'clone', state: 'queued' }), 'Started'));
    await screen.findByText('Started');
    expect(document.querySelector('.ant-notification-bottomLeft')).not.toBeNull();
    expect(document.querySelector('.ant-notification-topRight')).toBeNull();
  });
});
