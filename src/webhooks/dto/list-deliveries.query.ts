import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsUUID } from 'class-validator';
import { PageQuery } from '../../common/page.query';
import { Channel, CHANNELS } from '../delivery.mapper';

export class ListDeliveriesQuery extends PageQuery {
  @ApiPropertyOptional({ enum: CHANNELS, description: 'Only deliveries of this channel.' })
  @IsOptional()
  @IsIn(CHANNELS, { message: `must be one of ${CHANNELS.join(', ')}` })
  channel?: Channel;

  @ApiPropertyOptional({ format: 'uuid', description: 'Only deliveries of this endpoint.' })
  @IsOptional()
  @IsUUID('all', { message: 'must be an endpoint id' })
  endpoint_id?: string;
}
