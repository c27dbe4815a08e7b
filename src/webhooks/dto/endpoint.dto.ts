import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { ArrayNotEmpty, ArrayUnique, IsArray, IsBoolean, IsDefined, IsIn, IsString } from 'class-validator';
import { IsTimestamp, Optional } from '../../common/validation';
import { EVENT_TYPES, EventType } from '../../outbox/outbox-event.entity';
import { ENDPOINT_KINDS, EndpointKind } from '../../outbox/webhook-endpoint.entity';

const eventsMessage = `must be a list of event types: ${EVENT_TYPES.join(', ')}`;
// Validators run bottom-up: the uniqueness check sees a value that is not a list first.
const uniqueMessage = ({ value }: { value: unknown }) =>
  Array.isArray(value) ? 'must not repeat an event type' : eventsMessage;

@ApiSchema({ name: 'CreateWebhookEndpointRequest' })
export class CreateEndpointDto {
  // The default is said in words: a `default` makes generated request types require the field.
  @ApiPropertyOptional({ enum: ENDPOINT_KINDS, description: 'Default: `webhook`.' })
  @Optional('a string')
  @IsIn(ENDPOINT_KINDS, { message: `must be one of ${ENDPOINT_KINDS.join(', ')}` })
  kind?: EndpointKind;

  @ApiProperty({ description: 'https, public addresses only; for Slack or Discord their incoming-webhook URL.' })
  @IsDefined({ message: 'is required' })
  @IsString({ message: 'must be a string' })
  url: string;

  @ApiProperty({ enum: EVENT_TYPES, isArray: true, minItems: 1 })
  @IsDefined({ message: 'is required' })
  @IsArray({ message: eventsMessage })
  @ArrayNotEmpty({ message: 'must name at least one event type' })
  @IsIn(EVENT_TYPES, { each: true, message: eventsMessage })
  @ArrayUnique({ message: uniqueMessage })
  events: EventType[];
}

@ApiSchema({ name: 'UpdateWebhookEndpointRequest' })
export class UpdateEndpointDto {
  @ApiPropertyOptional()
  @Optional('a string')
  @IsString({ message: 'must be a string' })
  url?: string;

  @ApiPropertyOptional({ enum: EVENT_TYPES, isArray: true, minItems: 1 })
  @Optional('a list of event types')
  @IsArray({ message: eventsMessage })
  @ArrayNotEmpty({ message: 'must name at least one event type' })
  @IsIn(EVENT_TYPES, { each: true, message: eventsMessage })
  @ArrayUnique({ message: uniqueMessage })
  events?: EventType[];

  @ApiPropertyOptional({ description: 'true turns the endpoint on and resets its failure count.' })
  @Optional('true or false')
  @IsBoolean({ message: 'must be true or false' })
  enabled?: boolean;
}

@ApiSchema({ name: 'RecoverRequest' })
export class RecoverDto {
  @ApiProperty({ format: 'date-time', description: 'Failed deliveries created since this moment (at most 7 days back).' })
  @IsDefined({ message: 'is required' })
  @IsTimestamp()
  since: string;
}
