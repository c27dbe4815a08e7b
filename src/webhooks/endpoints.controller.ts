import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { PageQuery, toPage } from '../common/page.query';
import type { Caller } from '../common/request-context';
import { BodyValidation, QueryValidation } from '../common/validation';
import { DeliveriesService } from './deliveries.service';
import { CreateEndpointDto, UpdateEndpointDto } from './dto/endpoint.dto';
import { toEndpointResponse } from './endpoint.mapper';
import { EndpointsService } from './endpoints.service';

@Controller('api/v1/webhook_endpoints')
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly deliveries: DeliveriesService,
  ) {}

  @Get()
  async list(@CurrentCaller() caller: Caller) {
    return { data: (await this.endpoints.list(caller.workspaceId)).map((e) => toEndpointResponse(e)) };
  }

  @Post()
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreateEndpointDto) {
    const { endpoint, secret } = await this.endpoints.create(caller, body);
    return { data: toEndpointResponse(endpoint, secret) };
  }

  @Get(':id')
  async get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: toEndpointResponse(await this.endpoints.get(caller.workspaceId, id)) };
  }

  @Patch(':id')
  async update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(BodyValidation) body: UpdateEndpointDto) {
    return { data: toEndpointResponse(await this.endpoints.update(caller.workspaceId, id, body)) };
  }

  @Delete(':id')
  @HttpCode(204)
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    await this.endpoints.remove(caller.workspaceId, id);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  async rotate(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    const { endpoint, secret } = await this.endpoints.rotateSecret(caller.workspaceId, id);
    return { data: toEndpointResponse(endpoint, secret) };
  }

  @Get(':id/deliveries')
  listDeliveries(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query(QueryValidation) query: PageQuery) {
    return this.deliveries.listForEndpoint(caller.workspaceId, id, toPage(query));
  }
}
