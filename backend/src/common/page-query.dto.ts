import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { WholeNumber } from './validation';

/** No list has this many pages; the bound only keeps `page` a safe number. */
const PAGE_MAX = 1_000_000;

/**
 * `page` and `pageSize` query fields for a paged list, with the list's own limits (written once
 * in libs/contracts): `class XQueryDto extends PageQueryDto(X_PAGE_SIZE) { ... }`.
 */
export function PageQueryDto(limits: { default: number; max: number }) {
  class PageQuery {
    @ApiPropertyOptional({ default: 1, minimum: 1, maximum: PAGE_MAX })
    @IsOptional()
    @WholeNumber('page', { min: 1, max: PAGE_MAX })
    page?: number;

    @ApiPropertyOptional({ default: limits.default, minimum: 1, maximum: limits.max })
    @IsOptional()
    @WholeNumber('pageSize', { min: 1, max: limits.max })
    pageSize?: number;
  }
  return PageQuery;
}
