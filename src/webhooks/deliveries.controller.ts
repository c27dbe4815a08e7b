import { ApiBearerAuth, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, DataOf, Operation, PageOf } from '../common/openapi';
import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { toPage } from '../common/page.query';
import { NoFields, QueryValidation } from '../common/validation';
import { ListDeliveriesQuery } from './dto/list-deliveries.query';
import { CurrentCaller } from '../auth/caller.decorator';
import type { Caller } from '../common/request-context';
import { DeliveriesService } from './deliveries.service';
import { DeliveryResponse } from './delivery.mapper';
import { Idempotent } from '../idempotency/idempotency.module';

@ApiTags('Webhook endpoints')
@ApiBearerAuth()
@Controller('api/v1/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Get()
  @Operation({
    id: 'listDeliveries',
    summary: 'List deliveries',
    description:
      'The delivery log: every delivery of the workspace, voter emails included, newest first, with every attempt; ' +
      'optionally of one channel or one endpoint.',
  })
  @ApiOkResponse({ type: PageOf(DeliveryResponse) })
  @ApiErrors([400, 'channel: must be one of webhook, slack, discord, email'], [404, 'No such webhook endpoint in this workspace.'])
  list(@CurrentCaller() caller: Caller, @Query(QueryValidation) query: ListDeliveriesQuery) {
    return this.deliveries.list(caller.workspaceId, { channel: query.channel, endpointId: query.endpoint_id }, toPage(query));
  }

  @Post(':id/retry')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'retryDelivery',
    summary: 'Retry a delivery',
    description: 'Sends the delivery again now, whatever its status; it is `pending` until the attempt is made.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(DeliveryResponse) })
  @ApiErrors(
    400,
    [404, 'No such delivery in this workspace.'],
    [409, 'The endpoint is turned off; turn it on before retrying its deliveries.'],
  )
  async retry(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(NoFields) _body: object) {
    return { data: await this.deliveries.retry(caller.workspaceId, id) };
  }
}
