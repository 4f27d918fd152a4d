import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { bootConfig } from '../../src/boot';
import { createApp } from './create-app';

async function bootstrap(): Promise<void> {
  const config = await bootConfig();
  const app = await createApp(config);
  await app.listen(config.PORT, config.HOST);
  const url = `http://localhost:${config.PORT}`;
  app.get(Logger).log(`AI Studio is up at ${url} (API docs at ${url}/api/docs)`);
}

void bootstrap();
