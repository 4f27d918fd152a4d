import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobMessages, UPLOAD_LIMITS } from '@studio/contracts';
import { isVideoTooLong, probeVideo, type VideoInfo } from '@studio/inference';

export interface MeasuredVideo {
  data: Buffer;
  durationSeconds: number;
}

/**
 * An uploaded video, measured by ffprobe (the client's `length` is never trusted) with the same
 * probe and limit the engine uses: it must hold a video stream and last at most 30 s.
 */
export async function measureVideo(data: Buffer | undefined): Promise<MeasuredVideo> {
  if (!data || data.length === 0) throw new BadRequestException(JobMessages.videoRequired);
  if (data.length > UPLOAD_LIMITS.videoBytes) throw new PayloadTooLargeException(JobMessages.videoTooLarge);
  const path = join(tmpdir(), `upload-${randomUUID()}`);
  await writeFile(path, data);
  let info: VideoInfo;
  try {
    info = await probeVideo(path);
  } catch {
    throw new BadRequestException(JobMessages.badVideo);
  } finally {
    await rm(path, { force: true });
  }
  if (!Number.isFinite(info.durationSeconds) || info.durationSeconds <= 0) {
    throw new BadRequestException(JobMessages.badVideo);
  }
  if (isVideoTooLong(info.durationSeconds)) throw new BadRequestException(JobMessages.videoTooLong);
  return { data, durationSeconds: info.durationSeconds };
}
