import {
  BadRequestException,
  Controller,
  HttpCode,
  PayloadTooLargeException,
  Post,
  Req,
  ServiceUnavailableException,
} from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  DECODE_LIMITS,
  UPLOAD_LIMITS,
  VerifyMessages,
  type ApiResponse,
  type VerifyResult,
} from '@studio/contracts';
import { DecodeBudgetError, isVideoFrameTooLarge, isVideoTooLong, probeVideo } from '@studio/inference';
import { ok } from '../../common/api-response';
import { receiveSingleFileForm } from '../../common/single-file-form';
import { TakesFiles } from '../../common/request-origin';
import { Public, type AuthUser, RateLimit } from '../auth';
import { ProvenanceService } from './provenance.service';

const IMAGE_TYPES: ReadonlySet<string> = new Set(UPLOAD_LIMITS.imageTypes);

/**
 * The public verify page's API: anyone may send one image or video and learn whether it carries
 * this studio's C2PA manifest and watermark. Rate-limited per address; uploads capped as the
 * tools' uploads are (images 15 MB, videos 100 MB and 30 s) and by the decoding budget read from the
 * header before anything is decoded (images 4096x4096, the largest output; video frames 4K).
 */
@ApiTags('provenance')
@Controller('verify')
export class VerifyController {
  constructor(private readonly provenance: ProvenanceService) {}

  @Public()
  @RateLimit('verify')
  @TakesFiles()
  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Check a file for this studio’s C2PA manifest and invisible watermark (public)',
    description:
      'No personal data is shown; an admin also sees the job and owner of a watermarked output (audited).',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      properties: { file: { type: 'string', format: 'binary' } },
      required: ['file'],
    },
  })
  @ApiOkResponse({ description: 'manifest state (none, valid, tampered, foreign) and watermark state' })
  @ApiBadRequestResponse({ description: 'No file, or not an image or video' })
  @ApiPayloadTooLargeResponse({ description: 'Over the upload size, pixel count or video length' })
  async verify(@Req() req: Request & { user?: AuthUser }): Promise<ApiResponse<VerifyResult>> {
    if (!this.provenance.enabled) throw new ServiceUnavailableException(VerifyMessages.unavailable);
    const dir = await mkdtemp(join(tmpdir(), 'verify-'));
    try {
      const file = await receive(req, join(dir, 'upload'));
      const kind = await checkMedia(file);
      const result = await this.provenance.verify(req.user, { path: file, kind }).catch((err: unknown) => {
        // the reader's own header check (a second line behind checkMedia's)
        if (err instanceof DecodeBudgetError) throw new PayloadTooLargeException(VerifyMessages.tooLarge);
        throw err;
      });
      if (!result) throw new ServiceUnavailableException(VerifyMessages.unavailable);
      return ok(result);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

/** Streams the one `file` part to disk; refused (413) as soon as it passes the video cap. */
async function receive(req: Request, path: string): Promise<string> {
  const messages = { badForm: VerifyMessages.fileRequired, tooLarge: VerifyMessages.tooLarge };
  const { file } = await receiveSingleFileForm(req, path, {
    fields: [],
    fileBytes: UPLOAD_LIMITS.videoBytes,
    messages,
  });
  if (!file) throw new BadRequestException(VerifyMessages.fileRequired);
  return file;
}

/** Image or video by its bytes (never its name), within the tools' upload limits. */
export async function checkMedia(path: string): Promise<'image' | 'video'> {
  const handle = await open(path, 'r');
  const head = Buffer.alloc(16);
  let size: number;
  try {
    await handle.read(head, 0, 16, 0);
    size = (await handle.stat()).size;
  } finally {
    await handle.close();
  }
  if (size === 0) throw new BadRequestException(VerifyMessages.fileRequired);
  const isMp4 = head.subarray(4, 8).toString('latin1') === 'ftyp';
  const isWebm = head.readUInt32BE(0) === 0x1a45dfa3;
  if (isMp4 || isWebm) {
    let video: Awaited<ReturnType<typeof probeVideo>>;
    try {
      video = await probeVideo(path);
    } catch {
      throw new BadRequestException(VerifyMessages.notMedia);
    }
    if (isVideoTooLong(video.durationSeconds)) throw new PayloadTooLargeException(VerifyMessages.tooLarge);
    if (isVideoFrameTooLarge(video)) throw new PayloadTooLargeException(VerifyMessages.videoFrameTooLarge);
    return 'video';
  }
  let format: string | undefined;
  let pixels = 0;
  try {
    // the header alone: a decompression bomb is measured here, never decoded
    const meta = await sharp(path, { limitInputPixels: false }).metadata();
    format = meta.format;
    pixels = (meta.width ?? 0) * (meta.height ?? 0);
  } catch {
    throw new BadRequestException(VerifyMessages.notMedia);
  }
  if (!format || !IMAGE_TYPES.has(format) || pixels === 0) {
    throw new BadRequestException(VerifyMessages.notMedia);
  }
  if (size > UPLOAD_LIMITS.imageBytes) throw new PayloadTooLargeException(VerifyMessages.tooLarge);
  if (pixels > DECODE_LIMITS.outputImagePixels) {
    throw new PayloadTooLargeException(VerifyMessages.imageTooLarge);
  }
  return 'image';
}
