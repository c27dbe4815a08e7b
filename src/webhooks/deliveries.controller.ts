import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, DataOf } from '../common/openapi';
import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import type { Caller } from '../common/request-context';
import { NoFields } from '../common/validation';
import { DeliveriesService } from './deliveries.service';
import { DeliveryResponse } from './delivery.mapper';

@ApiTags('Webhook endpoints')
@ApiBearerAuth()
@Controller('api/v1/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Post(':id/retry')
  @HttpCode(200)
  @ApiOperation({ summary: 'Sends the delivery again now.' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(DeliveryResponse) })
  @ApiErrors(400, 404, 409)
  async retry(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(NoFields) _body: object) {
    return { data: await this.deliveries.retry(caller.workspaceId, id) };
  }
}
