import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsMongoId, IsOptional, IsString, MaxLength } from 'class-validator';
import { LOG_PAGE_SIZE, type LogQuery } from '@studio/contracts';
import { PageQueryDto } from '../../common/page-query.dto';
import { trimmed } from '../../common/validation';

/** GET /api/admin/logs: keyset paging (`before`), or the old `page`, and filters (LogQuery). */
export class LogQueryDto extends PageQueryDto(LOG_PAGE_SIZE) implements LogQuery {
  @ApiPropertyOptional({
    description:
      'The `next` cursor of the previous page: entries older than it. Without it, the first page ' +
      '(or the offset `page`, kept for old clients; deep offsets are slow)',
    example: '6740a1b2c3d4e5f601234567',
  })
  @IsOptional()
  @IsMongoId({ message: 'before must be a cursor from a previous page' })
  before?: string;

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
