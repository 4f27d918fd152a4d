import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { exitOnConfigError } from '../../src/config/boot';
import { WorkerAppModule } from './worker-app.module';

/** The worker on its own: no HTTP, only queue processors. */
async function bootstrap(): Promise<void> {
  const config = exitOnConfigError();
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  app.get(Logger).log('worker started');
}

void bootstrap();
