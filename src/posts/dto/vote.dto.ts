import { ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsObject, IsOptional, ValidateNested } from 'class-validator';
import { AuthorDto } from './create-post.dto';

@ApiSchema({ name: 'VoteRequest' })
export class VoteDto {
  @ApiPropertyOptional({
    type: AuthorDto,
    description:
      'Who votes, by the rules of a post\'s `author`: a known email (in its normal form, as for an author) is that person; otherwise a new guest ' +
      'with that name (and email). Omitted: the key\'s creator. Removing a vote needs the email.',
  })
  @IsOptional()
  @IsObject({ message: 'must be an object' })
  @ValidateNested()
  @Type(() => AuthorDto)
  voter?: AuthorDto;
}
