import { INestApplication, RequestMethod } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import compression from 'compression';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { existsSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { API_PREFIX, QUEUE_BOARD_PATH } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../src/config/app-config';
import { bodyParsers, isJsonUploadPath, REPLICATE_WEBHOOK_BODY_LIMIT } from '../../src/common/body-parsing';
import { HttpExceptionFilter, outageErrorHandler } from '../../src/common/http-exception.filter';
import { refuseCrossSiteWrites } from '../../src/common/request-origin';
import { createValidationPipe } from '../../src/common/validation';
import { SESSION_MIDDLEWARE } from '../../src/modules/auth';
import { METRICS_PATH } from '../../src/modules/metrics';
import { mountQueueBoard } from '../../src/modules/operations';
import { SessionIoAdapter } from '../../src/modules/realtime';
import { AppModule } from './app.module';

/**
 * Builds the whole HTTP app (used by main.ts and by the integration and browser tests, so they
 * exercise exactly what production runs).
 */
export async function createApp(config: AppConfig): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  // Client addresses (login limits, logs) come from X-Forwarded-For only through trusted proxies.
  app.set('trust proxy', config.TRUST_PROXY);
  app.disable('x-powered-by');

  app.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          // antd injects its styles at run time; images may be previews made in the browser.
          'style-src': ["'self'", "'unsafe-inline'"],
          'img-src': ["'self'", 'data:', 'blob:'],
          'media-src': ["'self'", 'blob:'],
          'connect-src': ["'self'", 'ws:', 'wss:'],
        },
      },
    }),
  );
  // brotli or gzip (whichever the client prefers) for every compressible text response (HTML, JS,
  // CSS, JSON, SVG); images and videos are already compressed, so `compression` leaves them alone.
  app.use(compression());
  if (config.FRONTEND_ORIGIN) app.enableCors({ origin: config.FRONTEND_ORIGIN, credentials: true });
  // API answers are personal (account, balance, exports): never stored by a browser or proxy
  // unless a route says otherwise (the content route sets its own).
  app.use(API_PREFIX, (_req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  // Before any body is read: writes only from our own pages (cross-site request forgery).
  app.use(refuseCrossSiteWrites(config));
  const idleMs = config.UPLOAD_IDLE_SECONDS * 1000;
  app.use(`${API_PREFIX}/replicate/webhook`, ...bodyParsers(REPLICATE_WEBHOOK_BODY_LIMIT, idleMs));
  // Tool routes whose JSON form carries an image are read by their upload interceptor instead,
  // after their checks and the user's upload slot (one accounting for every way a file arrives).
  for (const parser of bodyParsers(config.JSON_BODY_LIMIT, idleMs, isJsonUploadPath)) app.use(parser);
  // Only the API reads sessions: pages and assets are served while Redis is down.
  app.use(API_PREFIX, app.get<RequestHandler>(SESSION_MIDDLEWARE));
  app.use(outageErrorHandler);
  mountQueueBoard(app);

  // Prometheus scrapes /metrics, outside the API prefix (modules/metrics).
  app.setGlobalPrefix(API_PREFIX.slice(1), { exclude: [{ path: METRICS_PATH, method: RequestMethod.GET }] });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter());
  app.useWebSocketAdapter(new SessionIoAdapter(app));
  app.enableShutdownHooks();

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('AI Studio API')
      .setDescription(
        'Credit-based studio for AI image and video work. Sessions are httpOnly cookies. ' +
          `Admins also have the queue board (bull-board) at ${QUEUE_BOARD_PATH}.`,
      )
      .setVersion('0.1.0')
      .addCookieAuth('studio.sid')
      .addBearerAuth(
        { type: 'http', scheme: 'bearer', description: 'A personal API key (sk_studio_…), see docs/api.md' },
        'api-key',
      )
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, { jsonDocumentUrl: 'api/openapi.json' });

  serveFrontend(app, config);
  await app.init();
  return app;
}

export const IMMUTABLE_CACHE = 'public, max-age=31536000, immutable';

/** The built frontend, with every non-API path answered by index.html (client-side routes). */
function serveFrontend(app: NestExpressApplication, config: AppConfig): void {
  const dist = resolve(config.FRONTEND_DIST ?? join(__dirname, '../../../../frontend/dist'));
  const index = join(dist, 'index.html');
  if (!existsSync(index)) {
    app.get(Logger).warn(`no frontend build at ${dist}; serving the API only`);
    return;
  }
  // Vite names every file under /assets by its content hash: a new build gets new names, so they
  // can be cached for a year without revalidation. Anything else (index.html, unhashed files) is
  // revalidated on each use.
  app.useStaticAssets(dist, {
    index: false,
    setHeaders: (res, path) => {
      const hashed = relative(dist, path).startsWith(`assets${sep}`);
      res.setHeader('Cache-Control', hashed ? IMMUTABLE_CACHE : 'no-cache');
    },
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    const isApi =
      req.path.startsWith(`${API_PREFIX}/`) ||
      req.path === API_PREFIX ||
      req.path.startsWith('/socket.io') ||
      req.path === `/${METRICS_PATH}`;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isApi) return next();
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(index);
  });
}

export { APP_CONFIG };
