import 'reflect-metadata';
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
 * Lowers the main thread's priority once booted (setpriority applies to the calling thread on
 * Linux): threads it starts from now on inherit it; the engine threads set their own nice.
 */
function stepAside(nice: number, logger: Logger): void {
  if (nice <= getPriority(0)) return;
  try {
    setPriority(0, nice);
    logger.log(`worker main thread now at nice ${nice}`);
  } catch (err) {
    logger.warn(`worker could not take nice ${nice}: ${(err as Error).message}`);
  }
}

void bootstrap();
