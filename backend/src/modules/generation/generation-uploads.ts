import { AgeAssuranceService } from '../age-assurance';
import {
  applyDecorators,
  BadRequestException,
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  HttpException,
  RequestTimeoutException,
  HttpStatus,
  Inject,
  Injectable,
  Logger,
  NestInterceptor,
  OnApplicationBootstrap,
  PayloadTooLargeException,
  ServiceUnavailableException,
  SetMetadata,
  UseGuards,
  UseInterceptors,
  type CallHandler,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiRequestTimeoutResponse } from '@nestjs/swagger';
import busboy from 'busboy';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { JobMessages, Messages, quoteTool, UPLOAD_LIMITS, UPLOAD_REQUEST_LIMITS } from '@studio/contracts';
import { watchIdleBody } from '../../common/idle-body';
import { TakesFiles } from '../../common/request-origin';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { IdempotencyInterceptor, IdempotentDocs } from '../../common/idempotency';
import { type AuthUser, sessionAccount } from '../auth';
import { OperationsService } from '../operations';
import { EngineRegistry } from '../engines';
import { diskFullError } from '../storage';
import { readJsonUpload } from './json-upload';

export type { UploadedFile, UploadRule } from './upload-rule';
import type { UploadedFile, UploadRule } from './upload-rule';

const UPLOAD_RULE = 'generation:upload-rule';

/** The balance the preflight read, for the price checks while the body streams. */
const balanceBeforeBody = new WeakMap<Request, number>();

/** Where uploads stream to: under STORAGE_DIR, one folder per request, removed when it ends. */
export const uploadTempRoot = (config: AppConfig) => resolve(config.STORAGE_DIR, '.uploads');

/**
 * After a refusal while the client is still sending, answer and hang up: with `Connection: close`
 * Node closes the socket once the answer is out instead of receiving the rest of the body.
 */
function closeAfterAnswer(req: Request, res: Response): void {
  if (!req.complete && !res.headersSent) res.setHeader('Connection', 'close');
}

/**
 * Uploads in flight per user, so one account cannot hold many large bodies open at once. The count
 * lives in this API process (each instance counts its own); a slot is freed when the response
 * closes, whether it was answered, failed or the client went away.
 */
@Injectable()
export class UploadSlots {
  private readonly inFlight = new Map<string, number>();

  take(userId: string, res: Response): boolean {
    // The client left during the checks before: its 'close' has passed and would never free a
    // slot taken now. Nothing is held; the interceptor reads nothing of a closed request.
    if (res.closed) return true;
    const current = this.inFlight.get(userId) ?? 0;
    if (current >= UPLOAD_REQUEST_LIMITS.concurrentPerUser) return false;
    this.inFlight.set(userId, current + 1);
    res.once('close', () => {
      const left = (this.inFlight.get(userId) ?? 1) - 1;
      if (left > 0) this.inFlight.set(userId, left);
      else this.inFlight.delete(userId);
    });
    return true;
  }

  /** Slots the user holds now (operations and tests). */
  held(userId: string): number {
    return this.inFlight.get(userId) ?? 0;
  }
}

/**
 * Everything a tool request can be refused for that does not depend on the file bytes, decided
 * from the headers before the body is read: declared size, feature flag, engine, the cheapest price
 * against the balance, uploads in flight. (Session and rate limit are guards that run before.)
 */
@Injectable()
export class UploadPreflightGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly operations: OperationsService,
    private readonly engines: EngineRegistry,
    private readonly slots: UploadSlots,
    private readonly ageAssurance: AgeAssuranceService,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const rule = this.reflector.get<UploadRule>(UPLOAD_RULE, context.getHandler());
    const http = context.switchToHttp();
    const req = http.getRequest<Request & { user: AuthUser }>();
    const res = http.getResponse<Response>();
    try {
      const declared = Number(req.headers['content-length']);
      if (declared > rule.requestBytes) throw new PayloadTooLargeException(JobMessages.uploadTooLarge);
      if (rule.flag && !(await this.operations.flags())[rule.flag.name]) {
        throw new ForbiddenException(rule.flag.offMessage);
      }
      // The photo tools (and their free checks) wait for an age-assured account: refused unread.
      await this.ageAssurance.assertAllowed(req.user, rule.tool);
      const unavailable = await this.engines.unavailability(rule.tool);
      if (unavailable) {
        throw new ServiceUnavailableException(
          unavailable === 'not_configured' ? JobMessages.engineUnavailable : JobMessages.engineUnreachable,
        );
      }
      // The session guard read the account (balance included) a moment ago: no second read.
      const balance = sessionAccount(req)?.balance ?? 0;
      if (balance < quoteTool(rule.tool, rule.minUnits)) {
        throw new HttpException(Messages.notEnoughCredits, HttpStatus.PAYMENT_REQUIRED);
      }
      balanceBeforeBody.set(req, balance);
      if (!this.slots.take(req.user.id, res)) {
        throw new HttpException(JobMessages.tooManyUploads, HttpStatus.TOO_MANY_REQUESTS);
      }
      return true;
    } catch (err) {
      closeAfterAnswer(req, res);
      throw err;
    }
  }
}

