import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, DataOf, PageOf } from '../common/openapi';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { PageQuery, toPage } from '../common/page.query';
import type { Caller } from '../common/request-context';
import { BodyValidation, NoFields, QueryValidation } from '../common/validation';
import { DeliveriesService } from './deliveries.service';
import { CreateEndpointDto, RecoverDto, UpdateEndpointDto } from './dto/endpoint.dto';
import { DeliveryResponse, RecoveredResponse } from './delivery.mapper';
import { EndpointToolsService } from './endpoint-tools.service';
import { EndpointResponse, toEndpointResponse } from './endpoint.mapper';
import { EndpointsService } from './endpoints.service';

@ApiTags('Webhook endpoints')
@ApiBearerAuth()
@Controller('api/v1/webhook_endpoints')
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly deliveries: DeliveriesService,
    private readonly tools: EndpointToolsService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'The workspace\'s endpoints.' })
  @ApiOkResponse({ type: DataOf(EndpointResponse, { list: true }) })
  async list(@CurrentCaller() caller: Caller) {
    return { data: (await this.endpoints.list(caller.workspaceId)).map((e) => toEndpointResponse(e)) };
  }

  @Post()
  @ApiOperation({ summary: 'Creates an endpoint; the answer is the only one with its signing secret.' })
  @ApiCreatedResponse({ type: DataOf(EndpointResponse) })
  @ApiErrors(400, 413)
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreateEndpointDto) {
    const { endpoint, secret } = await this.endpoints.create(caller, body);
    return { data: toEndpointResponse(endpoint, secret) };
  }

  @Get(':id')
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(EndpointResponse) })
  @ApiErrors(404)
  async get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: toEndpointResponse(await this.endpoints.get(caller.workspaceId, id)) };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Changes the url, the events, or turns the endpoint on or off.' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(EndpointResponse) })
  @ApiErrors(400, 404, 413)
  async update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(BodyValidation) body: UpdateEndpointDto) {
    return { data: toEndpointResponse(await this.endpoints.update(caller.workspaceId, id, body)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiNoContentResponse({ description: 'Deleted, with its deliveries.' })
  @ApiErrors(404)
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    await this.endpoints.remove(caller.workspaceId, id);
  }

  @Post(':id/rotate_secret')
  @HttpCode(200)
  @ApiOperation({ summary: 'A new signing secret; the old one keeps signing for 24 hours.' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(EndpointResponse) })
  @ApiErrors(400, 404)
  async rotate(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(NoFields) _body: object) {
    const { endpoint, secret } = await this.endpoints.rotateSecret(caller.workspaceId, id);
    return { data: toEndpointResponse(endpoint, secret) };
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: 'The endpoint\'s deliveries, newest first, with every attempt.' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: PageOf(DeliveryResponse) })
  @ApiErrors(400, 404)
  listDeliveries(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query(QueryValidation) query: PageQuery) {
    return this.deliveries.listForEndpoint(caller.workspaceId, id, toPage(query));
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sends a signed `ping` now (Slack and Discord: a test message) and answers with it and its attempt.',
    description: 'One attempt, not retried; counts against the month\'s deliveries and appears in the delivery log.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(DeliveryResponse) })
  @ApiErrors(404)
  async test(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: await this.tools.test(caller, id) };
  }

  @Post(':id/recover')
  @HttpCode(200)
  @ApiOperation({ summary: 'Schedules again every failed delivery of the endpoint since a moment (at most 7 days back).' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(RecoveredResponse) })
  @ApiErrors(400, 404, 409, 413)
  async recover(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(BodyValidation) body: RecoverDto) {
    return { data: { scheduled: await this.tools.recover(caller.workspaceId, id, new Date(body.since)) } };
  }
}
