import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDefined, IsIn, IsObject, IsString, ValidateIf, ValidateNested } from 'class-validator';
import { RequireOneOf } from '../../common/openapi';
import { HasLength, IsEmailAddress, Optional, Trim } from '../../common/validation';
import { POST_CATEGORIES, PostCategory } from '../post.entity';

/** A known email posts as that person; otherwise `name` is required and a guest is made. */
@ApiSchema({ name: 'PostAuthor', description: 'A `name`, or an `email`: a known email (compared in its normal form: ASCII letters in any case, the domain as IDNA ASCII) posts as that person and `name` is ignored; otherwise a guest with that name (and email) is created.' })
@RequireOneOf('name', 'email')
export class AuthorDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: 100, description: 'Required unless the email is known.' })
  // Without an email nothing can be looked up: that is refused with the body's other problems.
  @ValidateIf((author: AuthorDto, name) => name !== undefined || author.email === undefined)
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 100)
  name?: string;

  @ApiPropertyOptional({ format: 'email', description: 'A known email (ASCII letters in any case, the domain as IDNA ASCII) posts as that person; a lookalike (`K`, `İ`, fullwidth letters in the local part) is another person.' })
  @Optional('a string')
  @Trim()
  @IsString({ message: 'must be a string' })
  @IsEmailAddress()
  email?: string;
}

@ApiSchema({ name: 'CreatePostRequest' })
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

  // Defaults are said in words: a `default` makes generated request types require the field.
  @ApiPropertyOptional({ maxLength: 5000, description: 'Up to 5,000 characters. Default: `""`.' })
  @Optional('a string')
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(0, 5000)
  body?: string;

  @ApiPropertyOptional({ enum: POST_CATEGORIES, description: 'Default: `feature`.' })
  @Optional('a string')
  @IsIn(POST_CATEGORIES, { message: `must be one of ${POST_CATEGORIES.join(', ')}` })
  category?: PostCategory;

  @ApiPropertyOptional({ type: AuthorDto, description: 'Omitted: the post is authored as the key creator.' })
  @Optional('an object')
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => AuthorDto)
  author?: AuthorDto;
}
