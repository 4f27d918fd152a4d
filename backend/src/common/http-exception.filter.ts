import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import type { Response } from 'express';
import { Messages } from '@studio/contracts';
import { failure } from './api-response';

/**
 * Turns every error into the spec's error body {message: 'error', content: text}. Expected
 * errors keep their status; anything unexpected is logged and becomes a plain 500.
 */
@Catch()
export class HttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptionFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<Response>();
    if (res.headersSent) return;
    const { status, body } = errorAnswer(exception);
    if (status >= 500) this.logger.error(exception instanceof Error ? exception.stack : String(exception));
    res.status(status).json(body);
  }
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
