import path from 'node:path';
import { DECODE_LIMITS } from '@studio/contracts';

/**
 * ffmpeg and ffprobe as every upload meets them: through a wrapper that caps their address space
 * (`ulimit -v`, DECODER_MEMORY_MB, default DECODE_LIMITS.ffmpegMemoryMb), so a file that makes
 * them allocate without bound fails on its own instead of taking the machine's memory. The real
 * binaries stay FFMPEG_PATH / FFPROBE_PATH (or the PATH's).
 */
const DIR = path.resolve(__dirname, '..', 'src', 'decoders');
export const CAPPED_FFMPEG = path.join(DIR, 'ffmpeg-capped');
export const CAPPED_FFPROBE = path.join(DIR, 'ffprobe-capped');
process.env.DECODER_MEMORY_MB ||= String(DECODE_LIMITS.ffmpegMemoryMb);

/** Whether a video's frames (as ffprobe declares them) are over the decoding budget. */
export function isVideoFrameTooLarge(info: { width: number; height: number }): boolean {
  return info.width * info.height > DECODE_LIMITS.videoFramePixels;
}

/** A file whose header declares more than a decoder's budget: refused, never decoded. */
export class DecodeBudgetError extends Error {
  override readonly name = 'DecodeBudgetError';
}
