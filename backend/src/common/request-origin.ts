import {
  CanActivate,
  ExecutionContext,
  HttpException,
  HttpStatus,
  Injectable,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { Messages } from '@studio/contracts';
import type { AppConfig } from '../config/app-config';
import { failure } from './api-response';

type OriginConfig = Pick<AppConfig, 'FRONTEND_ORIGIN' | 'PUBLIC_URL'>;

/** Methods that change nothing; everything else must come from our own pages. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Whether a browser request's Origin is ours: the app's own host, FRONTEND_ORIGIN or PUBLIC_URL.
 * Browsers always send Origin on cross-origin requests and WebSocket handshakes, so a foreign one
 * is another site's page riding on the user's cookie. No Origin at all is a same-origin navigation
 * or a client that is not a browser (scripts, webhooks), which carries no cookie it did not own.
 */
export function isAllowedOrigin(request: Pick<IncomingMessage, 'headers'>, config: OriginConfig): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false; // 'null' (sandboxed frames, some redirects) and garbage
  }
  if (parsed.host === request.headers.host) return true;
  return configuredOrigins(config).includes(parsed.origin);
}

const configuredOrigins = (config: OriginConfig) =>
  [config.FRONTEND_ORIGIN, config.PUBLIC_URL]
    .filter((allowed): allowed is string => Boolean(allowed))
    .map((allowed) => new URL(allowed).origin);

/**
 * Whether a state-changing request may go on. SameSite=Lax cookies still ride along on requests
 * from a sibling subdomain or another port of the same host ("same-site"), and `fetch(…,
 * {mode: 'no-cors'})` sends form and multipart bodies without a preflight, so the cookie alone
 * proves nothing. Fetch Metadata decides where the browser sends it: only our own origin (or a
 * user typing the address: 'none'), or a configured front-end origin. Browsers without it are
 * judged by Origin.
 */
export function isSameOriginWrite(
  request: Pick<IncomingMessage, 'headers' | 'method'>,
  config: OriginConfig,
) {
  if (SAFE_METHODS.has(request.method ?? 'GET')) return true;
  // An API key request is judged by its key alone (the session guard ignores any cookie beside it),
  // and no browser sends an Authorization header to another origin without a CORS preflight.
  if (/^Bearer\s/i.test(request.headers.authorization ?? '')) return true;
  const site = request.headers['sec-fetch-site'];
  if (site === undefined) return isAllowedOrigin(request, config);
  if (site === 'same-origin' || site === 'none') return isAllowedOrigin(request, config);
  // same-site or cross-site: only a front end configured to live elsewhere (FRONTEND_ORIGIN).
  const origin = request.headers.origin;
  return (
    origin !== undefined && URL.canParse(origin) && configuredOrigins(config).includes(new URL(origin).origin)
  );
}

/**
 * Express middleware, mounted before any body parser, so that a forged write is refused before
 * its body is read, for every route (new ones included) in one place.
 */
export function refuseCrossSiteWrites(config: OriginConfig): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (isSameOriginWrite(req, config)) return next();
    res.status(HttpStatus.FORBIDDEN).json(failure(Messages.crossSiteRequest));
  };
}

const TAKES_FILES = 'request-body:takes-files';

/** Marks a route whose body may be multipart (file uploads); every other body must be JSON. */
export const TakesFiles = () => SetMetadata(TAKES_FILES, true);

/**
 * Bodies are JSON unless the route takes files. A form-encoded or text/plain body is what an HTML
 * form or a no-cors fetch from another site can send without a preflight; no route of ours reads
 * one, so it is refused (415) instead of being parsed. Runs before the upload interceptor.
 */
@Injectable()
export class JsonBodyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (!hasBody(request)) return true;
    const type = (request.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
    if (type === 'application/json' || type.endsWith('+json')) return true;
    const takesFiles = this.reflector.getAllAndOverride<boolean>(TAKES_FILES, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (takesFiles && type === 'multipart/form-data') return true;
    throw new HttpException(Messages.jsonBodyRequired, HttpStatus.UNSUPPORTED_MEDIA_TYPE);
  }
}

function hasBody(request: Request): boolean {
  const length = request.get('content-length');
  if (length !== undefined) return Number(length) > 0;
  return request.get('transfer-encoding') !== undefined;
}
