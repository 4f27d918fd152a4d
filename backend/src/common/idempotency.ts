import {
  applyDecorators,
  CallHandler,
  ConflictException,
  BadRequestException,
  ExecutionContext,
  HttpException,
  Inject,
  Injectable,
  NestInterceptor,
  UseInterceptors,
} from '@nestjs/common';
import { ApiConflictResponse, ApiHeader } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type Redis from 'ioredis';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { IDEMPOTENCY, IdempotencyMessages } from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { REDIS } from '../infrastructure/redis.module';
import { errorAnswer } from './http-exception.filter';

/** How long a request may hold its key while it runs (a crash mid-way frees the key after it). */
const RUNNING_SECONDS = 300;
/**
 * Answers kept for a replay: what the request did. A refusal before it did anything (bad input,
 * not signed in, a rate limit, a conflict) is not kept, so a corrected retry with the key runs
 * (Stripe: "results are only saved if an API endpoint started executing"); nor is a 503 (a part
 * was down or busy and nothing was done), so a retry with the key runs.
 */
const NOT_KEPT = new Set([400, 401, 403, 404, 408, 409, 413, 415, 429, 503]);

interface Stored {
  fingerprint: string;
  state: 'running' | 'done';
  /** Set for a kept failure (its status); a success is answered with the route's own status. */
  status?: number;
  body?: unknown;
}

/** What the request asks, whatever its form: method, path, fields and the bytes of its files. */
async function fingerprintOf(req: Request): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`${req.method} ${req.baseUrl}${req.path}\n`);
  hash.update(stableJson(req.body ?? null));
  const files = ((req as Request & { files?: { fieldname: string; path: string }[] }).files ?? [])
    .slice()
    .sort((a, b) => a.fieldname.localeCompare(b.fieldname));
  for (const file of files) {
    hash.update(`\n${file.fieldname}:`);
    for await (const chunk of createReadStream(file.path)) hash.update(chunk as Buffer);
  }
  return hash.digest('hex');
}

/** JSON with object keys sorted, so the same fields in another order are the same request. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Idempotency-Key for job submissions and folder writes, per account, after Stripe's published
 * rules: the first answer of a key is kept for 24 hours (success or failure, once the route began
 * its work) and replayed for the same request; the same key with another request, or while the
 * first is still running, is a 409 that changes nothing. Kept in Redis, so it holds across API
 * instances; SET NX decides which of parallel duplicates runs.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user?: { id: string } }>();
    const res = http.getResponse<Response>();
    const key = req.get(IDEMPOTENCY.header);
    if (key === undefined || !req.user) return next.handle();
    return from(this.once(req, res, key, next));
  }

  private async once(
    req: Request & { user?: { id: string } },
    res: Response,
    key: string,
    next: CallHandler,
  ) {
    if (!key.length || key.length > IDEMPOTENCY.maxKeyLength || !/^[\x21-\x7e]+$/.test(key)) {
      throw new BadRequestException(IdempotencyMessages.badKey);
    }
    const slot = `${this.config.REDIS_PREFIX}:idempotency:${req.user!.id}:${createHash('sha256').update(key).digest('hex')}`;
    const fingerprint = await fingerprintOf(req);
    const running: Stored = { fingerprint, state: 'running' };
    const taken = await this.redis.set(slot, JSON.stringify(running), 'EX', RUNNING_SECONDS, 'NX');
    if (!taken) return this.replay(slot, fingerprint, res);

    let body: unknown;
    try {
      body = await lastValueFrom(next.handle(), { defaultValue: undefined });
    } catch (err) {
      const { status, body: answer } = errorAnswer(err);
      // Not kept: the slot goes, so a retry runs. Should Redis fail that, the slot stays 'running'
      // (409 to a retry until it expires), which is safer than running the request twice.
      if (NOT_KEPT.has(status)) await this.redis.del(slot).catch(() => undefined);
      else await this.keep(slot, { fingerprint, state: 'done', status, body: answer }).catch(() => undefined);
      throw err;
    }
    // Done (a job submitted, credits reserved): the answer stands even if Redis cannot keep it now;
    // turning it into an error (503, "nothing was charged") would invite a second submission.
    await this.keep(slot, { fingerprint, state: 'done', body }).catch(() => undefined);
    return body;
  }

  private async keep(slot: string, stored: Stored): Promise<void> {
    await this.redis.set(slot, JSON.stringify(stored), 'EX', IDEMPOTENCY.keepSeconds);
  }

  /** The first request's answer again, or 409 when it was another request or is still running. */
  private async replay(slot: string, fingerprint: string, res: Response): Promise<unknown> {
    const raw = await this.redis.get(slot);
    const stored = raw ? (JSON.parse(raw) as Stored) : null;
    if (!stored) throw new ConflictException(IdempotencyMessages.inProgress); // ended just now: retry
    if (stored.fingerprint !== fingerprint) throw new ConflictException(IdempotencyMessages.reused);
    if (stored.state === 'running') throw new ConflictException(IdempotencyMessages.inProgress);
    res.setHeader(IDEMPOTENCY.replayedHeader, 'true');
    if (stored.status === undefined) return stored.body; // a success: the route's own status
    // A kept failure goes out through the error filter again, as the first one did.
    const { content, message: _error, ...extra } = stored.body as { content: string; message: string };
    throw new HttpException({ message: content, extra }, stored.status);
  }
}

/** The route takes an Idempotency-Key (safe retries of job submissions and folder writes). */
export const Idempotent = () => applyDecorators(UseInterceptors(IdempotencyInterceptor), IdempotentDocs());

/** The header and its 409 in the OpenAPI document (for routes that add the interceptor themselves). */
export const IdempotentDocs = () =>
  applyDecorators(
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      description:
        'Up to 255 characters (a UUID v4 is a good key). The same key and request within 24 hours returns the first answer without doing it again (header Idempotent-Replayed: true).',
    }),
    ApiConflictResponse({
      description: `${IdempotencyMessages.reused}; or ${IdempotencyMessages.inProgress}`,
    }),
  );
