import { WEBHOOK_RETRY, webhookNextAttemptAt, webhookRetryDelay, webhookRetrySchedule } from './webhooks';

const HOUR = 3600_000;

describe('the webhook retry schedule', () => {
  it('waits 5 s, then four times longer each time, and makes its last attempt when the 24 hours end', () => {
    const schedule = webhookRetrySchedule();
    expect(schedule.slice(0, 4)).toEqual([5_000, 25_000, 105_000, 425_000]);
    expect(schedule.at(-1)).toBe(24 * HOUR);
    expect(schedule).toHaveLength(10);
    // Growing gaps (exponential), none over a quarter of the window.
    const gaps = schedule.map((at, i) => at - (schedule[i - 1] ?? 0));
    for (let i = 1; i < gaps.length - 1; i++) expect(gaps[i]).toBeGreaterThanOrEqual(gaps[i - 1]);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(6 * HOUR);
    expect(schedule.every((at, i) => i === 0 || at > schedule[i - 1])).toBe(true);
  });

  it('gives up after the last attempt of the window', () => {
    const schedule = webhookRetrySchedule();
    expect(webhookNextAttemptAt(1)).toBe(5_000);
    expect(webhookNextAttemptAt(schedule.length)).toBe(24 * HOUR);
    expect(webhookNextAttemptAt(schedule.length + 1)).toBeNull();
  });

  it('scales with shortened settings (the tests), and stays finite for any settings', () => {
    expect(webhookRetrySchedule({ firstDelayMs: 50, windowMs: 1_000 })).toEqual([50, 250, 500, 750, 1_000]);
    expect(webhookRetrySchedule({ firstDelayMs: 5_000, windowMs: 1_000 })).toEqual([250, 500, 750, 1_000]);
    expect(webhookRetrySchedule({ firstDelayMs: 1, windowMs: 10 * 24 * HOUR }).length).toBeLessThan(60);
    expect(webhookRetryDelay(1)).toBe(WEBHOOK_RETRY.firstDelayMs);
    expect(webhookRetryDelay(2)).toBe(WEBHOOK_RETRY.firstDelayMs * WEBHOOK_RETRY.factor);
  });
});
