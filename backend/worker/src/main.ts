import 'reflect-metadata';
import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { bootConfig } from '../../src/boot';
import { waitForServices } from '../../src/infrastructure/wait-for-services';
import { exitAfterShutdownDeadline, shutdownDeadlineMs } from '../../src/shutdown';
import { WorkerAppModule } from './worker-app.module';

/** The worker on its own: no HTTP, only queue processors. */
async function bootstrap(): Promise<void> {
  const config = await bootConfig();
  await waitForServices(config, (message) => process.stderr.write(`${message}\n`));
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), {
    bufferLogs: true,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  app.enableShutdownHooks();
  exitAfterShutdownDeadline(shutdownDeadlineMs(config, true), (message) => logger.error(message));
  logger.log('worker started');
  stepAside(config.WORKER_NICE, logger);
}

/**
 * Lowers the process's priority once booted. setpriority applies to one thread on Linux, so each
 * thread is set (the main one, the garbage collector's, libuv's pool that runs sharp and zlib);
 * one already lower (an engine thread at ENGINE_POOL_NICE) is left as it is, and threads started
 * later inherit the nice of the thread that starts them.
 */
function stepAside(nice: number, logger: Logger): void {
  if (nice <= getPriority(0)) return;
  let threads: string[];
  try {
    threads = readdirSync('/proc/self/task');
  } catch {
    threads = ['0']; // no /proc: this thread only
  }
  try {
    for (const tid of threads) {
      try {
        if (getPriority(Number(tid)) < nice) setPriority(Number(tid), nice);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ESRCH') throw err; // ended meanwhile
      }
    }
    logger.log(`worker main thread now at nice ${nice}`);
  } catch (err) {
    logger.warn(`worker could not take nice ${nice}: ${(err as Error).message}`);
  }
}

void bootstrap();
