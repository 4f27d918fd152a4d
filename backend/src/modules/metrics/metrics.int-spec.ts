import request from 'supertest';
import { JobTools, type JobTool, type JobView } from '@studio/contracts';
import {
  connectSocket,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { jobEnd, ScriptedEngine, submitToolJob } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import type { AuthUser } from '../auth/auth-user';
import { EngineRegistry } from '../engines';
import { JobControlService } from '../generation/job-control.service';
import { parseMetrics, sampleSum, type Samples } from './metrics-text';

const TOKEN = 'metrics-token-for-tests-0123';

describe('Prometheus metrics (GET /metrics)', () => {
  let t: TestApp;
  let client: Client;
  let user: AuthUser;
  const engine = new ScriptedEngine();

  const scrape = async (): Promise<Samples> => {
    const res = await request(t.url).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return parseMetrics(res.text);
  };

  /** The engine label: the configured kind (the test's engine stands in for it). */
  const kind = (tool: JobTool) => t.app.get(EngineRegistry).kindFor(tool);

  const submit = (tool: JobTool) => submitToolJob(t, user, tool);
  const endOf = (jobId: string) => jobEnd(t, user, jobId);

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
    for (const tool of JobTools) t.app.get(EngineRegistry).override(tool, engine);
    client = await signIn(t, uniqueName('metered'));
    const id = await grantCredits(t, client.username, 500);
    user = { id, username: client.username, role: 'user' };
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  it('refuses /metrics without the token, or with another one', async () => {
    const none = await request(t.url).get('/metrics');
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(none.text).not.toMatch(/studio_/);
    const wrong = await request(t.url).get('/metrics').set('Authorization', `Bearer ${TOKEN}x`);
    expect(wrong.status).toBe(401);
    // A session is no key either.
    expect((await client.agent.get('/metrics')).status).toBe(401);
  });

  it('moves the job and credit counters by exactly one job of each tool', async () => {
    const before = await scrape();
    const jobs: JobView[] = [];
    for (const tool of JobTools) jobs.push(await submit(tool));
    for (const job of jobs) expect((await endOf(job._id)).state).toBe('succeeded');
    const cost = jobs.reduce((sum, job) => sum + job.cost, 0);
    expect(cost).toBeGreaterThan(0);

    const delta = (after: Samples, name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);
    // The domain events are consumed after the job ends: wait for the last one counted.
    const after = await eventually(async () => {
      const now = await scrape();
      expect(delta(now, 'studio_credits_total', { movement: 'charged' })).toBe(cost);
      expect(delta(now, 'studio_jobs_total')).toBe(JobTools.length);
      return now;
    });
    for (const tool of JobTools) {
      const labels = { tool, engine: kind(tool) };
      expect(delta(after, 'studio_jobs_total', { ...labels, state: 'succeeded' })).toBe(1);
      expect(delta(after, 'studio_job_starts_total', labels)).toBe(1);
      expect(delta(after, 'studio_job_wait_seconds_count', labels)).toBe(1);
      expect(delta(after, 'studio_job_run_seconds_count', { ...labels, state: 'succeeded' })).toBe(1);
      expect(delta(after, 'studio_job_failures_total', labels)).toBe(0);
    }
    expect(delta(after, 'studio_credit_entries_total', { movement: 'charged' })).toBe(JobTools.length);
    expect(delta(after, 'studio_credits_total', { movement: 'reservation' })).toBe(cost);
    expect(delta(after, 'studio_credits_total', { movement: 'refund' })).toBe(0);
    // Queues are drained; the engine ran nothing on the local pool.
    for (const tool of JobTools) {
      expect(sampleSum(after, 'studio_queue_jobs', { tool, state: 'waiting' })).toBe(0);
      expect(sampleSum(after, 'studio_queue_jobs', { tool, state: 'active' })).toBe(0);
    }
    // The pipeline's database and Redis commands were timed.
    expect(delta(after, 'studio_db_operation_duration_seconds_count', { command: 'insert' })).toBeGreaterThan(
      0,
    );
    expect(
      delta(after, 'studio_db_operation_duration_seconds_count', { command: 'findAndModify' }),
    ).toBeGreaterThan(0);
    expect(delta(after, 'studio_redis_operation_duration_seconds_count')).toBeGreaterThan(0);
  }, 90_000);

  it('counts a failure by its reason with its refund, a retry, and a cancel', async () => {
    const before = await scrape();
    const delta = (after: Samples, name: string, labels: Record<string, string> = {}) =>
      sampleSum(after, name, labels) - sampleSum(before, name, labels);

    engine.next = 'input-error';
    const failed = await endOf((await submit('faceSwap'))._id);
    expect(failed.state).toBe('failed');

    engine.next = 'transient-once';
    const retried = await endOf((await submit('superResolution'))._id);
    expect(retried.state).toBe('succeeded');

    engine.next = 'hold';
    const held = await submit('inpaint');
    await eventually(async () => expect(engine.holding.size).toBe(1));
    const cancelled = await t.app.get(JobControlService).cancel(user, held._id);
    expect(cancelled.cancelled).toBe(1);
    engine.next = 'ok';

    const after = await eventually(async () => {
      const now = await scrape();
      expect(delta(now, 'studio_jobs_total')).toBe(3);
      expect(delta(now, 'studio_credits_total', { movement: 'refund' })).toBe(failed.cost + held.cost);
      return now;
    });
    const fs = { tool: 'faceSwap', engine: kind('faceSwap') };
    expect(delta(after, 'studio_job_failures_total', { ...fs, reason: 'input' })).toBe(1);
    expect(delta(after, 'studio_jobs_total', { ...fs, state: 'failed' })).toBe(1);
    const sr = { tool: 'superResolution', engine: kind('superResolution') };
    expect(delta(after, 'studio_job_retries_total', sr)).toBe(1);
    expect(delta(after, 'studio_job_starts_total', sr)).toBe(2);
    expect(delta(after, 'studio_job_wait_seconds_count', sr)).toBe(1); // the first start only
    expect(delta(after, 'studio_jobs_total', { ...sr, state: 'succeeded' })).toBe(1);
    expect(delta(after, 'studio_job_cancels_total', { tool: 'inpaint', by: 'owner' })).toBe(1);
    expect(
      delta(after, 'studio_jobs_total', { tool: 'inpaint', engine: kind('inpaint'), state: 'cancelled' }),
    ).toBe(1);
    expect(delta(after, 'studio_credit_entries_total', { movement: 'refund' })).toBe(2);
    expect(delta(after, 'studio_credits_total', { movement: 'charged' })).toBe(retried.cost);
  }, 90_000);

  it('times requests by route template, never by the raw path', async () => {
    const before = await scrape();
    const unknown = '0123456789abcdef01234567';
    expect((await client.agent.get(`/api/jobs/${unknown}`)).status).toBe(404);
    expect((await client.agent.get('/api/jobs')).status).toBe(200);
    const after = await scrape();
    const count = (samples: Samples, labels: Record<string, string>) =>
      sampleSum(samples, 'studio_http_request_duration_seconds_count', labels);
    const one = { method: 'GET', route: '/api/jobs/:id', status: '404' };
    expect(count(after, one) - count(before, one)).toBe(1);
    const list = { method: 'GET', route: '/api/jobs', status: '200' };
    expect(count(after, list) - count(before, list)).toBe(1);
    expect(Object.keys(after).some((key) => key.includes(unknown))).toBe(false);
  });

  it('reports sockets, the event loop, the engines and the process', async () => {
    const socket = await connectSocket(t, client.cookie);
    try {
      const now = await scrape();
      expect(sampleSum(now, 'studio_sockets_connected')).toBe(1);
      expect(sampleSum(now, 'nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0);
      expect(sampleSum(now, 'studio_engine_up', { tool: 'clone', engine: kind('clone') })).toBe(1);
      expect(sampleSum(now, 'studio_engine_pool_size')).toBeGreaterThan(0);
      expect(Object.keys(now).some((key) => key.startsWith('process_cpu_seconds_total{'))).toBe(true);
    } finally {
      socket.close();
    }
  });
});

describe('GET /metrics without METRICS_TOKEN configured', () => {
  it('is not there at all (404), whatever is sent', async () => {
    const t = await startTestApp();
    try {
      expect((await request(t.url).get('/metrics')).status).toBe(404);
      const guessed = await request(t.url).get('/metrics').set('Authorization', 'Bearer undefined');
      expect(guessed.status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
