import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsDefined, IsIn, IsInt, IsPositive, IsString, ValidateIf } from 'class-validator';
import { HasLength, IsTimestamp, Optional, Trim } from '../../common/validation';
import { ENTRY_TYPES, EntryType } from '../changelog-entry';

const TYPE_PROBLEM = `must be one of ${ENTRY_TYPES.join(', ')}`;
const POST_IDS_PROBLEM = 'must be an array of post ids (positive integers), at most 100';

/** The rules of `body` and `post_ids`, the same on create and update (both may be omitted). */
const EntryBody = () => applyDecorators(Optional('a string'), IsString({ message: 'must be a string' }), HasLength(0, 20000));
const PostIds = () =>
  applyDecorators(
    Optional('an array'),
    IsArray({ message: POST_IDS_PROBLEM }),
    ArrayMaxSize(100, { message: POST_IDS_PROBLEM }),
    IsInt({ each: true, message: POST_IDS_PROBLEM }),
    IsPositive({ each: true, message: POST_IDS_PROBLEM }),
  );

@ApiSchema({ name: 'CreateChangelogEntryRequest' })
export class CreateEntryDto {
  @ApiProperty({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points, after trimming).' })
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(4, 120)
  title: string;

  @ApiPropertyOptional({ maxLength: 20000, description: 'Markdown (CommonMark), up to 20,000 characters. Default: `""`.' })
  @EntryBody()
  body?: string;

  @ApiProperty({ enum: ENTRY_TYPES })
  @IsDefined({ message: 'is required' })
  @IsIn(ENTRY_TYPES, { message: TYPE_PROBLEM })
  type: EntryType;

  @ApiPropertyOptional({ type: 'integer', isArray: true, maxItems: 100, description: 'Posts of the workspace (any board) the entry answers.' })
  @PostIds()
  post_ids?: number[];

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Omitted: a draft. A past or present time publishes now; a future one schedules the entry.',
  })
  @Optional('a date and time')
  @IsTimestamp()
  publish_at?: string;
}

@ApiSchema({ name: 'UpdateChangelogEntryRequest' })
export class UpdateEntryDto {
  @ApiPropertyOptional({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points, after trimming).' })
  @Optional('a string')
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(4, 120)
  title?: string;

  @ApiPropertyOptional({ maxLength: 20000, description: 'Markdown (CommonMark), up to 20,000 characters.' })
  @EntryBody()
  body?: string;

  @ApiPropertyOptional({ enum: ENTRY_TYPES })
  @Optional('a string')
  @IsIn(ENTRY_TYPES, { message: TYPE_PROBLEM })
  type?: EntryType;

  @ApiPropertyOptional({ type: 'integer', isArray: true, maxItems: 100, description: 'The linked posts, all of them (replacing the list).' })
  @PostIds()
  post_ids?: number[];

  @ApiPropertyOptional({
    type: 'string',
    format: 'date-time',
    nullable: true,
    description:
      'A future time schedules the entry, a past or present one publishes it now, `null` makes a scheduled entry a draft again. ' +
      'Ignored on a published entry.',
  })
  @ValidateIf((_dto, value) => value !== undefined && value !== null)
  @IsTimestamp()
  publish_at?: string | null;
}
