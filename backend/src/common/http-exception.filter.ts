import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { NextFunction, Request, Response } from 'express';
import {
  AgeAssuranceMessages,
  JobMessages,
  Messages,
  PaymentMessages,
  PromptMessages,
} from '@studio/contracts';
import { isOutage, OUTAGE_RETRY_AFTER_SECONDS } from '../infrastructure/outage';
import { failure } from './api-response';

/**
 * Turns every error into the spec's error body {message: 'error', content: text}. Expected
 * errors keep their status; Redis or the database being down is a 503 with Retry-After (nothing
 * was done: the client may simply retry); anything else unexpected is logged and becomes a 500.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendError(exception, host.switchToHttp().getResponse<Response>());
  }
}

const logger = new Logger('HttpExceptionFilter');

/** 503s of something this studio does not have set up: lasting, so no Retry-After. */
const NOT_CONFIGURED = new Set<string>([
  PromptMessages.notConfigured,
  JobMessages.engineUnavailable,
  PaymentMessages.notConfigured,
  AgeAssuranceMessages.providerNotConfigured,
]);

function sendError(exception: unknown, res: Response): void {
  if (res.headersSent) return;
  const { status, body } = errorAnswer(exception);
  // A 503 says when to come back (unless its route said so already), but not one that no wait
  // mends: a client honouring Retry-After would ask again forever.
  const text = (body as { content?: unknown }).content;
  if (
    status === HttpStatus.SERVICE_UNAVAILABLE &&
    !res.getHeader('Retry-After') &&
    !(typeof text === 'string' && NOT_CONFIGURED.has(text))
  ) {
    res.setHeader('Retry-After', String(OUTAGE_RETRY_AFTER_SECONDS));
  }
  if (isOutage(exception)) {
    logger.warn(`answered 503, a part is down: ${(exception as Error).message}`);
  } else if (status >= 500) {
    logger.error(exception instanceof Error ? exception.stack : String(exception));
  }
  res.status(status).json(body);
}

/**
 * The outage answer (503, Retry-After) for errors of Express middleware that runs before Nest's
 * routes (the session store's read, for one), which Nest's filters never see. Other errors go on
 * to whoever handled them before.
 */
export function outageErrorHandler(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent || !isOutage(err)) return next(err);
  sendError(err, res);
}

/**
 * The status and body an error is answered with (the idempotency layer keeps the same answer).
 * `extra`: what the client needs to act on the refusal (a retry's current price, a reason code and
 * link, the job that ended while a tool request waited).
 */
export function errorAnswer(exception: unknown): { status: number; body: object } {
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const body = exception.getResponse() as { extra?: Record<string, unknown> } | string;
    const extra = typeof body === 'object' && body?.extra ? body.extra : undefined;
    // The rate limiter's text is not for people; other 429s (the open-job limit) say what to do.
    const text = exception instanceof ThrottlerException ? Messages.tooManyRequests : textOf(body, status);
    return { status, body: { ...failure(text), ...extra } };
  }
  if (isOutage(exception))
    return { status: HttpStatus.SERVICE_UNAVAILABLE, body: failure(Messages.briefOutage) };
  return { status: HttpStatus.INTERNAL_SERVER_ERROR, body: failure(Messages.serverError) };
}

function textOf(body: unknown, status: number): string {
  if (typeof body === 'string') return body;
  if (body && typeof body === 'object' && 'message' in body) {
    const message = (body as { message: unknown }).message;
    if (Array.isArray(message)) return String(message[0]);
    if (typeof message === 'string') {
      if (status === HttpStatus.NOT_FOUND && message.startsWith('Cannot ')) return Messages.notFound;
      return message;
    }
  }
  return HttpStatus[status] ?? 'Error';
}
