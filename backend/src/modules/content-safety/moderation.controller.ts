import { Body, Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { ok } from '../../common/api-response';
import { CurrentUser, Roles, type AuthUser } from '../auth';
import { ModerationDecisionDto } from './moderation.dto';
import { ModerationQueue } from './moderation-queue';

/**
 * The moderation queue (moderators and admins): held outputs, released or removed with a reason,
 * each audited. Nobody decides on, or looks at, their own held outputs.
 */
@ApiTags('moderation')
@ApiForbiddenResponse({ description: 'Not a moderator or admin; or the output is your own' })
@Controller('moderation')
export class ModerationController {
  constructor(private readonly queue: ModerationQueue) {}

  @Get('held')
  @Roles('moderator', 'admin')
  @ApiOperation({
    summary: 'Outputs held for review, oldest first: reason, class scores, face age estimates',
  })
  @ApiOkResponse({ description: '{message, content: HeldItem[]}' })
  async held() {
    return ok(await this.queue.held());
  }

  @Get('held/:itemId/file')
  @Roles('moderator', 'admin')
  @ApiOperation({ summary: "A held output's file, for the moderator to look at" })
  async file(@CurrentUser() staff: AuthUser, @Param('itemId') itemId: string, @Res() res: Response) {
    const object = await this.queue.file(staff, itemId);
    res.setHeader('Content-Type', object.contentType);
    res.setHeader('Cache-Control', 'no-store');
    object.stream.pipe(res);
  }

  @Post('held/:itemId/release')
  @HttpCode(200)
  @Roles('moderator', 'admin')
  @ApiOperation({ summary: 'Release a held output: it appears in its owner’s folder (audited, owner told)' })
  @ApiOkResponse({ description: '{message, content: ModerationOutcome}' })
  @ApiConflictResponse({ description: 'Decided already: nothing changes' })
  async release(
    @CurrentUser() staff: AuthUser,
    @Param('itemId') itemId: string,
    @Body() dto: ModerationDecisionDto,
  ) {
    return ok(await this.queue.decide(staff, itemId, 'released', dto.reason));
  }

  @Post('held/:itemId/remove')
  @HttpCode(200)
  @Roles('moderator', 'admin')
  @ApiOperation({
    summary:
      'Remove a held output: its file is deleted, the owner is told why and gets its share of a paid job back, once (audited)',
  })
  @ApiOkResponse({ description: '{message, content: ModerationOutcome}' })
  @ApiConflictResponse({ description: 'Decided already: nothing changes' })
  async remove(
    @CurrentUser() staff: AuthUser,
    @Param('itemId') itemId: string,
    @Body() dto: ModerationDecisionDto,
  ) {
    return ok(await this.queue.decide(staff, itemId, 'removed', dto.reason));
  }
}
