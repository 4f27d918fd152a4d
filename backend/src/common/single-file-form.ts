import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import busboy from 'busboy';
import type { Request } from 'express';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

/** What a public multipart form holds: its known text fields and, when sent, its one file at `path`. */
export interface SingleFileForm {
  fields: Record<string, string>;
  file?: string;
}

export interface SingleFileFormRules {
  /** Text fields read; any other is dropped. */
  fields: readonly string[];
  /** Bytes per text field; a longer one is refused with `messages.fieldTooLong`. */
  fieldBytes?: number;
  /** Bytes of the file; past it the upload is refused with 413 `messages.tooLarge` as it streams. */
  fileBytes: number;
  messages: { badForm: string; tooLarge: string; fieldTooLong?: string };
}

/**
 * Streams a multipart form with one file part named `file` to `path` (the public verify and
 * report pages): nothing of the file is held in memory, and a file past its cap is refused while
 * it arrives. A second file part, or one under another name, is read and dropped.
 */
export function receiveSingleFileForm(
  req: Request,
  path: string,
  rules: SingleFileFormRules,
): Promise<SingleFileForm> {
  const { messages } = rules;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: 1,
          fields: rules.fields.length,
          ...(rules.fieldBytes !== undefined ? { fieldSize: rules.fieldBytes } : {}),
          fileSize: rules.fileBytes,
          // the fields, the file and one spare part (an unknown field is read and dropped)
          parts: rules.fields.length + 2,
        },
      });
    } catch {
      reject(new BadRequestException(messages.badForm));
      return;
    }
    const fields: Record<string, string> = {};
    let writing: Promise<void> | undefined;
    let tooLarge = false;
    let fieldTooLong = false;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fieldTooLong = true;
      if (rules.fields.includes(name)) fields[name] = value;
    });
    parser.on('file', (name, stream) => {
      if (name !== 'file' || writing) {
        stream.resume();
        return;
      }
      stream.on('limit', () => {
        tooLarge = true;
      });
      writing = pipeline(stream, createWriteStream(path));
    });
    parser.on('error', () => reject(new BadRequestException(messages.badForm)));
    parser.on('close', () => {
      (writing ?? Promise.resolve()).then(
        () => {
          if (tooLarge) return reject(new PayloadTooLargeException(messages.tooLarge));
          if (fieldTooLong) return reject(new BadRequestException(messages.fieldTooLong ?? messages.badForm));
          resolve({ fields, ...(writing ? { file: path } : {}) });
        },
        () => reject(new BadRequestException(messages.badForm)),
      );
    });
    req.on('aborted', () => reject(new BadRequestException(messages.badForm)));
    req.pipe(parser);
  });
}
