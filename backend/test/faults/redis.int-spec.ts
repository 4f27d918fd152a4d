import { startPrivateRedis, type PrivateService } from '../private-services';
import { startTestApp, type TestApp } from '../test-app';
import { runDrill } from './fault-drill';
import { DRILL_APP_SETTINGS, DRILL_TEST_TIMEOUT_MS, drillTarget, expectSurvived } from './survived';

// Redis of the test's own, really killed (SIGKILL) or frozen (SIGSTOP) while three users submit clones.
describe('fault drill: Redis', () => {
  let redis: PrivateService;
  let t: TestApp;

  beforeAll(async () => {
    redis = await startPrivateRedis();
    t = await startTestApp({ ...DRILL_APP_SETTINGS, REDIS_URL: redis.url });
  });
  afterAll(async () => {
    redis?.thaw();
    await t?.close();
    await redis?.stop();
  });

  it(
    'killed and started again: truthful answers meanwhile, jobs after, every credit accounted for',
    async () => {
      const report = await runDrill(drillTarget(t), {
        name: 'Redis killed',
        inject: () => redis.kill(),
        restore: () => redis.restart(),
      });
      expectSurvived(report, 'not_ready');
    },
    DRILL_TEST_TIMEOUT_MS,
  );

  it(
    'frozen and thawed: truthful answers meanwhile, jobs after, every credit accounted for',
    async () => {
      // A frozen Redis held the old answers until the thaw: a 20 s freeze tells that apart from a
      // fail-fast answer slowed by a busy CI machine (up to 6 s seen at load 13) with room to spare.
      const report = await runDrill(
        drillTarget(t),
        {
          name: 'Redis frozen',
          inject: async () => redis.freeze(),
          restore: async () => redis.thaw(),
        },
        { faultMs: 20_000, answerTimeoutMs: 12_000 },
      );
      expectSurvived(report, 'not_ready');
    },
    DRILL_TEST_TIMEOUT_MS,
  );
});
