import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/**
 * `page` and `pageSize` query fields for a paged list, with the list's own limits (written once
 * in libs/contracts): `class XQueryDto extends PageQueryDto(X_PAGE_SIZE) { ... }`.
 */
export function PageQueryDto(limits: { default: number; max: number }) {
  class PageQuery {
    @ApiPropertyOptional({ default: 1 })
    @IsOptional()
    @Type(() => Number)
    @IsInt({ message: 'page must be a whole number' })
    @Min(1, { message: 'page must be at least 1' })
    page?: number;

    @ApiPropertyOptional({ default: limits.default, maximum: limits.max })
    @IsOptional()
    @Type(() => Number)
    @IsInt({ message: 'pageSize must be a whole number' })
    @Min(1, { message: 'pageSize must be at least 1' })
    @Max(limits.max, { message: `pageSize must be at most ${limits.max}` })
    pageSize?: number;
  }
  return PageQuery;
}
