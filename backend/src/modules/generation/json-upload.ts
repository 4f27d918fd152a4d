import { BadRequestException, HttpException, PayloadTooLargeException } from '@nestjs/common';
import type { Request } from 'express';
import { createWriteStream, type WriteStream } from 'node:fs';
import { Writable } from 'node:stream';
import { parser as jsonTokens } from 'stream-json';
import { JobMessages, Messages, UPLOAD_REQUEST_LIMITS } from '@studio/contracts';
import { diskFullError } from '../storage';
import type { UploadedFile, UploadRule } from './upload-rule';

/** The data URLs a tool takes: the declared type is checked before a byte of the image is kept. */
const DATA_URL_PREFIX = /^data:image\/(png|jpeg|jpg|webp);base64,$/i;
/** Longest prefix read while looking for the comma (`data:image/jpeg;base64,` is 23). */
const PREFIX_MAX = 40;

interface Token {
  name: string;
  value?: string;
}

type Value = string | number | boolean | null;

/**
 * Reads a tool's JSON body as it arrives (the spec's `{"original": "data:image/png;base64,…"}`),
 * with stream-json's tokenizer: each data URL's base64 is decoded chunk by chunk into its own temp
 * file, as a multipart file would be, so the body is never held in memory. A declared type other
 * than a JPEG, PNG or WebP image is refused when its prefix arrives, an image past the file cap as
 * its bytes pass it; top-level text, number and boolean fields become `fields`.
 */
