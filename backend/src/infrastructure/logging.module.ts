import { Module, RequestMethod } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { SerializedRequest, SerializedResponse } from 'pino';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import {
  REDACTED,
  SECRET_FIELDS,
  SECRET_HEADERS,
  withoutSecretFields,
  withoutSecretHeaders,
  withoutSecretParams,
} from './secret-fields';

/** The health routes (health.controller.ts): probed by load balancers and Kubernetes. */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/api/health', '/api/health/live', '/api/health/ready']);

/**
 * Structured JSON logs (pino), one line per request. No secret is ever written (secret-fields.ts):
 * the request's and response's headers, the URL's query string and the parsed query and body are
 * masked by the serializers below; the redact paths mask the same fields in anything else logged.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
        pinoHttp: {
          level: config.LOG_LEVEL,
          transport: config.LOG_PRETTY ? { target: 'pino-pretty', options: { singleLine: true } } : undefined,
          // pino-http hands these its standard serializers' output (wrapSerializers), whose headers
          // and query are the live request's objects: they are copied, never changed.
          serializers: { req: withoutSecretsInRequest, res: withoutSecretsInResponse },
          redact: { paths: secretPaths(), censor: REDACTED },
          // probes ask every few seconds: a line each would bury the requests that matter
          autoLogging: { ignore: (req) => PROBE_PATHS.has(req.url ?? '') },
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

function withoutSecretsInRequest(req: SerializedRequest): SerializedRequest {
  const logged = req as SerializedRequest & { body?: object };
  logged.url = withoutSecretParams(req.url);
  logged.headers = withoutSecretHeaders(req.headers);
  if (req.query) logged.query = withoutSecretFields(req.query);
  if (logged.body) logged.body = withoutSecretFields(logged.body);
  return logged;
}

function withoutSecretsInResponse(res: SerializedResponse): SerializedResponse {
  if (res.headers) res.headers = withoutSecretHeaders(res.headers);
  return res;
}

/** The secret fields and headers in any logged object, at its top level or one below (pino redact paths, exact case). */
function secretPaths(): string[] {
  const fields = SECRET_FIELDS.flatMap((name) => [name, `*.${name}`]);
  const headers = SECRET_HEADERS.flatMap((name) => [`headers["${name}"]`, `*.headers["${name}"]`]);
  return [...fields, ...headers];
}
