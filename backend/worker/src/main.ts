import 'reflect-metadata';
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
}

void bootstrap();
