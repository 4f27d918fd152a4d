import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { bootConfig } from '../../src/boot';
import { exitAfterShutdownDeadline, shutdownDeadlineMs } from '../../src/shutdown';
import { WorkerAppModule } from './worker-app.module';

/** The worker on its own: no HTTP, only queue processors. */
async function bootstrap(): Promise<void> {
  const config = await bootConfig();
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), {
    bufferLogs: true,
  });
  const logger = app.get(Logger);
  app.useLogger(logger);
  app.enableShutdownHooks();
  exitAfterShutdownDeadline(shutdownDeadlineMs(config, true), (message) => logger.error(message));
  logger.log('worker started');
}

void bootstrap();
