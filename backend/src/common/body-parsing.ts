import type { ErrorRequestHandler, Request } from 'express';
import express from 'express';
import { Messages, UPLOAD_LIMITS } from '@studio/contracts';
import { failure } from './api-response';

/** JSON bodies that carry one image as a data URL (base64 is 4/3 of the bytes, plus the fields). */
export const IMAGE_JSON_BODY_LIMIT = `${Math.ceil((UPLOAD_LIMITS.imageBytes * 4) / 3 / 1024) + 64}kb`;

/** Replicate's webhook echoes the prediction's input: up to two images as data URLs. */
export const REPLICATE_WEBHOOK_BODY_LIMIT = `${2 * Math.ceil((UPLOAD_LIMITS.imageBytes * 4) / 3 / 1024) + 64}kb`;

export interface RawBodyRequest extends Request {
  rawBody?: Buffer;
}

/**
 * The JSON parser, keeping the raw bytes (Stripe signs the raw body), followed by an error
 * handler so a malformed or oversized body answers 400/413 in the API's shape, not an HTML page.
 */
export function bodyParsers(limit: string) {
  const keepRaw = (req: RawBodyRequest, _res: unknown, buf: Buffer) => {
    req.rawBody = buf;
  };
  const onError: ErrorRequestHandler = (err, _req, res, next) => {
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
  return [express.json({ limit, verify: keepRaw }), onError];
}
