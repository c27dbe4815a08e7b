import { IsDefined, IsIn } from 'class-validator';
import { POST_STATUSES, PostStatus } from '../post.entity';

export class UpdatePostDto {
  @IsDefined({ message: 'is required' })
  @IsIn(POST_STATUSES, { message: `must be one of ${POST_STATUSES.join(', ')}` })
  status: PostStatus;
}
