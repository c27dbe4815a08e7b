import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsString } from 'class-validator';
import { HasLength, Trim } from '../../common/validation';

@ApiSchema({ name: 'CreateCommentRequest' })
export class CreateCommentDto {
  @ApiProperty({ minLength: 1, maxLength: 2000 })
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 2000)
  body: string;
}
