import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiExtraModels, ApiParam, ApiTags, getSchemaPath } from '@nestjs/swagger';
import { ApiErrors, DataOf, Operation, PageOf } from '../common/openapi';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { PageQuery, toPage } from '../common/page.query';
import type { Caller } from '../common/request-context';
import { BodyValidation, NoFields, QueryValidation } from '../common/validation';
import { DeliveriesService } from './deliveries.service';
import { CreateEndpointDto, RecoverDto, UpdateEndpointDto } from './dto/endpoint.dto';
import { DeliveryResponse, RecoveredResponse } from './delivery.mapper';
import { EndpointToolsService } from './endpoint-tools.service';
import { ChatEndpointResponse, EndpointResponse, EndpointWithSecretResponse, toEndpointResponse } from './endpoint.mapper';
import { EndpointsService } from './endpoints.service';
import { Idempotent } from '../idempotency/idempotency.module';

const NOT_FOUND: [404, string] = [404, 'No such webhook endpoint in this workspace.'];

@ApiTags('Webhook endpoints')
@ApiBearerAuth()
@ApiExtraModels(EndpointWithSecretResponse, ChatEndpointResponse)
@Controller('api/v1/webhook_endpoints')
export class EndpointsController {
  constructor(
    private readonly endpoints: EndpointsService,
    private readonly deliveries: DeliveriesService,
    private readonly tools: EndpointToolsService,
  ) {}

  @Get()
  @Operation({
    id: 'listWebhookEndpoints',
    summary: 'List endpoints',
    description: 'The workspace\'s webhook, Slack and Discord endpoints, oldest first; Slack and Discord URLs masked.',
  })
  @ApiOkResponse({ type: DataOf(EndpointResponse, { list: true }) })
  async list(@CurrentCaller() caller: Caller) {
    return { data: (await this.endpoints.list(caller.workspaceId)).map((e) => toEndpointResponse(e)) };
  }

  @Post()
  @Idempotent()
  @Operation({
    id: 'createWebhookEndpoint',
    summary: 'Create an endpoint',
    description:
      'Creates a webhook (own server), Slack or Discord endpoint for the given event types. A webhook endpoint\'s answer ' +
      'is the only one, with that of a rotation, that shows its signing `secret`.',
  })
  @ApiCreatedResponse({
    description: 'The endpoint; a webhook endpoint with its signing secret.',
    schema: {
      type: 'object',
      required: ['data'],
      properties: {
        data: {
          oneOf: [{ $ref: getSchemaPath(EndpointWithSecretResponse) }, { $ref: getSchemaPath(ChatEndpointResponse) }],
        },
      },
    },
  })
  @ApiErrors(
    400,
    [400, 'events: must name at least one event type'],
    [403, 'This workspace\'s plan allows 5 webhook endpoints; delete one or upgrade the plan.'],
    413,
  )
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreateEndpointDto) {
    const { endpoint, secret } = await this.endpoints.create(caller, body);
    return { data: toEndpointResponse(endpoint, secret) };
  }

  @Get(':id')
  @Operation({ id: 'getWebhookEndpoint', summary: 'Get an endpoint', description: 'One endpoint of the workspace, without its secret.' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(EndpointResponse) })
  @ApiErrors(NOT_FOUND)
  async get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: toEndpointResponse(await this.endpoints.get(caller.workspaceId, id)) };
  }

  @Patch(':id')
  @Operation({
    id: 'updateWebhookEndpoint',
    summary: 'Change an endpoint',
    description: 'Changes the URL or the events, or turns the endpoint on or off; turning it on resets its failure count.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(EndpointResponse) })
  @ApiErrors(400, [400, 'enabled: must be true or false'], NOT_FOUND, 413)
  async update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(BodyValidation) body: UpdateEndpointDto) {
    return { data: toEndpointResponse(await this.endpoints.update(caller.workspaceId, id, body)) };
  }

  @Delete(':id')
  @HttpCode(204)
  @Operation({ id: 'deleteWebhookEndpoint', summary: 'Delete an endpoint', description: 'Deletes the endpoint and its deliveries.' })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiNoContentResponse({ description: 'Deleted, with its deliveries.' })
  @ApiErrors(NOT_FOUND)
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    await this.endpoints.remove(caller.workspaceId, id);
  }

  @Post(':id/rotate_secret')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'rotateEndpointSecret',
    summary: 'Rotate the signing secret',
    description:
      'Gives a webhook endpoint a new signing secret, shown in this answer only; the old one keeps signing for 24 hours, ' +
      'so that deliveries carry one signature per valid secret meanwhile.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(EndpointWithSecretResponse) })
  @ApiErrors(400, [400, 'path: endpoint 7c9e6679-7425-40de-944b-e07fc1f90ae7 is a slack endpoint; only webhook endpoints have a signing secret'], NOT_FOUND)
  async rotate(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(NoFields) _body: object) {
    const { endpoint, secret } = await this.endpoints.rotateSecret(caller.workspaceId, id);
    return { data: toEndpointResponse(endpoint, secret) };
  }

  @Get(':id/deliveries')
  @Operation({
    id: 'listEndpointDeliveries',
    summary: 'List an endpoint\'s deliveries',
    description: 'A page of the endpoint\'s deliveries, newest first, each with every attempt, oldest attempt first.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: PageOf(DeliveryResponse) })
  @ApiErrors([400, 'limit: must be an integer from 1 to 100'], NOT_FOUND)
  listDeliveries(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query(QueryValidation) query: PageQuery) {
    return this.deliveries.listForEndpoint(caller.workspaceId, id, toPage(query));
  }

  @Post(':id/test')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'testWebhookEndpoint',
    summary: 'Send a test event',
    description:
      'Sends a signed `ping` now (Slack and Discord: a test message) and answers with it and its attempt. One attempt, ' +
      'not retried; counts against the month\'s deliveries and appears in the delivery log.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(DeliveryResponse) })
  @ApiErrors([404, 'No such webhook endpoint in this workspace.'])
  async test(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return { data: await this.tools.test(caller, id) };
  }

  @Post(':id/recover')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'recoverEndpointDeliveries',
    summary: 'Recover failed deliveries',
    description: 'Schedules again every failed delivery of the endpoint since a moment (at most 7 days back), and answers how many.',
  })
  @ApiParam({ name: 'id', schema: { type: 'string', format: 'uuid' } })
  @ApiOkResponse({ type: DataOf(RecoveredResponse) })
  @ApiErrors(400, [400, 'since: must be an ISO 8601 date and time with a time zone, such as 2026-11-21T14:00:00Z'], [404, 'No such webhook endpoint in this workspace.'], [409, 'The endpoint is turned off; turn it on before recovering its deliveries.'], 413)
  async recover(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body(BodyValidation) body: RecoverDto) {
    return { data: { scheduled: await this.tools.recover(caller.workspaceId, id, new Date(body.since)) } };
  }
}
