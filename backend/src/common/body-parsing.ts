import type { ErrorRequestHandler, NextFunction, Request, Response } from 'express';
import express from 'express';
import { API_PREFIX, JobMessages, Messages, UPLOAD_LIMITS } from '@studio/contracts';
import { failure } from './api-response';
import { watchIdleBody } from './idle-body';

/**
 * Tool routes that also take their image as a data URL in JSON (the spec's super resolution
 * request): the global parser leaves these bodies to the route's upload interceptor, which streams
 * their images to files (generation/json-upload.ts).
 */
const JSON_UPLOAD_PATHS: ReadonlySet<string> = new Set([`${API_PREFIX}/superResolution`.toLowerCase()]);

/** Whether a request goes to such a route (Express matches routes regardless of letter case). */
export const isJsonUploadPath = (req: Request) =>
  JSON_UPLOAD_PATHS.has(req.path.toLowerCase().replace(/\/+$/, ''));

/** Replicate's webhook echoes the prediction's input: up to two images as data URLs. */
export const REPLICATE_WEBHOOK_BODY_LIMIT = `${2 * Math.ceil((UPLOAD_LIMITS.imageBytes * 4) / 3 / 1024) + 64}kb`;

export interface RawBodyRequest extends Request {
  rawBody?: Buffer;
}

/**
 * The JSON parser, keeping the raw bytes (Stripe signs the raw body), followed by an error
 * handler so a malformed or oversized body answers 400/413 in the API's shape, not an HTML page.
 * A body that sends nothing for `idleMs` (UPLOAD_IDLE_SECONDS, as uploads) is answered 408.
 */
export function bodyParsers(limit: string, idleMs: number, skip: (req: Request) => boolean = () => false) {
  const keepRaw = (req: RawBodyRequest, _res: unknown, buf: Buffer) => {
    req.rawBody = buf;
  };
  const onError: ErrorRequestHandler = (err, _req, res, next) => {
    // answered already (a stalled body got its 408): the parser's later error is that same body
    if (res.headersSent) return;
    const type = (err as { type?: string }).type;
    if (type === 'entity.too.large') {
      res.status(413).json(failure(Messages.payloadTooLarge));
    } else if (type === 'entity.parse.failed') {
      res.status(400).json(failure(Messages.malformedJson));
    } else if (
      typeof (err as { status?: number }).status === 'number' &&
      (err as { status: number }).status < 500
    ) {
      res.status((err as { status: number }).status).json(failure(String((err as Error).message)));
    } else {
      next(err);
    }
  };
  // No form parser: no route reads form-encoded bodies, which other sites can post without a
  // preflight (JsonBodyGuard refuses them with 415).
  const parses = (req: Request) => !skip(req) && isJson(req);
  const json = express.json({ limit, verify: keepRaw, type: (req) => parses(req as Request) });
  const refuseDeclaredOversize = (req: Request, res: Response, next: () => void) => {
    if (!parses(req) || !declaresMoreThan(req, limit)) return next();
    refuseNow(res);
    res.status(413).json(failure(Messages.payloadTooLarge));
  };
  // The stall timer starts once the parser reads (its 'data' listener is set synchronously):
  // listening first would start the body flowing before the parser could see it.
  const jsonUntilStalled = (req: Request, res: Response, next: NextFunction) => {
    json(req, res, next);
    if (!parses(req) || res.headersSent || !req.readableFlowing) return;
    const stop = watchIdleBody(req, idleMs, () => {
      if (res.headersSent || res.closed) return;
      refuseNow(res);
      res.status(408).json(failure(JobMessages.uploadIdle));
    });
    res.once('close', stop);
  };
  return [refuseDeclaredOversize, jsonUntilStalled, onError];
}

const LIMIT_UNITS: Record<string, number> = { kb: 1024, mb: 1024 * 1024 };

/**
 * Whether the request's Content-Length is over a body-parser limit ('100kb', '16mb'). body-parser
 * refuses such a body unread but answers only once the client has sent all of it (it reads the
 * declared bytes off first): a client declaring gigabytes, or sending them slowly, would hold the
 * connection with no answer until the server's request timeout.
 */
function declaresMoreThan(req: Request, limit: string): boolean {
  const declared = Number(req.get('content-length'));
  const match = /^(\d+)(kb|mb)$/.exec(limit);
  if (!match || !Number.isFinite(declared)) return false;
  return declared > Number(match[1]) * LIMIT_UNITS[match[2]!]!;
}

/** The answer goes out now and the connection closes after it: the unread body is never read. */
function refuseNow(res: Response): void {
  res.setHeader('Connection', 'close');
}

const isJson = (req: Request) => Boolean(req.is('json'));