/**
 * Reads a multipart or JSON body as it arrives: files (JSON: data URLs) stream to a folder of their
 * own (never into memory),
 * every byte is counted against the request cap, and any limit or unknown file field stops the read
 * at once. The folder is removed when the response closes (answered, failed or abandoned).
 */
@Injectable()
export class UploadInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private get idleMs(): number {
    return this.config.UPLOAD_IDLE_SECONDS * 1000;
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    const json = req.is('json');
    // a JSON body the app's parser already took (a route without JSON images): nothing to stream
    if (json && (req as Request & { _body?: boolean })._body) return next.handle();
    if (!json && !req.is('multipart')) return next.handle();
    const rule = this.reflector.get<UploadRule>(UPLOAD_RULE, context.getHandler());
    const dir = join(uploadTempRoot(this.config), randomUUID());
    const removeDir = () => void rm(dir, { recursive: true, force: true }).catch(() => undefined);
    res.once('close', removeDir);
    return from(
      (async () => {
        try {
          await mkdir(dir, { recursive: true });
          // Gone before this point, the request would never close again: nothing would end the
          // read below nor remove the folder.
          if (res.closed) throw new BadRequestException(JobMessages.uploadAborted);
          // a JSON body's data-URL images stream to files as multipart files do
          const read = json ? readJsonUpload(req, rule, dir) : readMultipart(req, rule, dir);
          const { fields, files } = await whileNotIdle(req, this.idleMs, read);
          req.body = fields;
          (req as Request & { files: UploadedFile[] }).files = files;
        } catch (err) {
          closeAfterAnswer(req, res);
          removeDir();
          throw err;
        }
        return lastValueFrom(next.handle(), { defaultValue: undefined });
      })(),
    );
  }
}

