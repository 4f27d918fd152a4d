import { applyDecorators } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { RateLimit } from '../auth';

/**
 * What every tool controller shares: the per-user job rate limit (one budget across all tools,
 * checked by a guard before any upload is read) and the answers any tool request may get before
 * a job exists.
 */
export const ToolEndpoints = () =>
  applyDecorators(
    ApiTags('generation'),
    RateLimit('jobs'),
    ApiResponse({ status: 402, description: "'Not enough credits!' (nothing queued)" }),
    ApiResponse({
      status: 413,
      description:
        'The upload is larger than its limit (refused from Content-Length, or as soon as it is exceeded), ' +
        'an image declares more than 40 MP, or more pixels than its file can hold for a photo (a ' +
        'decompression bomb, from the header: DECODE_LIMITS.pixelsPerByte above 2048x2048); nothing charged',
    }),
    ApiResponse({
      status: 429,
      description:
        'Too many tool requests, too many uploads in progress, or too many open jobs (MAX_OPEN_JOBS_PER_USER)',
    }),
    ApiResponse({
      status: 422,
      description:
        'A picture removed after a valid report (nothing charged); or the job failed or was cancelled ' +
        "while the request waited (JOB_WAIT_MS): {message: 'error', content: reason, job: the ended job, " +
        'refunded (JobEndedRefusal)}',
    }),
    ApiResponse({ status: 503, description: "'This tool is not available right now' (no engine)" }),
  );
