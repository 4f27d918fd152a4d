import type { ChildProcess } from 'node:child_process';
import { exited, startWorker } from '../processes';
import { startTestApp, type TestApp } from '../test-app';
import { runDrill } from './fault-drill';
import { DRILL_APP_SETTINGS, DRILL_TEST_TIMEOUT_MS, drillTarget, expectSurvived } from './survived';

// The API takes the requests (in the test's process); the jobs run in a worker process of its own
// (the real worker entry point), which is killed (SIGKILL) and replaced while three users submit clones.
describe('fault drill: the worker', () => {
  let t: TestApp;
  const workers: ChildProcess[] = [];
  beforeAll(async () => {
    // A short job lock: a job the killed worker held is taken over soon after its replacement starts.
    t = await startTestApp({ ...DRILL_APP_SETTINGS, WORKER_INLINE: 'false', JOB_LOCK_MS: '10000' });
    workers.push(startWorker(t));
  });
  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await Promise.all(workers.map(exited));
    await t?.close();
  });

  it(
    'killed and replaced: submissions accepted meanwhile, every job ends once, every credit accounted for',
    async () => {
      const report = await runDrill(drillTarget(t), {
        name: 'worker killed',
        inject: async () => {
          const worker = workers.at(-1)!;
          worker.kill('SIGKILL');
          await exited(worker);
        },
        restore: async () => void workers.push(startWorker(t)),
      });
      // The API needs no worker to take submissions: it stays ready and accepts them.
      expectSurvived(report, 'ready');
      expect(report.during.filter((a) => a.status !== 200)).toEqual([]);
    },
    DRILL_TEST_TIMEOUT_MS,
  );
});
