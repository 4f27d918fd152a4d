import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import type { Response } from 'express';
import type { CreditChangeAnswer } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Roles, type AuthUser } from '../auth';
import {
  AdjustDto,
  ApprovalDecisionDto,
  ApprovalParams,
  BulkReimburseDto,
  GrantDto,
  HistoryQueryDto,
  IssuePatreonSecretsDto,
  ReimburseDto,
} from './billing.dto';
import { PatreonService } from './patreon.service';
import { SupportCreditsService } from './support-credits.service';

@ApiTags('support')
@ApiForbiddenResponse({ description: 'Not support staff or admin' })
@Controller('support')
export class SupportController {
  constructor(private readonly credits: SupportCreditsService) {}

  @Get('users/:username/credits')
  @Roles('support', 'admin')
  @ApiOperation({ summary: "A user's credit history (support)" })
  @ApiOkResponse({ description: '{message, content: {items, total, page, pageSize}}' })
  async history(@Param('username') username: string, @Query() query: HistoryQueryDto) {
    return ok(await this.credits.historyOf(username, query.page, query.pageSize));
  }

  @Post('reimburse')
  @HttpCode(200)
  @Roles('support', 'admin')
  @ApiOperation({
    summary: 'Give one user credits back (support)',
    description:
      'Never to oneself (403); capped per call and per UTC day by role (STAFF_CREDIT_LIMITS, 403).',
  })
  @ApiConflictResponse({ description: 'The requestId was already used for another user or amount' })
  async reimburse(@CurrentUser() actor: AuthUser, @Body() dto: ReimburseDto) {
    return ok(await this.credits.reimburse(actor, dto));
  }

  @Post('reimburse/tool/preview')
  @HttpCode(200)
  @Roles('support', 'admin')
  @ApiOperation({ summary: 'Who spent what on a tool in a time window, not yet reimbursed' })
  async previewBulk(@Body() dto: BulkReimburseDto) {
    return ok(await this.credits.previewBulk(dto.tool, dto.from, dto.to));
  }

  @Post('reimburse/tool')
  @HttpCode(200)
  @Roles('support', 'admin')
  @ApiOperation({
    summary: 'Give back everything spent on a tool in a window (each spend once)',
    description: "Refused (403) when the caller's own spends are in the window.",
  })
  async confirmBulk(@CurrentUser() actor: AuthUser, @Body() dto: BulkReimburseDto) {
    return ok(await this.credits.confirmBulk(actor, dto));
  }
}

@ApiTags('admin')
@ApiForbiddenResponse({ description: 'Not an admin' })
@Controller('admin')
export class AdminCreditsController {
  constructor(
    private readonly credits: SupportCreditsService,
    private readonly patreon: PatreonService,
  ) {}

  @Post('credits/grant')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({
    summary: 'Grant credits (admin)',
    description:
      'Never to oneself; capped per call and per UTC day. Above CREDIT_APPROVAL_THRESHOLD it becomes a request another admin approves (202).',
  })
  @ApiOkResponse({ description: '{message, content: {username, amount, balance}}' })
  @ApiAcceptedResponse({ description: '{message, content: {username, amount, pending: CreditApproval}}' })
  @ApiConflictResponse({ description: 'The requestId was already used for another user or amount' })
  async grant(
    @CurrentUser() actor: AuthUser,
    @Body() dto: GrantDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    return answer(res, await this.credits.grant(actor, dto));
  }

  @Post('credits/adjust')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({
    summary: 'Adjust a balance up or down, never below zero (admin)',
    description: 'Increases follow the grant rules (self refused, caps, approval above the threshold: 202).',
  })
  @ApiConflictResponse({ description: 'The requestId was already used for another user or amount' })
  async adjust(
    @CurrentUser() actor: AuthUser,
    @Body() dto: AdjustDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    return answer(res, await this.credits.adjust(actor, dto));
  }

  @Get('credits/approvals')
  @Roles('admin')
  @ApiOperation({ summary: 'Grants waiting for a second admin, then the latest decided (admin)' })
  @ApiOkResponse({ description: '{message, content: CreditApproval[]}' })
  async approvals() {
    return ok(await this.credits.listApprovals());
  }

  @Post('credits/approvals/:id')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({
    summary: 'Approve (credits once) or reject a waiting grant (another admin than the requester)',
  })
  @ApiOkResponse({ description: '{message, content: CreditApproval}' })
  @ApiConflictResponse({ description: 'Already decided' })
  async decide(
    @CurrentUser() admin: AuthUser,
    @Param() params: ApprovalParams,
    @Body() dto: ApprovalDecisionDto,
  ) {
    return ok(await this.credits.decide(admin, params.id, dto.decision));
  }

  @Post('patreonSecrets')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({ summary: 'Issue one-time Patreon secrets (admin)' })
  @ApiOkResponse({ description: '{message, content: string[]}' })
  async issuePatreonSecrets(@CurrentUser() admin: AuthUser, @Body() dto: IssuePatreonSecretsDto) {
    return ok(await this.patreon.issue(admin, dto.count ?? 1));
  }
}

/** 202 when the change waits for another admin's approval, 200 when it was applied. */
function answer(res: Response, change: CreditChangeAnswer) {
  if (change.pending) res.status(202);
  return ok(change);
}
