import 'reflect-metadata';
import { Logger } from 'nestjs-pino';
import { bootConfig } from '../../src/boot';
import { waitForServices } from '../../src/infrastructure/wait-for-services';
import { exitAfterShutdownDeadline, shutdownDeadlineMs } from '../../src/shutdown';
import { createApp } from './create-app';

async function bootstrap(): Promise<void> {
  const config = await bootConfig();
  const logging: { logger?: Logger } = {};
  // before the app: a stop while it boots (Redis or the database not answering) is bounded too
  exitAfterShutdownDeadline(shutdownDeadlineMs(config, config.WORKER_INLINE), (message) =>
    logging.logger ? logging.logger.error(message) : process.stderr.write(`${message}\n`),
  );
  await waitForServices(config, (message) => process.stderr.write(`${message}\n`));
  const app = await createApp(config);
  const logger = app.get(Logger);
  logging.logger = logger;
  await app.listen(config.PORT, config.HOST);
  const url = `http://localhost:${config.PORT}`;
  logger.log(`AI Studio is up at ${url} (API docs at ${url}/api/docs)`);
}

void bootstrap();
