import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { PageQuery } from '../../common/page.query';
import { HasLength, Trim } from '../../common/validation';
import { POST_STATUSES, PostStatus } from '../post.entity';

/** Query values arrive as strings; each is checked as written. */
export class ListPostsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'A board slug. Default: every board.' })
  @IsOptional()
  @IsString({ message: 'must be a single board slug' })
  board?: string;

  @ApiPropertyOptional({ enum: POST_STATUSES })
  @IsOptional()
  @IsIn(POST_STATUSES, { message: `must be one of ${POST_STATUSES.join(', ')}` })
  status?: PostStatus;

  @ApiPropertyOptional({ maxLength: 200, description: 'Terms that must all occur in the title or body, ignoring case.' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a single string' })
  @HasLength(0, 200)
  q?: string;

  @ApiPropertyOptional({ enum: ['new', 'top'], default: 'new' })
  @IsOptional()
  @IsIn(['new', 'top'], { message: 'must be new or top' })
  sort?: 'new' | 'top';

  @ApiPropertyOptional({ enum: ['true', 'false'], default: 'false', description: 'Include posts merged into others.' })
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  include_merged?: 'true' | 'false';

  @ApiPropertyOptional({
    enum: ['pending', 'rejected'],
    description: 'Posts held for review (`pending`) or `rejected` instead. Default: the approved posts only.',
  })
  @IsOptional()
  @IsIn(['pending', 'rejected'], { message: 'must be pending or rejected' })
  moderation?: 'pending' | 'rejected';
}
