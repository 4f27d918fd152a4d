import { Body, Controller, Get, NotFoundException, Param, Put } from '@nestjs/common';
import { ApiForbiddenResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { JobTools, Messages, type JobTool } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Public, Roles, type AuthUser } from '../auth';
import { SetFlagsDto, SetNoticeDto } from './operations.dto';
import { OperationsService } from './operations.service';

@ApiTags('operations')
@Controller()
export class OperationsController {
  constructor(private readonly operations: OperationsService) {}

  @Get('operations')
  @Public()
  @ApiOperation({ summary: 'Maintenance notices, feature flags and which tools have an engine' })
  @ApiOkResponse({ description: '{message, content: {notices, flags, capabilities, engines}}' })
  async state() {
    return ok(await this.operations.state());
  }

  @Put('admin/notices/:tool')
  @Roles('admin')
  @ApiOperation({ summary: "Set a tool's maintenance notice (shown on its screen at once)" })
  @ApiForbiddenResponse({ description: 'Admins only' })
  async setNotice(@CurrentUser() admin: AuthUser, @Param('tool') tool: string, @Body() dto: SetNoticeDto) {
    if (!(JobTools as readonly string[]).includes(tool)) throw new NotFoundException(Messages.notFound);
    return ok(await this.operations.setNotice(admin, tool as JobTool, dto));
  }

  @Put('admin/flags')
  @Roles('admin')
  @ApiOperation({ summary: 'Turn feature flags on or off (video face swap)' })
  @ApiForbiddenResponse({ description: 'Admins only' })
  async setFlags(@CurrentUser() admin: AuthUser, @Body() dto: SetFlagsDto) {
    return ok(await this.operations.setFlags(admin, dto));
  }
}
