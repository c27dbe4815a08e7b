import { ApiProperty } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { HasLength, Trim } from '../../common/validation';

/** `GET /api/v1/posts/similar`: a board and the title being written. */
export class SimilarPostsQuery {
  @ApiProperty({ description: 'A board slug: only its posts are compared.', example: 'feedback' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a single board slug' })
  board!: string;

  @ApiProperty({ minLength: 1, maxLength: 200, description: 'The title to compare (1 to 200 characters after trimming).', example: 'Dark mode please' })
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 200)
  title!: string;
}
