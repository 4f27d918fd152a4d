import { Body, Controller, Get, HttpCode, Param, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiBody,
  ApiConflictResponse,
  ApiGoneResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ok } from '../../common/api-response';
import { requireWholeNumber } from '../../common/validation';
import { CurrentUser, type AuthUser, RateLimit, SameOriginGuard, KeyScope } from '../auth';
import { RetryJobDto } from './job-control.dto';
import { JobControlService } from './job-control.service';
import { Idempotent } from '../../common/idempotency';

/** Inputs a job may have (face and target, image and mask, up to the clone copies). */
const INPUT_INDEX = { min: 0, max: 127 };

/** Cancel, "Run again" and the inputs behind "Edit and run" (rules in JobControlService). */
@ApiTags('generation')
@UseGuards(SameOriginGuard)
@Controller('jobs')
export class JobControlController {
  constructor(private readonly control: JobControlService) {}

  // Before jobs/:id/cancel, whose :id would take 'batches'.
  @Post('batches/:batchId/cancel')
  @Idempotent()
  @KeyScope('tools')
  @HttpCode(200)
  @RateLimit('jobs')
  @ApiOperation({
    summary: 'Cancel every waiting or running job of a bulk Magic Brush batch',
    description:
      'Finished images stay (and stay paid); the open jobs are refunded in full, so exactly the ' +
      "undelivered share comes back. Owner only; support and admin may cancel anyone's (audited).",
  })
  @ApiOkResponse({ description: '{message, content: {cancelled, refunded, jobs: JobView[]}}' })
  @ApiNotFoundResponse({ description: "'Job not found' (also for another user's batch)" })
  @ApiConflictResponse({ description: "'This job has already ended' (no job of the batch was open)" })
  async cancelBatch(@CurrentUser() user: AuthUser, @Param('batchId') batchId: string) {
    return ok(await this.control.cancelBatch(user, batchId));
  }

  @Post(':id/cancel')
  @Idempotent()
  @KeyScope('tools')
  @HttpCode(200)
  @RateLimit('jobs')
  @ApiOperation({
    summary: 'Cancel a waiting or running job; its credits are refunded in full',
    description:
      "Owner only; support and admin may cancel anyone's job (audited with their name). A running " +
      'job is stopped in whatever worker runs it. Exactly one of cancel and finish wins a race.',
  })
  @ApiOkResponse({ description: '{message, content: {cancelled: 1, refunded, jobs: [JobView]}}' })
  @ApiNotFoundResponse({ description: "'Job not found' (also for another user's job)" })
  @ApiConflictResponse({ description: "'This job has already ended' (nothing refunded)" })
  async cancel(@CurrentUser() user: AuthUser, @Param('id') id: string) {
    return ok(await this.control.cancel(user, id));
  }

  @Post(':id/retry')
  @Idempotent()
  @KeyScope('tools')
  @HttpCode(200)
  @RateLimit('jobs')
  @ApiOperation({
    summary: 'Run a job again: the same inputs and settings, charged again as a new job',
    description: "The tool's usual checks apply (engine, folder, credits: 402 when short).",
  })
  @ApiBody({ type: RetryJobDto })
  @ApiOkResponse({ description: '{message, content: JobView} (the new job)' })
  @ApiNotFoundResponse({ description: "'Job not found' (also for another user's job)" })
  @ApiConflictResponse({
    description: "{message: 'error', content: 'The price of this job has changed…', cost: <current price>}",
  })
  @ApiGoneResponse({ description: "'The inputs of this job are no longer stored'" })
  async retry(@CurrentUser() user: AuthUser, @Param('id') id: string, @Body() dto: RetryJobDto) {
    return ok(await this.control.retry(user, id, dto.expectedCost));
  }

  @Get(':id/inputs/:index')
  @KeyScope('read')
  @RateLimit('downloads')
  @ApiOperation({
    summary: 'One stored input of your job (0-based, as the tool took them), for "Edit and run"',
    description: 'JobView.inputCount says how many are still stored. Owner only.',
  })
  @ApiOkResponse({ description: 'The file (image/png, or video/mp4 for a video face swap)' })
  @ApiNotFoundResponse({ description: "'Job not found' (also for another user's job)" })
  @ApiGoneResponse({ description: "'The inputs of this job are no longer stored'" })
  async input(
    @CurrentUser() user: AuthUser,
    @Param('id') id: string,
    @Param('index') index: string,
    @Res() res: Response,
  ) {
    const file = await this.control.input(user, id, requireWholeNumber('Index', index, INPUT_INDEX));
    res.setHeader('Content-Type', file.contentType);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('Cache-Control', 'private, no-cache');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    file.stream.pipe(res);
  }
}
