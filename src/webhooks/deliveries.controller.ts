import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import type { Caller } from '../common/request-context';
import { DeliveriesService } from './deliveries.service';

@Controller('api/v1/deliveries')
export class DeliveriesController {
  constructor(private readonly deliveries: DeliveriesService) {}

  @Post(':id/retry')
  @HttpCode(200)
  async retry(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: await this.deliveries.retry(caller.workspaceId, id) };
  }
}
