import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { IsDefined, IsInt, IsPositive, Max } from 'class-validator';

@ApiSchema({ name: 'MergePostRequest' })
export class MergePostDto {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Another post of this workspace, not itself merged.' })
  @IsDefined({ message: 'is required' })
  @IsInt({ message: 'must be a post id' })
  @IsPositive({ message: 'must be a post id' })
  @Max(Number.MAX_SAFE_INTEGER, { message: 'must be a post id' })
  into: number;
}
