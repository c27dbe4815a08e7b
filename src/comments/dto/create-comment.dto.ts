import { IsDefined, IsString } from 'class-validator';
import { HasLength, Trim } from '../../common/validation';

export class CreateCommentDto {
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 2000)
  body: string;
}
