import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional } from 'class-validator';
import { PageQuery } from '../../common/page.query';
import { ENTRY_STATES, EntryState } from '../changelog-entry';

export class ListEntriesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: ENTRY_STATES, description: 'Default: every entry.' })
  @IsOptional()
  @IsIn(ENTRY_STATES, { message: 'must be draft, scheduled or published' })
  state?: EntryState;
}