/** Removes upload folders left by a process that died mid-upload (no live request is an hour old). */
@Injectable()
export class StaleUploadSweep implements OnApplicationBootstrap {
  private readonly logger = new Logger(StaleUploadSweep.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  async onApplicationBootstrap(): Promise<void> {
    const root = uploadTempRoot(this.config);
    const names = await readdir(root).catch(() => [] as string[]);
    for (const name of names) {
      const path = join(root, name);
      const info = await stat(path).catch(() => null);
      if (info && Date.now() - info.mtimeMs > 3_600_000) {
        await rm(path, { recursive: true, force: true }).catch(() => undefined);
        this.logger.warn(`removed a stale upload folder ${name}`);
      }
    }
  }
}

/**
 * `reading`, unless the request sends no byte for `idleMs`: then 408 (the caller closes the
 * connection after the answer, which frees the upload slot).
 */
function whileNotIdle<T>(req: Request, idleMs: number, reading: Promise<T>): Promise<T> {
  let stop = () => {};
  const idle = new Promise<never>((_, reject) => {
    stop = watchIdleBody(req, idleMs, () => reject(new RequestTimeoutException(JobMessages.uploadIdle)));
  });
  return Promise.race([reading, idle]).finally(() => stop());
}

/** Fields and files of one multipart body, or the first limit it broke (nothing more is read). */
function readMultipart(
  req: Request,
  rule: UploadRule,
  dir: string,
): Promise<{ fields: Record<string, string>; files: UploadedFile[] }> {
  return new Promise((resolvePromise, reject) => {
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    const writes: Promise<unknown>[] = [];
    const streams = new Set<Readable>();
    let settled = false;
    let received = 0;
    let pricedFiles = 0;
    let parser: busboy.Busboy;

    const stop = () => {
      settled = true;
      req.off('data', count);
      req.off('close', onClose);
      req.unpipe(parser);
      for (const stream of streams) stream.destroy();
    };
    const fail = (err: HttpException) => {
      if (settled) return;
      stop();
      reject(err);
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > rule.requestBytes) fail(new PayloadTooLargeException(JobMessages.uploadTooLarge));
    };
    const onClose = () => {
      if (!req.complete) fail(new BadRequestException(JobMessages.uploadAborted));
    };

    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          fileSize: rule.fileBytes,
          // One more than allowed, so the extra part's name is checked before it is counted.
          files: rule.maxFiles + 1,
          fields: UPLOAD_REQUEST_LIMITS.fields,
          fieldSize: UPLOAD_REQUEST_LIMITS.fieldBytes,
          parts: rule.maxFiles + 1 + UPLOAD_REQUEST_LIMITS.fields,
        },
      });
    } catch {
      reject(new BadRequestException(JobMessages.badUpload));
      return;
    }
    parser.on('file', (name, stream) => {
      if (settled) return void stream.resume();
      if (!rule.fileField(name))
        return fail(new BadRequestException(`${JobMessages.unexpectedFile} '${name}'`));
      if (files.length >= rule.maxFiles) return fail(new PayloadTooLargeException(JobMessages.tooManyFiles));
      if (rule.pricedFile?.(name)) {
        pricedFiles += 1;
        const balance = balanceBeforeBody.get(req);
        if (balance !== undefined && quoteTool(rule.tool, pricedFiles) > balance) {
          return fail(new HttpException(Messages.notEnoughCredits, HttpStatus.PAYMENT_REQUIRED));
        }
      }
      const file: UploadedFile = { fieldname: name, path: join(dir, `${files.length}`), size: 0 };
      files.push(file);
      streams.add(stream);
      stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
      stream.on('limit', () => fail(new PayloadTooLargeException(rule.fileTooLarge)));
      writes.push(
        pipeline(stream, createWriteStream(file.path, { flags: 'wx' }))
          .then(() => streams.delete(stream))
          .catch((err: unknown) =>
            // A full disk is the studio's fault, not the file's: 503 with its own words.
            fail(diskFullError(err, 'upload staging') ?? new BadRequestException(JobMessages.badUpload)),
          ),
      );
    });
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) {
        return fail(new PayloadTooLargeException(JobMessages.uploadTooLarge));
      }
      fields[name] = value;
    });
    parser.on('filesLimit', () => fail(new PayloadTooLargeException(JobMessages.tooManyFiles)));
    parser.on('fieldsLimit', () => fail(new PayloadTooLargeException(JobMessages.uploadTooLarge)));
    parser.on('partsLimit', () => fail(new PayloadTooLargeException(JobMessages.uploadTooLarge)));
    parser.on('error', () => fail(new BadRequestException(JobMessages.badUpload)));
    parser.on('close', () => {
      void Promise.all(writes).then(() => {
        if (settled) return;
        stop();
        resolvePromise({ fields, files });
      });
    });
    req.on('data', count);
    req.on('close', onClose);
    req.pipe(parser);
  });
}

/** An image tool's upload: these file fields, images of at most 15 MB each, 128 MB in all. */
export const imageUpload = (
  tool: UploadRule['tool'],
  maxFiles: number,
  fileField: (name: string) => boolean,
  pricedFile?: (name: string) => boolean,
): UploadRule => ({
  tool,
  fileField,
  pricedFile,
  maxFiles,
  fileBytes: UPLOAD_LIMITS.imageBytes,
  fileTooLarge: JobMessages.imageTooLarge,
  requestBytes: UPLOAD_REQUEST_LIMITS.imageRequestBytes,
  minUnits: 1,
});

/** A tool endpoint that takes files: the checks before the body, then the streaming parser. */
export const ToolUpload = (rule: UploadRule) =>
  applyDecorators(
    SetMetadata(UPLOAD_RULE, rule),
    TakesFiles(),
    UseGuards(UploadPreflightGuard),
    // In this order: the request's files are read before its Idempotency-Key is judged by them.
    UseInterceptors(UploadInterceptor, IdempotencyInterceptor),
    IdempotentDocs(),
    ApiRequestTimeoutResponse({ description: JobMessages.uploadIdle }),
  );

export const fileNamed = (files: UploadedFile[], name: string) => files.find((f) => f.fieldname === name);
