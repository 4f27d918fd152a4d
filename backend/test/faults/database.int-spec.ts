import { startPrivateFerretDb, type PrivateService } from '../private-services';
import { startTestApp, type TestApp } from '../test-app';
import { startToxiproxy, type ToxicProxy, type Toxiproxy } from '../toxiproxy';
import { runDrill } from './fault-drill';
import { DRILL_APP_SETTINGS, DRILL_TEST_TIMEOUT_MS, drillTarget, expectSurvived } from './survived';

// The database really killed (SIGKILL, a FerretDB of the test's own), and, through toxiproxy,
// connections that hang or are reset, while three users submit clones.
describe('fault drill: the database', () => {
  describe('killed', () => {
    let db: PrivateService;
    let t: TestApp;
    beforeAll(async () => {
      db = await startPrivateFerretDb();
      t = await startTestApp({ ...DRILL_APP_SETTINGS, MONGODB_URI: `${db.url}/drill` });
    });
    afterAll(async () => {
      await t?.close();
      await db?.stop();
    });

    it(
      'and started again: truthful answers meanwhile, jobs after, every credit accounted for',
      async () => {
        const report = await runDrill(drillTarget(t), {
          name: 'database killed',
          inject: () => db.kill(),
          restore: () => db.restart(),
        });
        expectSurvived(report, 'not_ready');
      },
      DRILL_TEST_TIMEOUT_MS,
    );
  });

  describe('behind toxiproxy', () => {
    let toxiproxy: Toxiproxy;
    let line: ToxicProxy;
    let t: TestApp;
    beforeAll(async () => {
      toxiproxy = await startToxiproxy();
      line = await toxiproxy.proxy('database', new URL(process.env.TEST_MONGODB_URL!).host);
      t = await startTestApp({
        ...DRILL_APP_SETTINGS,
        MONGODB_URI: `mongodb://${line.listen}/drill_${Date.now()}`,
      });
    });
    afterAll(async () => {
      await t?.close();
      await toxiproxy?.stop();
    });

    it(
      'hangs (nothing passes, connections stay open): truthful answers meanwhile, every credit accounted for',
      async () => {
        let heal: () => Promise<void> = async () => undefined;
        const report = await runDrill(drillTarget(t), {
          name: 'database hangs',
          inject: async () => void (heal = await line.add({ type: 'timeout', attributes: { timeout: 0 } })),
          restore: () => heal(),
        });
        expectSurvived(report, 'not_ready');
      },
      DRILL_TEST_TIMEOUT_MS,
    );

    it(
      'resets every connection: truthful answers meanwhile, every credit accounted for',
      async () => {
        let heal: () => Promise<void> = async () => undefined;
        const report = await runDrill(drillTarget(t), {
          name: 'database resets connections',
          inject: async () =>
            void (heal = await line.add({ type: 'reset_peer', attributes: { timeout: 0 } })),
          restore: () => heal(),
        });
        expectSurvived(report, 'not_ready');
      },
      DRILL_TEST_TIMEOUT_MS,
    );
  });
});
