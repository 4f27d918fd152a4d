import type { Socket } from 'socket.io-client';
import { JobMessages, type JobView } from '@studio/contracts';
import { startFakeA1111, type FakeA1111Server } from '@studio/inference';
import {
  balanceOf,
  connectSocket,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
  type SeenEvent,
} from '../../../test/clients';
import {
  expectFaultEnd,
  health,
  METRICS_TOKEN,
  recordJobEnds,
  scrape,
  scrapeFailures,
  submitGenerate,
} from '../../../test/job-faults';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * A remote GPU engine that fails past the box (issue 53 point 6): down (its port closed), stalled
 * (it takes requests and never answers, progress polls included), answering 5xx, or sending back
 * an image that cannot be read. Generate runs on a fake Automatic1111 speaking its HTTP API; each
 * job has JOB_ATTEMPTS (3) tries and then ends once, refunded, with a message saying which fault.
 */
describe('a remote GPU engine that fails', () => {
  let t: TestApp;
  let a1111: FakeA1111Server;
  let user: Client;
  let socket: Socket;
  let seen: SeenEvent[];

  beforeAll(async () => {
    a1111 = await startFakeA1111();
    t = await startTestApp({
      JOB_WAIT_MS: '0',
      JOB_BACKOFF_MS: '50',
      METRICS_TOKEN,
      ENGINE_GENERATE: 'a1111',
      A1111_URL: a1111.url,
      // A stall ends each try after this; wide enough for a busy machine to make the good images.
      A1111_TIMEOUT_MS: '5000',
    });
    user = await signIn(t, uniqueName('gpufault'));
    await grantCredits(t, user.username, 100);
    socket = await connectSocket(t, user.cookie);
    seen = recordJobEnds(socket);
  }, 60_000);

  beforeEach(() => a1111.reset());

  afterAll(async () => {
    socket?.close();
    await t?.close();
    await a1111?.close();
  });

  /** Runs a Generate job against the fault `arrange` sets up and checks how it ended. */
  async function faultEnds(
    message: string,
    reason: string,
    kind: string,
    arrange: () => Promise<void> | void,
  ) {
    const before = await balanceOf(user);
    const failuresBefore = await scrapeFailures(t, { tool: 'generate', reason });
    await arrange();
    const job = await submitGenerate(user);
    await expectFaultEnd({ t, user, seen, job, tool: 'generate', before, message, reason, failuresBefore });
    const report = await health(t);
    expect(report.status).toBe('degraded');
    expect(report.engines.find((e) => e.tool === 'generate')).toMatchObject({ fault: { kind } });
    expect(await scrape(t, 'studio_engine_fault', { tool: 'generate', fault: kind })).toBe(1);
  }

  it('down: the job ends once, refunded, "stopped answering"; health and metric say down', async () => {
    await faultEnds(JobMessages.engineDown, 'engine_down', 'down', () => a1111.down());
    await a1111.up();
  }, 120_000);

  it('stalled: every try ends at its timeout; the job ends once, refunded, "took too long"', async () => {
    await faultEnds(JobMessages.engineTimeout, 'engine_timeout', 'timeout', () => {
      a1111.stall = true;
    });
  }, 120_000);

  it('5xx: the job ends once, refunded, "reported an error"', async () => {
    await faultEnds(JobMessages.engineServerError, 'engine_server_error', 'server_error', () => {
      for (let i = 0; i < 3; i++) a1111.failNext(500);
    });
  }, 120_000);

  it('an unreadable image: the job ends once, refunded, "could not be read"', async () => {
    await faultEnds(JobMessages.engineBadOutput, 'engine_bad_output', 'bad_output', () => {
      a1111.garbageImages = true;
    });
  }, 120_000);

  it('the next job that succeeds clears the fault from health', async () => {
    await faultEnds(JobMessages.engineServerError, 'engine_server_error', 'server_error', () => {
      for (let i = 0; i < 3; i++) a1111.failNext(502, 'html');
    });
    const job = await submitGenerate(user);
    await eventually(async () => {
      const view = (await user.agent.get(`/api/jobs/${job._id}`)).body.content as JobView;
      expect({ state: view.state, error: view.error }).toEqual({ state: 'succeeded' });
    });
    const report = await health(t);
    expect(report.engines.find((e) => e.tool === 'generate')?.fault).toBeUndefined();
    expect(await scrape(t, 'studio_engine_fault', { tool: 'generate' })).toBe(0);
  }, 120_000);
});
