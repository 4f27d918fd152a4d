import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import ffmpeg from 'fluent-ffmpeg';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobMessages, UPLOAD_LIMITS, VIDEO_MAX_SECONDS } from '@studio/contracts';

export interface MeasuredVideo {
  data: Buffer;
  durationSeconds: number;
}

/**
 * An uploaded video, measured by ffprobe (the client's `length` is never trusted): it must hold a
 * video stream and last at most VIDEO_MAX_SECONDS.
 */
export async function measureVideo(data: Buffer | undefined): Promise<MeasuredVideo> {
  if (!data || data.length === 0) throw new BadRequestException(JobMessages.videoRequired);
  if (data.length > UPLOAD_LIMITS.videoBytes) throw new PayloadTooLargeException(JobMessages.videoTooLarge);
  const path = join(tmpdir(), `upload-${randomUUID()}`);
  await writeFile(path, data);
  try {
    const probe = await new Promise<ffmpeg.FfprobeData>((resolve, reject) =>
      ffmpeg.ffprobe(path, (err, result) => (err ? reject(err) : resolve(result))),
    ).catch(() => {
      throw new BadRequestException(JobMessages.badVideo);
    });
    const video = probe.streams.find((s) => s.codec_type === 'video');
    const durationSeconds = Number(probe.format.duration ?? video?.duration);
    if (!video || !Number.isFinite(durationSeconds) || durationSeconds <= 0) {
      throw new BadRequestException(JobMessages.badVideo);
    }
    if (durationSeconds > VIDEO_MAX_SECONDS) throw new BadRequestException(JobMessages.videoTooLong);
    return { data, durationSeconds };
  } finally {
    await rm(path, { force: true });
  }
}
