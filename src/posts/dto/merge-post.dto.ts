import { IsDefined, IsInt, IsPositive } from 'class-validator';

export class MergePostDto {
  @IsDefined({ message: 'is required' })
  @IsInt({ message: 'must be a post id' })
  @IsPositive({ message: 'must be a post id' })
  into: number;
}
