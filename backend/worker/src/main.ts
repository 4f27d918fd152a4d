import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { bootConfig } from '../../src/boot';
import { WorkerAppModule } from './worker-app.module';

/** The worker on its own: no HTTP, only queue processors. */
async function bootstrap(): Promise<void> {
  const config = await bootConfig();
  const app = await NestFactory.createApplicationContext(WorkerAppModule.forRoot(config), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  app.get(Logger).log('worker started');
}

void bootstrap();
