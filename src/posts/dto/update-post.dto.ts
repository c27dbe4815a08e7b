import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsIn } from 'class-validator';
import { POST_STATUSES, PostStatus } from '../post.entity';

@ApiSchema({ name: 'UpdatePostRequest' })
export class UpdatePostDto {
  @ApiProperty({ enum: POST_STATUSES })
  @IsDefined({ message: 'is required' })
  @IsIn(POST_STATUSES, { message: `must be one of ${POST_STATUSES.join(', ')}` })
  status: PostStatus;
}
