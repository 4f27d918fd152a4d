import { isFinal, JOB_TRANSITIONS, statesBefore } from './job-state';

describe('job state machine', () => {
  it('ends in succeeded, failed or cancelled, from which nothing moves', () => {
    expect(isFinal('succeeded')).toBe(true);
    expect(isFinal('failed')).toBe(true);
    expect(isFinal('cancelled')).toBe(true);
    expect(isFinal('queued')).toBe(false);
    expect(isFinal('running')).toBe(false);
    expect(statesBefore('queued')).toEqual([]);
  });

  it('moves to running or to an end only from a state that has not ended', () => {
    for (const to of ['running', 'succeeded', 'failed', 'cancelled'] as const) {
      expect(statesBefore(to).sort()).toEqual(['queued', 'running']);
    }
    expect(JOB_TRANSITIONS.running).toContain('running'); // a rerun takes a job over
  });
});
