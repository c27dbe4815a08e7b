import { IsIn, IsOptional, IsString } from 'class-validator';
import { PageQuery } from '../../common/page.query';
import { HasLength, Trim } from '../../common/validation';
import { POST_STATUSES, PostStatus } from '../post.entity';

/** Query values arrive as strings; each is checked as written. */
export class ListPostsQuery extends PageQuery {
  @IsOptional()
  @IsString({ message: 'must be a single board slug' })
  board?: string;

  @IsOptional()
  @IsIn(POST_STATUSES, { message: `must be one of ${POST_STATUSES.join(', ')}` })
  status?: PostStatus;

  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a single string' })
  @HasLength(0, 200)
  q?: string;

  @IsOptional()
  @IsIn(['new', 'top'], { message: 'must be new or top' })
  sort?: 'new' | 'top';

  @IsOptional()
  @IsIn(['true', 'false'], { message: 'must be true or false' })
  include_merged?: 'true' | 'false';
}
