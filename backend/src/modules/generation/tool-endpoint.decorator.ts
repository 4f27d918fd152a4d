import { applyDecorators, UseGuards } from '@nestjs/common';
import { ApiResponse, ApiTags } from '@nestjs/swagger';
import { SkipThrottle, ThrottlerGuard } from '@nestjs/throttler';

/**
 * What every tool controller shares: the per-user job rate limit (not the login one) and the
 * answers any tool request may get before a job exists.
 */
export const ToolEndpoints = () =>
  applyDecorators(
    ApiTags('generation'),
    UseGuards(ThrottlerGuard),
    SkipThrottle({ auth: true }),
    ApiResponse({ status: 402, description: "'Not enough credits!' (nothing queued)" }),
    ApiResponse({ status: 429, description: 'Too many tool requests' }),
    ApiResponse({ status: 503, description: "'This tool is not available right now' (no engine)" }),
  );
