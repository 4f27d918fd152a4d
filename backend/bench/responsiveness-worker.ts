/**
 * The worker process of the responsiveness bench's split run: the job processors and the engine
 * pool as `npm start` runs them (backend/worker), booted here so that the bench can see inside:
 * it reports the wall-clock time of each progress push as the job runner hands it to the gateway,
 * and whether every pool thread is busy, over the IPC channel of its parent (the bench).
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { performance } from 'node:perf_hooks';
import { PooledCpuEngine } from '@studio/inference';
import { WorkerAppModule } from '../worker/src/worker-app.module';
import { loadConfig } from '../src/config/app-config';
import { EngineRegistry } from '../src/modules/engines';
import { JobLifecycle } from '../src/modules/generation/job-lifecycle.service';

type Command = 'timing-on' | 'timing-off' | 'saturation' | 'stop';

async function main(): Promise<void> {
  const send = (message: object) => process.send!(message);
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(loadConfig(process.env)), {
    logger: ['error', 'warn'],
  });
  const pool = app.get(EngineRegistry).engineFor('superResolution');
  if (!(pool instanceof PooledCpuEngine)) throw new Error('super resolution is not on the local engine pool');
  await pool.warmup();

  const lifecycle = app.get(JobLifecycle);
  const push = lifecycle.pushProgress.bind(lifecycle);
  let timing = false;
  lifecycle.pushProgress = (job, progress) => {
    if (timing)
      send({ emitted: `${String(job._id)}:${progress}`, at: performance.timeOrigin + performance.now() });
    push(job, progress);
  };
  process.on('message', (command: Command) => {
    if (command === 'timing-on') timing = true;
    else if (command === 'timing-off') timing = false;
    else if (command === 'saturation') send({ saturated: pool.stats().tasks >= pool.size });
    else if (command === 'stop') void app.close().then(() => process.exit(0));
  });
  send({ ready: true, size: pool.size, threads: pool.threads, memoryMb: pool.memoryMb });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
