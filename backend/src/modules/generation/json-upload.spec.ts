import { BadRequestException } from '@nestjs/common';
import type { Request } from 'express';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { JobMessages } from '@studio/contracts';
import { imageUpload } from './generation-uploads';
import { readJsonUpload } from './json-upload';

const rule = imageUpload('superResolution', 1, (name) => name === 'original');

/** A request body that arrives whole: what readJsonUpload reads of express's request. */
function bodyOf(text: string): Request {
  const req = new PassThrough() as unknown as Request & { complete: boolean };
  req.complete = true;
  (req as unknown as PassThrough).end(text);
  return req;
}

describe('readJsonUpload', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
  const body = JSON.stringify({ original: `data:image/png;base64,${png.toString('base64')}`, scale: 2 });

  it('decodes a data URL into its file and keeps the other fields', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'json-upload-'));
    try {
      const { fields, files } = await readJsonUpload(bodyOf(body), rule, dir);
      expect(fields).toEqual({ scale: 2 });
      expect(files).toEqual([{ fieldname: 'original', path: `${dir}/0`, size: png.length }]);
      expect(readFileSync(files[0].path)).toEqual(png);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // CI stop 57: a file stream's error had no listener, so one raised after the upload was refused
  // (a write in flight when the stream was destroyed) ended the process as an uncaught error.
  it('refuses the upload when its file cannot be written, instead of throwing out of the stream', async () => {
    const missing = join(tmpdir(), `json-upload-missing-${process.pid}`, 'nested');
    await expect(readJsonUpload(bodyOf(body), rule, missing)).rejects.toEqual(
      new BadRequestException(JobMessages.badUpload),
    );
  });
});
