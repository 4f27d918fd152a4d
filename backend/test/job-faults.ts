import type { Queue } from 'bull';
import type { Socket } from 'socket.io-client';
import request from 'supertest';
import {
  JobSocketEvents,
  OPEN_JOB_STATES,
  type HealthContent,
  type JobTool,
  type JobView,
} from '@studio/contracts';
import { toolQueueToken } from '../src/modules/engines';
import { parseMetrics, sampleSum } from '../src/modules/metrics/metrics-text';
import { balanceOf, eventually, ledgerKindsOf, recordEvents, type Client, type SeenEvent } from './clients';
import type { TestApp } from './test-app';

/**
 * What every fault past the box must come to (issue 53 point 6), seen from outside: the job ends
 * once, refunded exactly, the user told why in plain words, /api/health and /metrics showing the
 * fault, and nothing left running.
 */
export const METRICS_TOKEN = 'metrics-token-for-fault-tests-01';

/** Every job end the owner's socket receives. */
export const recordJobEnds = (socket: Socket): SeenEvent[] =>
  recordEvents(socket, [JobSocketEvents.completed, JobSocketEvents.failed, JobSocketEvents.cancelled]);

/** The sum of a metric's samples with these labels, as /metrics shows it now. */
export async function scrape(t: TestApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const res = await request(t.url).get('/metrics').set('Authorization', `Bearer ${METRICS_TOKEN}`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return sampleSum(parseMetrics(res.text), name, labels);
}

export const scrapeFailures = (t: TestApp, labels: Record<string, string>) =>
  scrape(t, 'studio_job_failures_total', labels);

export async function health(t: TestApp): Promise<HealthContent> {
  const res = await request(t.url).get('/api/health');
  if (res.status !== 200) throw new Error(`/api/health answered ${res.status}`);
  return res.body.content as HealthContent;
}

/** A Generate job through the API, answered at once (JOB_WAIT_MS 0). */
export async function submitGenerate(user: Client): Promise<JobView> {
  const res = await user.agent
    .post('/api/generateImage')
    .send({ title: 'fault', prompt: 'a lighthouse at dusk', author: user.username });
  if (res.status !== 200)
    throw new Error(`generateImage answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.content.job as JobView;
}

export interface FaultEnd {
  t: TestApp;
  user: Client;
  seen: SeenEvent[];
  job: JobView;
  tool: JobTool;
  /** The balance before the job was submitted. */
  before: number;
  message: string;
  /** studio_job_failures_total's reason for it. */
  reason: string;
  /** The counter's value before the job. */
  failuresBefore: number;
}

/**
 * Waits for the job's end and checks it: failed with `message`, one end event (no other end),
 * balance back to `before` with one reservation and one refund, the metric up by one, and no
 * job of the tool left waiting, active or delayed in its queue.
 */
export async function expectFaultEnd(f: FaultEnd): Promise<JobView> {
  const { t, user, seen, job, tool, before, message, reason } = f;
  const ended = await eventually(async () => {
    const view = (await user.agent.get(`/api/jobs/${job._id}`)).body.content as JobView;
    if (OPEN_JOB_STATES.includes(view.state)) throw new Error(`job ${job._id} is still ${view.state}`);
    return view;
  }, 120_000);
  expect(ended).toMatchObject({ state: 'failed', error: message });
  const ends = () => seen.filter((e) => (e.payload.job as JobView | undefined)?._id === job._id);
  await eventually(async () => expect(ends()).toHaveLength(1));
  expect(ends()[0]).toMatchObject({ name: JobSocketEvents.failed, payload: { message, refunded: job.cost } });
  expect(await balanceOf(user)).toBe(before);
  expect(await ledgerKindsOf(user, job._id)).toEqual(['refund', 'reservation']);
  await eventually(async () => expect(await scrapeFailures(t, { tool, reason })).toBe(f.failuresBefore + 1));
  const queue = t.app.get<Queue>(toolQueueToken(tool), { strict: false });
  await eventually(async () =>
    expect(await queue.getJobCounts()).toMatchObject({ waiting: 0, active: 0, delayed: 0 }),
  );
  // Still one end after the queue has settled: no retry ended it a second time.
  expect(ends()).toHaveLength(1);
  expect(await balanceOf(user)).toBe(before);
  return ended;
}
