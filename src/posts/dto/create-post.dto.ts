import { Type } from 'class-transformer';
import { IsDefined, IsEmail, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { HasLength, Trim } from '../../common/validation';
import { POST_CATEGORIES, PostCategory } from '../post.entity';

export class AuthorDto {
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 100)
  name?: string;

  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @IsEmail({}, { message: 'must be a valid email address' })
  email?: string;
}

export class CreatePostDto {
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  board: string;

  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(4, 120)
  title: string;

  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(0, 5000)
  body?: string;

  @IsOptional()
  @IsIn(POST_CATEGORIES, { message: `must be one of ${POST_CATEGORIES.join(', ')}` })
  category?: PostCategory;

  @IsOptional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => AuthorDto)
  author?: AuthorDto;
}
