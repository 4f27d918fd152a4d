import Bull, { type Job, type Queue } from 'bull';
import { randomBytes } from 'node:crypto';
import { eventually } from '../../../test/clients';
import { fairShareTag } from './fair-share';

interface Run {
  name: string;
  /** Ends the run: with an error, Bull retries it after its back-off. */
  end(error?: Error): void;
}

/** A worker the test drives, one job at a time: each run waits until the test ends it. */
function drivenWorker(queue: Queue) {
  const runs: Run[] = [];
  void queue.process(
    1,
    (job: Job<{ name: string }>) =>
      new Promise<void>((resolve, reject) => {
        runs.push({ name: job.data.name, end: (error) => (error ? reject(error) : resolve()) });
      }),
  );
  return {
    /** The n-th run (1-based), once it has started. */
    run: (n: number) =>
      eventually(async () => {
        expect(runs.length).toBeGreaterThanOrEqual(n);
        return runs[n - 1];
      }),
    served: () => runs.map((run) => run.name),
  };
}

/**
 * Fair share in Bull's own terms (real Redis): a job's round is its Bull priority, and it must stay
 * its place through what Bull does to jobs after they started.
 */
describe('fair share across retries and stalled jobs (real Bull queues on Redis)', () => {
  const queues: Queue[] = [];
  const prefix = `t_${randomBytes(4).toString('hex')}`;
  const open = (name: string, settings: Bull.AdvancedSettings = {}) => {
    const queue = new Bull(name, process.env.TEST_REDIS_URL!, { prefix, settings });
    queues.push(queue);
    return queue;
  };
  const add = async (queue: Queue, owner: string, name: string) =>
    queue.add(
      { name },
      {
        jobId: name,
        priority: await fairShareTag(queue, owner, name),
        attempts: 2,
        backoff: { type: 'fixed', delay: 50 },
      },
    );
  const waitingIds = async (queue: Queue) => (await queue.getWaiting()).map((job) => String(job.id));

  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.close()));
  });

  it('a retried job comes back in its round, ahead of the later rounds', async () => {
    const queue = open('retry');
    for (const name of ['a1', 'a2', 'a3', 'a4']) await add(queue, 'alice', name);
    const worker = drivenWorker(queue);
    const first = await worker.run(1);
    expect(first.name).toBe('a1');
    await add(queue, 'bob', 'b1'); // joins the round being served: next
    first.end(new Error('a transient failure'));
    const second = await worker.run(2);
    expect(second.name).toBe('b1');
    // a1's back-off ends while b1 runs: it is back in the line before b1 ends.
    await eventually(async () => expect(await waitingIds(queue)).toContain('a1'));
    second.end();
    for (let n = 3; n <= 6; n++) (await worker.run(n)).end();
    expect(worker.served()).toEqual(['a1', 'b1', 'a1', 'a2', 'a3', 'a4']);
  }, 30_000);

  it('a user whose earlier jobs have all finished joins the round being served', async () => {
    const queue = open('returning');
    const worker = drivenWorker(queue);
    await add(queue, 'bob', 'b0');
    (await worker.run(1)).end();
    await eventually(async () => expect(await queue.getCompletedCount()).toBe(1));
    for (const name of ['a1', 'a2', 'a3', 'a4']) await add(queue, 'alice', name);
    const running = await worker.run(2);
    await add(queue, 'bob', 'b1'); // bob was served before, but has nothing open: next after a1
    running.end();
    for (let n = 3; n <= 6; n++) (await worker.run(n)).end();
    expect(worker.served()).toEqual(['b0', 'a1', 'b1', 'a2', 'a3', 'a4']);
  }, 30_000);

  it('a stalled job (its worker died) goes back to the head of the line; the others keep their rounds', async () => {
    const settings = { lockDuration: 1000, stalledInterval: 250 };
    const live = open('stalled', settings);
    for (const name of ['a1', 'a2', 'a3']) await add(live, 'alice', name);
    // A worker takes a1 and dies with it: its lock is never renewed.
    const dead = open('stalled', settings);
    expect((await dead.getNextJob())?.id).toBe('a1');
    await add(live, 'bob', 'b1');
    const worker = drivenWorker(live);
    const first = await worker.run(1);
    expect(first.name).toBe('b1');
    // The live worker's stalled check puts a1 back once its lock has run out.
    await eventually(async () => expect(await waitingIds(live)).toContain('a1'));
    first.end();
    for (let n = 2; n <= 4; n++) (await worker.run(n)).end();
    expect(worker.served()).toEqual(['b1', 'a1', 'a2', 'a3']);
  }, 30_000);
});
