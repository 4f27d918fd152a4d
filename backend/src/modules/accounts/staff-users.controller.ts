import { Body, Controller, Delete, Get, Param, Put, Query } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsBoolean, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ASSIGNABLE_ROLES, RoleMessages, type AssignableRole, type SetRoleRequest } from '@studio/contracts';
import { ok } from '../../common/api-response';
import { CurrentUser, Roles, type AuthUser } from '../auth';
import { StaffUsersService } from './staff-users.service';

export class UserSearchDto {
  @ApiPropertyOptional({ description: 'Start of a user name' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  query?: string;
}

export class SetBadgesDto {
  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  verified?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  early?: boolean;
}

export class SetRoleDto implements SetRoleRequest {
  @ApiProperty({ enum: ASSIGNABLE_ROLES })
  @IsIn(ASSIGNABLE_ROLES, { message: RoleMessages.unknownRole })
  role!: AssignableRole;
}

@ApiTags('support')
@Controller()
export class StaffUsersController {
  constructor(private readonly users: StaffUsersService) {}

  @Get('support/users')
  @Roles('support', 'admin')
  @ApiOperation({ summary: 'Find users by the start of their name (support)' })
  @ApiOkResponse({ description: '{message, content: UserSummary[]}' })
  @ApiForbiddenResponse({ description: 'Support and admins only' })
  async search(@CurrentUser() staff: AuthUser, @Query() dto: UserSearchDto) {
    return ok(await this.users.search(staff, dto.query ?? ''));
  }

  @Put('admin/users/:username/badges')
  @Roles('admin')
  @ApiOperation({ summary: 'Set the verified and early-supporter badges (admins)' })
  @ApiForbiddenResponse({ description: 'Admins only' })
  async setBadges(
    @CurrentUser() admin: AuthUser,
    @Param('username') username: string,
    @Body() dto: SetBadgesDto,
  ) {
    return ok(await this.users.setBadges(admin, username, dto));
  }

  @Put('admin/users/:username/role')
  @Roles('admin')
  @ApiOperation({
    summary: "Give or take the support role (admins); audited, and the user's sessions end",
    description: "Only 'user' and 'support': not one's own role, and never an admin's (403).",
  })
  @ApiOkResponse({ description: '{message, content: UserSummary}' })
  @ApiForbiddenResponse({ description: 'Admins only; not oneself; not another admin' })
  @ApiNotFoundResponse({ description: 'No such user' })
  async setRole(
    @CurrentUser() admin: AuthUser,
    @Param('username') username: string,
    @Body() dto: SetRoleDto,
  ) {
    return ok(await this.users.setRole(admin, username, dto.role));
  }

  @Delete('admin/users/:username/suspension')
  @Roles('admin')
  @ApiOperation({
    summary: 'Lift a suspension after repeated removals (admins); audited',
    description: 'docs/takedown.md, Suspension. The user can log in again and their API keys work.',
  })
  @ApiOkResponse({ description: '{message, content: UserSummary}' })
  @ApiForbiddenResponse({ description: 'Admins only' })
  @ApiNotFoundResponse({ description: 'No such user' })
  @ApiConflictResponse({ description: 'The account is not suspended' })
  async liftSuspension(@CurrentUser() admin: AuthUser, @Param('username') username: string) {
    return ok(await this.users.liftSuspension(admin, username));
  }
}
