import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { ApiHeader } from '@nestjs/swagger';
import type { Request } from 'express';
import { JOB_REF_HEADER, JOB_REF_PATTERN } from '@studio/contracts';

/**
 * The submission's mark from JOB_REF_HEADER, or undefined when absent or not a short token. It is
 * only echoed back to its owner on the job (JobView.ref): nothing is decided from it.
 */
export const JobRef = createParamDecorator((_: unknown, context: ExecutionContext): string | undefined => {
  const value = context.switchToHttp().getRequest<Request>().headers[JOB_REF_HEADER];
  return typeof value === 'string' && JOB_REF_PATTERN.test(value) ? value : undefined;
});

/** Documents the optional header on a tool endpoint that reads it. */
export const JobRefHeader = () =>
  ApiHeader({
    name: JOB_REF_HEADER,
    required: false,
    description:
      "The browser's own mark of this submission (8–64 letters, digits, '-' or '_'), echoed as the job's `ref` so the tab that sent it recognises its job before the answer",
  });
