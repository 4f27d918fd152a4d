import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiBody,
  ApiConsumes,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  REPORT_CATEGORIES,
  REPORTER_ROLES,
  type ApiResponse,
  type ReportReceipt,
  type ReportView,
  type TransparencyReport,
} from '@studio/contracts';
import { ok } from '../../common/api-response';
import { TakesFiles } from '../../common/request-origin';
import { CurrentUser, Public, RateLimit, Roles, type AuthUser } from '../auth';
import { checkMedia } from '../provenance';
import {
  AppealDecisionDto,
  AppealDto,
  ReportDecisionDto,
  ReportListQuery,
  TransparencyQuery,
} from './reports.dto';
import { parseReport, receiveReportForm } from './report-form';
import { ReportsService } from './reports.service';

/**
 * The public notice-and-removal channel (TAKE IT DOWN Act; EU DSA Art. 16): anyone may report an
 * output without an account. Capped like the verify page (images 15 MB and 4096x4096, videos
 * 100 MB, 30 s and 4K frames, checked from the header before decoding) and rate-limited per address.
 */
@ApiTags('reports')
@Controller()
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Public()
  @RateLimit('reports')
  @TakesFiles()
  @Post('reports')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Report content shown without consent or otherwise illegal (public, no login)',
    description:
      'A copy of the image or video and/or the address where it appears, the explanation, contact details, the good-faith statement and a typed signature. The receipt (with the 48-hour deadline) is mailed to the reporter.',
  })
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    schema: {
      type: 'object',
      properties: {
        file: { type: 'string', format: 'binary' },
        url: { type: 'string' },
        category: { type: 'string', enum: [...REPORT_CATEGORIES] },
        reporterRole: { type: 'string', enum: [...REPORTER_ROLES] },
        name: { type: 'string' },
        email: { type: 'string' },
        explanation: { type: 'string' },
        goodFaith: { type: 'string', enum: ['true'] },
        signature: { type: 'string' },
      },
      required: ['category', 'reporterRole', 'name', 'email', 'explanation', 'goodFaith', 'signature'],
    },
  })
  @ApiOkResponse({ description: '{message, report: {id, receivedAt, deadline}}' })
  @ApiBadRequestResponse({
    description: 'A required field missing or invalid, or the file not an image or video',
  })
  @ApiPayloadTooLargeResponse({ description: 'Over the upload size, pixel count or video length' })
  async submit(@Req() req: Request): Promise<ApiResponse<{ report: ReportReceipt }>> {
    const dir = await mkdtemp(join(tmpdir(), 'report-'));
    try {
      const form = await receiveReportForm(req, join(dir, 'upload'));
      const report = parseReport(form.fields, Boolean(form.file));
      let file: { path: string; kind: 'image' | 'video'; type: string } | undefined;
      if (form.file) {
        const kind = await checkMedia(form.file);
        file = { path: form.file, kind, type: kind === 'image' ? 'image/*' : 'video/*' };
      }
      return ok({ report: await this.reports.submit(report, file) });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  @Get('admin/reports')
  @Roles('admin', 'support')
  @ApiOperation({ summary: 'The reports queue: open reports by time left on their 48-hour clock (staff)' })
  @ApiOkResponse({ description: '{reports: ReportView[]}' })
  async list(@CurrentUser() staff: AuthUser, @Query() query: ReportListQuery) {
    return ok({ reports: await this.reports.list(staff, query.status ?? 'open') });
  }

  // Before admin/reports/:id (the routes are matched in order).
  @Get('admin/reports/transparency')
  @Roles('admin', 'support')
  @ApiOperation({
    summary:
      'Transparency report counts over a period: received, removed, rejected, appealed, appeals upheld and reversed, median and 95th percentile time to decision, share decided within 48 hours (staff)',
    description:
      'Computed from the records (statuses and timestamps) only. Period [from, to), at most 731 days.',
  })
  @ApiOkResponse({ description: '{transparency: TransparencyReport}' })
  @ApiBadRequestResponse({ description: "'Give the period as two dates…'" })
  async transparency(
    @Query() query: TransparencyQuery,
  ): Promise<ApiResponse<{ transparency: TransparencyReport }>> {
    return ok({ transparency: await this.reports.transparency(query.from, query.to) });
  }

  @Get('admin/reports/transparency.csv')
  @Roles('admin', 'support')
  @ApiOperation({ summary: 'The same counts as a CSV file, one row per figure (staff)' })
  @ApiOkResponse({ description: 'text/csv: figure,value' })
  @ApiBadRequestResponse({ description: "'Give the period as two dates…'" })
  async transparencyCsv(@Query() query: TransparencyQuery, @Res() res: Response): Promise<void> {
    const report = await this.reports.transparency(query.from, query.to);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="transparency-${report.from.slice(0, 10)}-${report.to.slice(0, 10)}.csv"`,
    );
    res.setHeader('Cache-Control', 'no-store');
    res.send(transparencyCsv(report));
  }

  @Get('admin/reports/:id')
  @Roles('admin', 'support')
  @ApiOperation({ summary: 'One report with its matched items and owners (staff)' })
  @ApiNotFoundResponse({ description: "'Report not found'" })
  async get(
    @CurrentUser() staff: AuthUser,
    @Param('id') id: string,
  ): Promise<ApiResponse<{ report: ReportView }>> {
    return ok({ report: await this.reports.get(staff, id) });
  }

  @Get('admin/reports/:id/file')
  @Roles('admin', 'support')
  @ApiOperation({ summary: 'The copy the reporter uploaded, kept until the decision (staff)' })
  @ApiNotFoundResponse({ description: "'Report not found' (or no file, or already decided)" })
  async file(@CurrentUser() staff: AuthUser, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const file = await this.reports.file(staff, id);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Disposition', 'attachment');
    res.send(file.data);
  }

  @Post('admin/reports/:id/decision')
  @HttpCode(200)
  @Roles('admin', 'support')
  @ApiOperation({
    summary:
      'Decide a report once: remove every matched item in every account (and block the picture), or reject; with a reason (staff)',
  })
  @ApiNotFoundResponse({ description: "'Report not found'" })
  async decide(@CurrentUser() staff: AuthUser, @Param('id') id: string, @Body() dto: ReportDecisionDto) {
    return ok({ report: await this.reports.decide(staff, id, dto) });
  }

  @Post('admin/reports/:id/appeals/:itemId/decision')
  @HttpCode(200)
  @Roles('admin', 'support')
  @ApiOperation({
    summary:
      "Decide an owner's appeal once (DSA Art. 20(4)): upheld (the removal stands) or reversed (the item is put back); not by the person who decided the removal (staff)",
  })
  @ApiNotFoundResponse({ description: "'Report not found', or no appeal on this item" })
  async decideAppeal(
    @CurrentUser() staff: AuthUser,
    @Param('id') id: string,
    @Param('itemId') itemId: string,
    @Body() dto: AppealDecisionDto,
  ): Promise<ApiResponse<{ report: ReportView }>> {
    return ok({ report: await this.reports.decideAppeal(staff, id, itemId, dto) });
  }

  @Post('reports/appeals/:itemId')
  @HttpCode(200)
  @ApiOperation({ summary: "Appeal once against the removal of one's own item after a report (DSA Art. 20)" })
  @ApiNotFoundResponse({ description: 'No removal of this item of yours' })
  async appeal(@CurrentUser() owner: AuthUser, @Param('itemId') itemId: string, @Body() dto: AppealDto) {
    return ok(await this.reports.appeal(owner, itemId, dto.text));
  }
}

/** figure,value rows (numbers only: nothing a user wrote goes into the file). */
export function transparencyCsv(report: TransparencyReport): string {
  const rows: [string, string | number | null][] = [
    ['period_from', report.from],
    ['period_to', report.to],
    ['notices_received', report.received],
    ['notices_removed', report.removed],
    ['notices_rejected', report.rejected],
    ['items_removed', report.itemsRemoved],
    ['appeals_filed', report.appealed],
    ['appeals_upheld', report.appealsUpheld],
    ['appeals_reversed', report.appealsReversed],
    ['median_hours_to_decision', report.medianHoursToDecision],
    ['p95_hours_to_decision', report.p95HoursToDecision],
    ['share_decided_within_48h', report.decidedWithin48h],
    ['open_at_end_of_period', report.openAtEnd],
  ];
  return ['figure,value', ...rows.map(([k, v]) => `${k},${v ?? ''}`)].join('\r\n') + '\r\n';
}
