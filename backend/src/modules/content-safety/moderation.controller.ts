import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { ok } from '../../common/api-response';
import { CurrentUser, Roles, type AuthUser } from '../auth';
import { ModerationQueue } from './moderation-queue';

/** The moderation queue (support staff and admins): held outputs, released or removed, each audited. */
@ApiTags('support')
@ApiForbiddenResponse({ description: 'Not support staff or admin' })
@Controller('moderation')
export class ModerationController {
  constructor(private readonly queue: ModerationQueue) {}

  @Get('held')
  @Roles('support', 'admin')
  @ApiOperation({
    summary: 'Outputs held for review, oldest first: reason, class scores, face age estimates',
  })
  @ApiOkResponse({ description: '{message, content: HeldItem[]}' })
  async held() {
    return ok(await this.queue.held());
  }

  @Get('held/:itemId/file')
  @Roles('support', 'admin')
  @ApiOperation({ summary: "A held output's file, for the moderator to look at" })
  async file(@Param('itemId') itemId: string, @Res() res: Response) {
    const object = await this.queue.file(itemId);
    res.setHeader('Content-Type', object.contentType);
    res.setHeader('Cache-Control', 'no-store');
    object.stream.pipe(res);
  }

  @Post('held/:itemId/release')
  @HttpCode(200)
  @Roles('support', 'admin')
  @ApiOperation({ summary: 'Release a held output: it appears in its owner’s folder (audited)' })
  async release(@CurrentUser() staff: AuthUser, @Param('itemId') itemId: string) {
    await this.queue.decide(staff, itemId, 'released');
    return ok({ itemId, decision: 'released' });
  }

  @Post('held/:itemId/remove')
  @HttpCode(200)
  @Roles('support', 'admin')
  @ApiOperation({ summary: 'Remove a held output: its file is deleted, the owner never sees it (audited)' })
  async remove(@CurrentUser() staff: AuthUser, @Param('itemId') itemId: string) {
    await this.queue.decide(staff, itemId, 'removed');
    return ok({ itemId, decision: 'removed' });
  }
}
