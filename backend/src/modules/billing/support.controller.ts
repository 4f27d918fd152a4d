import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ok } from '../../common/api-response';
import { CurrentUser, Roles } from '../auth/auth.decorators';
import type { AuthUser } from '../auth/auth-user';
import {
  AdjustDto,
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
  @ApiOperation({ summary: 'Give one user credits back (support)' })
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
  @ApiOperation({ summary: 'Give back everything spent on a tool in a window (each spend once)' })
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
  @ApiOperation({ summary: 'Grant credits (admin)' })
  async grant(@CurrentUser() actor: AuthUser, @Body() dto: GrantDto) {
    return ok(await this.credits.grant(actor, dto));
  }

  @Post('credits/adjust')
  @HttpCode(200)
  @Roles('admin')
  @ApiOperation({ summary: 'Adjust a balance up or down, never below zero (admin)' })
  async adjust(@CurrentUser() actor: AuthUser, @Body() dto: AdjustDto) {
    return ok(await this.credits.adjust(actor, dto));
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
