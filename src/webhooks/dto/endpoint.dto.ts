import { ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsOptional, IsString } from 'class-validator';
import { EVENT_TYPES, EventType } from '../outbox-event.entity';
import { ENDPOINT_KINDS, EndpointKind } from '../webhook-endpoint.entity';

const eventsMessage = `must be a list of event types: ${EVENT_TYPES.join(', ')}`;

export class CreateEndpointDto {
  @IsOptional()
  @IsIn(ENDPOINT_KINDS, { message: `must be one of ${ENDPOINT_KINDS.join(', ')}` })
  kind?: EndpointKind;

  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  url: string;

  @IsDefined({ message: 'is required' })
  @IsArray({ message: eventsMessage })
  @ArrayNotEmpty({ message: 'must name at least one event type' })
  @IsIn(EVENT_TYPES, { each: true, message: eventsMessage })
  @ArrayUnique({ message: 'must not repeat an event type' })
  events: EventType[];
}

export class UpdateEndpointDto {
  @IsOptional()
  @IsString({ message: 'must be a string' })
  url?: string;

  @IsOptional()
  @IsArray({ message: eventsMessage })
  @ArrayNotEmpty({ message: 'must name at least one event type' })
  @IsIn(EVENT_TYPES, { each: true, message: eventsMessage })
  @ArrayUnique({ message: 'must not repeat an event type' })
  events?: EventType[];

  @IsOptional()
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;
}