export function readJsonUpload(
  req: Request,
  rule: UploadRule,
  dir: string,
): Promise<{ fields: Record<string, Value>; files: UploadedFile[] }> {
  const fields: Record<string, Value> = {};
  const files: UploadedFile[] = [];
  let depth = 0;
  let key: string | undefined;
  // the string value being read: a text field, or a file (prefix first, then base64)
  let text: string | undefined;
  let file: { upload: UploadedFile; out: WriteStream; prefix?: string; carry: string } | undefined;
  // set once the body is being read (below): refuses the upload, once, and stops reading
  let fail: (err: unknown) => void = () => undefined;

  const setField = (value: Value) => {
    if (depth !== 1 || key === undefined) throw new BadRequestException(JobMessages.badUpload);
    if (Object.keys(fields).length >= UPLOAD_REQUEST_LIMITS.fields) {
      throw new PayloadTooLargeException(JobMessages.uploadTooLarge);
    }
    fields[key] = value;
  };

  // base64 text is gathered and decoded some 64 KB at a time (the tokenizer hands out short chunks)
  const BATCH = 64 * 1024;
  const writeBase64 = (chunk: string, last: boolean): Promise<void> | undefined => {
    const open = file!;
    open.carry += chunk;
    if (!last && open.carry.length < BATCH) return undefined;
    const all = open.carry.replace(/[^A-Za-z0-9+/_-]/g, '');
    const whole = last ? all.length : all.length - (all.length % 4);
    open.carry = all.slice(whole);
    const bytes = Buffer.from(all.slice(0, whole), 'base64');
    open.upload.size += bytes.length;
    if (open.upload.size > rule.fileBytes) throw new PayloadTooLargeException(rule.fileTooLarge);
    if (bytes.length && !open.out.write(bytes)) {
      return new Promise<void>((resolve) => open.out.once('drain', resolve));
    }
    return undefined;
  };

  /** Handles one token; a promise only when the file being written asks to wait. */
  const onToken = ({ name, value }: Token): Promise<void> | undefined => {
    switch (name) {
      case 'startObject':
      case 'startArray':
        // the body is one object of plain fields: nothing nested is read into memory
        if (depth > 0) throw new BadRequestException(JobMessages.badUpload);
        if (name === 'startArray') throw new BadRequestException(Messages.malformedJson);
        depth++;
        return;
      case 'endObject':
        depth--;
        return;
      case 'keyValue':
        key = value;
        return;
      case 'startString':
        if (depth !== 1 || key === undefined) throw new BadRequestException(JobMessages.badUpload);
        if (rule.fileField(key)) {
          if (files.length >= rule.maxFiles) throw new PayloadTooLargeException(JobMessages.tooManyFiles);
          const upload: UploadedFile = { fieldname: key, path: `${dir}/${files.length}`, size: 0 };
          files.push(upload);
          const out = createWriteStream(upload.path, { flags: 'wx' });
          // A file that cannot be written refuses the upload, as a multipart one; and a write still
          // in flight when fail() destroys the stream reports ERR_STREAM_DESTROYED here, not as an
          // uncaught error that would end the process.
          // A full disk is the studio's fault, not the file's: 503 with its own words.
          out.on('error', (err) =>
            fail(diskFullError(err, 'upload staging') ?? new BadRequestException(JobMessages.badUpload)),
          );
          file = { upload, out, prefix: '', carry: '' };
        } else {
          text = '';
        }
        return;
      case 'stringChunk':
        if (file?.prefix !== undefined) {
          const seen = file.prefix + value!;
          const comma = seen.indexOf(',');
          if (comma < 0) {
            if (seen.length > PREFIX_MAX) throw new BadRequestException(JobMessages.badImage);
            file.prefix = seen;
            return;
          }
          if (!DATA_URL_PREFIX.test(seen.slice(0, comma + 1)))
            throw new BadRequestException(JobMessages.badImage);
          file.prefix = undefined;
          return writeBase64(seen.slice(comma + 1), false);
        } else if (file) {
          return writeBase64(value!, false);
        } else if (text !== undefined) {
          text += value!;
          if (text.length > UPLOAD_REQUEST_LIMITS.fieldBytes) {
            throw new PayloadTooLargeException(JobMessages.uploadTooLarge);
          }
        }
        return;
      case 'endString':
        if (file) {
          const open = file;
          file = undefined;
          if (open.prefix !== undefined) throw new BadRequestException(JobMessages.badImage);
          file = open;
          const flushed = writeBase64('', true);
          file = undefined;
          return Promise.resolve(flushed).then(
            () =>
              new Promise<void>((resolve, reject) =>
                open.out.end((err?: Error | null) => (err ? reject(err) : resolve())),
              ),
          );
        } else if (text !== undefined) {
          setField(text);
          text = undefined;
        }
        return;
      case 'numberValue':
        setField(Number(value));
        return;
      case 'trueValue':
        setField(true);
        return;
      case 'falseValue':
        setField(false);
        return;
      case 'nullValue':
        setField(null);
        return;
    }
  };

  return new Promise((resolve, reject) => {
    const tokens = jsonTokens({
      packKeys: true,
      streamKeys: false,
      packStrings: false,
      packNumbers: true,
      streamNumbers: false,
    });
    const consumer = new Writable({
      objectMode: true,
      write(token: Token, _encoding, done) {
        let waiting: Promise<void> | undefined;
        try {
          waiting = onToken(token);
        } catch (err) {
          return done(err as Error);
        }
        if (waiting) waiting.then(() => done(), done);
        else done();
      },
    });
    let settled = false;
    let received = 0;
    const stop = () => {
      settled = true;
      req.off('data', count);
      req.off('close', onClose);
      req.unpipe(tokens);
    };
    // Stops reading (the caller answers with Connection: close) and keeps nothing half-written.
    fail = (err: unknown) => {
      if (settled) return;
      stop();
      tokens.destroy();
      consumer.destroy();
      file?.out.destroy();
      reject(
        err instanceof HttpException
          ? err
          : (diskFullError(err, 'upload staging') ?? new BadRequestException(Messages.malformedJson)),
      );
    };
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > rule.requestBytes) fail(new PayloadTooLargeException(JobMessages.uploadTooLarge));
    };
    const onClose = () => {
      if (!req.complete) fail(new BadRequestException(JobMessages.uploadAborted));
    };
    tokens.on('error', fail);
    consumer.on('error', fail);
    consumer.on('finish', () => {
      if (settled) return;
      stop();
      if (depth !== 0 || file || text !== undefined)
        return reject(new BadRequestException(Messages.malformedJson));
      resolve({ fields, files });
    });
    req.on('data', count);
    req.on('close', onClose);
    req.pipe(tokens).pipe(consumer);
  });
}
