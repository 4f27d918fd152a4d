import { BadRequestException, Controller, Get, Inject, Query } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ok } from '../../common/api-response';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { Roles } from '../auth';
import { isTimeZone } from './audit-stats';
import { LogQueryDto, StatsQueryDto } from './audit.dto';
import { AuditService } from './audit.service';

@ApiTags('admin')
@Controller()
export class AuditController {
  constructor(
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('getlogs')
  @Roles('admin')
  @ApiOperation({ summary: 'Activity log, newest first (admins only)' })
  @ApiOkResponse({ description: '{message: "success", content: LogEntry[]}' })
  @ApiForbiddenResponse({ description: 'Not an admin' })
  async getLogs() {
    return ok(await this.audit.latest());
  }

  @Get('admin/logs')
  @Roles('admin')
  @ApiOperation({
    summary: 'Activity log, newest first, one page at a time, with filters (admins only)',
    description:
      'Keyset paging: the first page has no `before`; pass its `next` as `before` for the next ' +
      'one. No total is given (counting a large log is a scan of it).',
  })
  @ApiOkResponse({
    description: '{message: "success", content: {items: LogEntry[], pageSize, next: cursor | null, page?}}',
  })
  @ApiBadRequestResponse({ description: 'A bad cursor, page, page size or date' })
  @ApiForbiddenResponse({ description: 'Not an admin' })
  async logs(@Query() query: LogQueryDto) {
    if (query.from && query.to && new Date(query.from) > new Date(query.to)) {
      throw new BadRequestException('from must not be after to');
    }
    return ok(await this.audit.page(query));
  }

  @Get('admin/stats')
  @Roles('admin')
  @ApiOperation({ summary: 'Credits used today/yesterday/week/month and face swaps per day (admins only)' })
  @ApiOkResponse({ description: '{message: "success", content: AdminStats}, by the calendar of the zone tz' })
  @ApiBadRequestResponse({ description: 'Not an IANA time zone' })
  @ApiForbiddenResponse({ description: 'Not an admin' })
  async stats(@Query() query: StatsQueryDto) {
    const timeZone = query.tz || 'UTC';
    if (!isTimeZone(timeZone)) throw new BadRequestException('tz must be an IANA time zone');
    if (query.now && this.config.NODE_ENV !== 'test') throw new BadRequestException('now is for tests only');
    return ok(await this.audit.stats(timeZone, query.now ? new Date(query.now) : new Date()));
  }
}
