import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { JobMessages, UPLOAD_LIMITS } from '@studio/contracts';
import { isVideoFrameTooLarge, isVideoTooLong, probeVideo, type VideoInfo } from '@studio/inference';

export interface ProbedVideo {
  /** What ffprobe read: size, frame rate, duration. */
  info: VideoInfo;
  durationSeconds: number;
}

export interface MeasuredVideo extends ProbedVideo {
  data: Buffer;
}

/**
 * An uploaded video, measured by ffprobe (the client's `length` is never trusted) with the same
 * probe and limit the engine uses: it must hold a video stream and last at most 30 s.
 */
export async function probeUploadedVideo(
  upload: { path: string; size: number } | undefined,
): Promise<ProbedVideo> {
  if (!upload || upload.size === 0) throw new BadRequestException(JobMessages.videoRequired);
  if (upload.size > UPLOAD_LIMITS.videoBytes) throw new PayloadTooLargeException(JobMessages.videoTooLarge);
  let info: VideoInfo;
  try {
    info = await probeVideo(upload.path);
  } catch {
    throw new BadRequestException(JobMessages.badVideo);
  }
  if (!Number.isFinite(info.durationSeconds) || info.durationSeconds <= 0) {
    throw new BadRequestException(JobMessages.badVideo);
  }
  if (isVideoTooLong(info.durationSeconds)) throw new BadRequestException(JobMessages.videoTooLong);
  // ffprobe read the header only: frames over the budget are never decoded
  if (isVideoFrameTooLarge(info)) throw new PayloadTooLargeException(JobMessages.videoFrameTooLarge);
  return { info, durationSeconds: info.durationSeconds };
}

/**
 * probeUploadedVideo, then the video read from the temp file it was streamed to (job inputs go
 * to storage as bytes): only a video that passed every check is read into memory.
 */
export async function measureVideo(
  upload: { path: string; size: number } | undefined,
): Promise<MeasuredVideo> {
  const probed = await probeUploadedVideo(upload);
  return { ...probed, data: await readFile(upload!.path) };
}
