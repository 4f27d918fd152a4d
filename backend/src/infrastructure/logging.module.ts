import { Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import { APP_CONFIG, AppConfig } from '../config/app-config';

/** Structured JSON logs (pino), one line per request; cookies and passwords never logged. */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
        pinoHttp: {
          level: config.LOG_LEVEL,
          transport: config.LOG_PRETTY ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
          redact: ['req.headers.cookie', 'res.headers["set-cookie"]', 'req.body.password'],
          autoLogging: { ignore: (req) => req.url === '/api/health' },
          customProps: (req) => {
            const session = (req as { session?: { userId?: string } }).session;
            return session?.userId ? { userId: session.userId } : {};
          },
        },
      }),
    }),
  ],
})
export class LoggingModule {}
