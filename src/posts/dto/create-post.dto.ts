import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsEmail, IsIn, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { HasLength, Trim } from '../../common/validation';
import { POST_CATEGORIES, PostCategory } from '../post.entity';

export class AuthorDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Required unless the email is known.' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 100)
  name?: string;

  @ApiPropertyOptional({ format: 'email', description: 'A known email (any case) posts as that person.' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @IsEmail({}, { message: 'must be a valid email address' })
  email?: string;
}

export class CreatePostDto {
  @ApiProperty({ description: 'Board slug.', example: 'feedback' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  board: string;

  @ApiProperty({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points, after trimming).' })
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(4, 120)
  title: string;

  @ApiPropertyOptional({ maxLength: 5000, default: '' })
  @IsOptional()
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(0, 5000)
  body?: string;

  @ApiPropertyOptional({ enum: POST_CATEGORIES, default: 'feature' })
  @IsOptional()
  @IsIn(POST_CATEGORIES, { message: `must be one of ${POST_CATEGORIES.join(', ')}` })
  category?: PostCategory;

  @ApiPropertyOptional({ type: AuthorDto, description: 'Omitted: the post is authored as the key creator.' })
  @IsOptional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => AuthorDto)
  author?: AuthorDto;
}
