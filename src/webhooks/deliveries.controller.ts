import { ApiBearerAuth, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, DataOf, Operation } from '../common/openapi';
import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import type { Caller } from '../common/request-context';
import { DeliveriesService } from './deliveries.service';
import { DeliveryResponse } from './delivery.mapper';

@ApiTags('Webhook endpoints')
@ApiBearerAuth()
@Controller('api/v1/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Post(':id/retry')
  @HttpCode(200)
  @Operation({
    id: 'retryDelivery',
    summary: 'Retry a delivery',
    description: 'Sends the delivery again now, whatever its status; it is `pending` until the attempt is made.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(DeliveryResponse) })
  @ApiErrors(
    [404, 'No such delivery in this workspace.'],
    [409, 'The endpoint is turned off; turn it on before retrying its deliveries.'],
  )
  async retry(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: await this.deliveries.retry(caller.workspaceId, id) };
  }
}
