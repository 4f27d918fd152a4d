import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsOptional, IsString, MaxLength } from 'class-validator';
import { LOG_PAGE_SIZE, type LogQuery } from '@studio/contracts';
import { PageQueryDto } from '../../common/page-query.dto';
import { trimmed } from '../../common/validation';

/** GET /api/admin/logs: paging and filters (LogQuery). */
export class LogQueryDto extends PageQueryDto(LOG_PAGE_SIZE) implements LogQuery {
  @ApiPropertyOptional({ example: 'FaceSwap' })
  @IsOptional()
  @Transform(trimmed)
  @IsString({ message: 'category must be text' })
  @MaxLength(64)
  category?: string;

  @ApiPropertyOptional({ description: 'Exact user name (case-insensitive)' })
  @IsOptional()
  @Transform(trimmed)
  @IsString({ message: 'user must be text' })
  @MaxLength(64)
  user?: string;

  @ApiPropertyOptional({ description: 'Entries at or after this ISO date' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'from must be an ISO date' })
  from?: string;

  @ApiPropertyOptional({ description: 'Entries at or before this ISO date' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'to must be an ISO date' })
  to?: string;
}

/** GET /api/admin/stats */
export class StatsQueryDto {
  @ApiPropertyOptional({ default: 'UTC', example: 'Europe/Berlin', description: 'IANA time zone' })
  @IsOptional()
  @IsString({ message: 'tz must be text' })
  @MaxLength(64)
  tz?: string;

  @ApiPropertyOptional({ description: 'A fixed "now" (ISO date); accepted only when NODE_ENV=test' })
  @IsOptional()
  @IsDateString({ strict: true }, { message: 'now must be an ISO date' })
  now?: string;
}
