import { Controller, Get } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ok } from '../../common/api-response';
import { Roles } from '../auth/auth.decorators';
import { AuditService } from './audit.service';

@ApiTags('admin')
@Controller()
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get('getlogs')
  @Roles('admin')
  @ApiOperation({ summary: 'Activity log, newest first (admins only)' })
  @ApiOkResponse({ description: '{message: "success", content: LogEntry[]}' })
  @ApiForbiddenResponse({ description: 'Not an admin' })
  async getLogs() {
    return ok(await this.audit.latest());
  }
}
