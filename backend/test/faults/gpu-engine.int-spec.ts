import { startFakeA1111, type FakeA1111Server } from '@studio/inference';
import { startTestApp, type TestApp } from '../test-app';
import { startToxiproxy, type ToxicProxy, type Toxiproxy } from '../toxiproxy';
import { runDrill } from './fault-drill';
import { DRILL_APP_SETTINGS, DRILL_TEST_TIMEOUT_MS, drillTarget, expectSurvived } from './survived';

// Super resolution on a remote GPU server (the A1111 fake) reached through toxiproxy, which stalls
// the line (nothing passes, connections stay open) while three users submit jobs.
describe('fault drill: a remote GPU engine', () => {
  let gpu: FakeA1111Server;
  let toxiproxy: Toxiproxy;
  let line: ToxicProxy;
  let t: TestApp;
  beforeAll(async () => {
    gpu = await startFakeA1111();
    toxiproxy = await startToxiproxy();
    line = await toxiproxy.proxy('gpu', new URL(gpu.url).host);
    t = await startTestApp({
      ...DRILL_APP_SETTINGS,
      ENGINE_SUPER_RESOLUTION: 'a1111',
      A1111_URL: `http://${line.listen}`,
      // A stalled request ends (and its job fails, refunded) within the drill.
      A1111_TIMEOUT_MS: '4000',
    });
  });
  afterAll(async () => {
    await t?.close();
    await toxiproxy?.stop();
    await gpu?.close();
  });

  it(
    'stalls past its timeout: submissions accepted, every job ends once (refunded when it failed), jobs run after',
    async () => {
      let heal: () => Promise<void> = async () => undefined;
      const report = await runDrill(
        drillTarget(t),
        {
          name: 'GPU engine stalls',
          inject: async () => void (heal = await line.add({ type: 'timeout', attributes: { timeout: 0 } })),
          restore: () => heal(),
        },
        { tool: 'superResolution' },
      );
      expectSurvived(report, 'ready');
      expect(report.during.filter((a) => a.status !== 200)).toEqual([]);
    },
    DRILL_TEST_TIMEOUT_MS,
  );
});
