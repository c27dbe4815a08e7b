import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsIntegerString } from './validation';

/** `limit` (1–100, default 25) and `offset` (≥ 0), as every paged list takes them. */
export class PageQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 25 })
  @IsOptional()
  @IsIntegerString(1, 100)
  limit?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0, description: 'Pass the previous page\'s `next_offset`.' })
  @IsOptional()
  @IsIntegerString(0, Number.MAX_SAFE_INTEGER)
  offset?: string;
}

export interface Page {
  limit: number;
  offset: number;
}

export const toPage = (query: PageQuery): Page => ({
  limit: query.limit === undefined ? 25 : Number(query.limit),
  offset: query.offset === undefined ? 0 : Number(query.offset),
});

/** Cuts `limit + 1` fetched rows to a page with `has_more` and `next_offset`. */
export function pageOf<T>(rows: T[], page: Page): { data: T[]; has_more: boolean; next_offset: number | null } {
  const hasMore = rows.length > page.limit;
  const data = rows.slice(0, page.limit);
  return { data, has_more: hasMore, next_offset: hasMore ? page.offset + data.length : null };
}
