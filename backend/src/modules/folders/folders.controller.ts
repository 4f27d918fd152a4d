import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ok } from '../../common/api-response';
import { CurrentUser, type AuthUser, RateLimit, KeyScope } from '../auth';
import { MakeFolderDto } from './folders.dto';
import { FoldersService } from './folders.service';
import { Idempotent } from '../../common/idempotency';

@ApiTags('folders')
@Controller()
export class FoldersController {
  constructor(private readonly folders: FoldersService) {}

  @Post('makeFolder')
  @Idempotent()
  @KeyScope('folders')
  @HttpCode(200)
  @RateLimit('folders')
  @ApiOperation({ summary: 'Create a folder for the signed-in user' })
  @ApiOkResponse({ description: '{message, content: {_id, title, amount}}' })
  @ApiBadRequestResponse({ description: "'Folder name required' or too long" })
  @ApiForbiddenResponse({ description: "author is not the session's user" })
  async makeFolder(@CurrentUser() user: AuthUser, @Body() dto: MakeFolderDto) {
    return ok(await this.folders.create(user, dto));
  }
}
