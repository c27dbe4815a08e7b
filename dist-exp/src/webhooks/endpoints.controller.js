"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.EndpointsController = void 0;
const swagger_1 = require("@nestjs/swagger");
const openapi_1 = require("../common/openapi");
const common_1 = require("@nestjs/common");
const caller_decorator_1 = require("../auth/caller.decorator");
const page_query_1 = require("../common/page.query");
const validation_1 = require("../common/validation");
const deliveries_service_1 = require("./deliveries.service");
const endpoint_dto_1 = require("./dto/endpoint.dto");
const delivery_mapper_1 = require("./delivery.mapper");
const endpoint_tools_service_1 = require("./endpoint-tools.service");
const endpoint_mapper_1 = require("./endpoint.mapper");
const endpoints_service_1 = require("./endpoints.service");
const NOT_FOUND = [404, 'No such webhook endpoint in this workspace.'];
let EndpointsController = class EndpointsController {
    endpoints;
    deliveries;
    tools;
    constructor(endpoints, deliveries, tools) {
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.tools = tools;
    }
    async list(caller) {
        return { data: (await this.endpoints.list(caller.workspaceId)).map((e) => (0, endpoint_mapper_1.toEndpointResponse)(e)) };
    }
    async create(caller, body) {
        const { endpoint, secret } = await this.endpoints.create(caller, body);
        return { data: (0, endpoint_mapper_1.toEndpointResponse)(endpoint, secret) };
    }
    async get(caller, id) {
        return { data: (0, endpoint_mapper_1.toEndpointResponse)(await this.endpoints.get(caller.workspaceId, id)) };
    }
    async update(caller, id, body) {
        return { data: (0, endpoint_mapper_1.toEndpointResponse)(await this.endpoints.update(caller.workspaceId, id, body)) };
    }
    async remove(caller, id) {
        await this.endpoints.remove(caller.workspaceId, id);
    }
    async rotate(caller, id, _body) {
        const { endpoint, secret } = await this.endpoints.rotateSecret(caller.workspaceId, id);
        return { data: (0, endpoint_mapper_1.toEndpointResponse)(endpoint, secret) };
    }
    listDeliveries(caller, id, query) {
        return this.deliveries.listForEndpoint(caller.workspaceId, id, (0, page_query_1.toPage)(query));
    }
    async test(caller, id) {
        return { data: await this.tools.test(caller, id) };
    }
    async recover(caller, id, body) {
        return { data: { scheduled: await this.tools.recover(caller.workspaceId, id, new Date(body.since)) } };
    }
};
exports.EndpointsController = EndpointsController;
__decorate([
    (0, common_1.Get)(),
    (0, openapi_1.Operation)({
        id: 'listWebhookEndpoints',
        summary: 'List endpoints',
        description: 'The workspace\'s webhook, Slack and Discord endpoints, oldest first; Slack and Discord URLs masked.',
    }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(endpoint_mapper_1.EndpointResponse, { list: true }) }),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "list", null);
__decorate([
    (0, common_1.Post)(),
    (0, openapi_1.Operation)({
        id: 'createWebhookEndpoint',
        summary: 'Create an endpoint',
        description: 'Creates a webhook (own server), Slack or Discord endpoint for the given event types. A webhook endpoint\'s answer ' +
            'is the only one, with that of a rotation, that shows its signing `secret`.',
    }),
    (0, swagger_1.ApiCreatedResponse)({
        description: 'The endpoint; a webhook endpoint with its signing secret.',
        schema: {
            type: 'object',
            required: ['data'],
            properties: {
                data: {
                    oneOf: [{ $ref: (0, swagger_1.getSchemaPath)(endpoint_mapper_1.EndpointWithSecretResponse) }, { $ref: (0, swagger_1.getSchemaPath)(endpoint_mapper_1.ChatEndpointResponse) }],
                },
            },
        },
    }),
    (0, openapi_1.ApiErrors)(400, [400, 'events: must name at least one event type'], [403, 'This workspace\'s plan allows 5 webhook endpoints; delete one or upgrade the plan.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, endpoint_dto_1.CreateEndpointDto]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "create", null);
__decorate([
    (0, common_1.Get)(':id'),
    (0, openapi_1.Operation)({ id: 'getWebhookEndpoint', summary: 'Get an endpoint', description: 'One endpoint of the workspace, without its secret.' }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(endpoint_mapper_1.EndpointResponse) }),
    (0, openapi_1.ApiErrors)(NOT_FOUND),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "get", null);
__decorate([
    (0, common_1.Patch)(':id'),
    (0, openapi_1.Operation)({
        id: 'updateWebhookEndpoint',
        summary: 'Change an endpoint',
        description: 'Changes the URL or the events, or turns the endpoint on or off; turning it on resets its failure count.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(endpoint_mapper_1.EndpointResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'enabled: must be true or false'], NOT_FOUND, 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String, endpoint_dto_1.UpdateEndpointDto]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "update", null);
__decorate([
    (0, common_1.Delete)(':id'),
    (0, common_1.HttpCode)(204),
    (0, openapi_1.Operation)({ id: 'deleteWebhookEndpoint', summary: 'Delete an endpoint', description: 'Deletes the endpoint and its deliveries.' }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiNoContentResponse)({ description: 'Deleted, with its deliveries.' }),
    (0, openapi_1.ApiErrors)(NOT_FOUND),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "remove", null);
__decorate([
    (0, common_1.Post)(':id/rotate_secret'),
    (0, common_1.HttpCode)(200),
    (0, openapi_1.Operation)({
        id: 'rotateEndpointSecret',
        summary: 'Rotate the signing secret',
        description: 'Gives a webhook endpoint a new signing secret, shown in this answer only; the old one keeps signing for 24 hours, ' +
            'so that deliveries carry one signature per valid secret meanwhile.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(endpoint_mapper_1.EndpointWithSecretResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'path: endpoint 7c9e6679-7425-40de-944b-e07fc1f90ae7 is a slack endpoint; only webhook endpoints have a signing secret'], NOT_FOUND),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __param(2, (0, common_1.Body)(validation_1.NoFields)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String, Object]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "rotate", null);
__decorate([
    (0, common_1.Get)(':id/deliveries'),
    (0, openapi_1.Operation)({
        id: 'listEndpointDeliveries',
        summary: 'List an endpoint\'s deliveries',
        description: 'A page of the endpoint\'s deliveries, newest first, each with every attempt, oldest attempt first.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.PageOf)(delivery_mapper_1.DeliveryResponse) }),
    (0, openapi_1.ApiErrors)([400, 'limit: must be an integer from 1 to 100'], NOT_FOUND),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __param(2, (0, common_1.Query)(validation_1.QueryValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String, page_query_1.PageQuery]),
    __metadata("design:returntype", void 0)
], EndpointsController.prototype, "listDeliveries", null);
__decorate([
    (0, common_1.Post)(':id/test'),
    (0, common_1.HttpCode)(200),
    (0, openapi_1.Operation)({
        id: 'testWebhookEndpoint',
        summary: 'Send a test event',
        description: 'Sends a signed `ping` now (Slack and Discord: a test message) and answers with it and its attempt. One attempt, ' +
            'not retried; counts against the month\'s deliveries and appears in the delivery log.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(delivery_mapper_1.DeliveryResponse) }),
    (0, openapi_1.ApiErrors)([404, 'No such webhook endpoint in this workspace.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "test", null);
__decorate([
    (0, common_1.Post)(':id/recover'),
    (0, common_1.HttpCode)(200),
    (0, openapi_1.Operation)({
        id: 'recoverEndpointDeliveries',
        summary: 'Recover failed deliveries',
        description: 'Schedules again every failed delivery of the endpoint since a moment (at most 7 days back), and answers how many.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(delivery_mapper_1.RecoveredResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'since: must be an ISO 8601 date and time with a time zone, such as 2026-11-21T14:00:00Z'], [404, 'No such webhook endpoint in this workspace.'], [409, 'The endpoint is turned off; turn it on before recovering its deliveries.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String, endpoint_dto_1.RecoverDto]),
    __metadata("design:returntype", Promise)
], EndpointsController.prototype, "recover", null);
exports.EndpointsController = EndpointsController = __decorate([
    (0, swagger_1.ApiTags)('Webhook endpoints'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, swagger_1.ApiExtraModels)(endpoint_mapper_1.EndpointWithSecretResponse, endpoint_mapper_1.ChatEndpointResponse),
    (0, common_1.Controller)('api/v1/webhook_endpoints'),
    __metadata("design:paramtypes", [endpoints_service_1.EndpointsService,
        deliveries_service_1.DeliveriesService,
        endpoint_tools_service_1.EndpointToolsService])
], EndpointsController);
//# sourceMappingURL=endpoints.controller.js.map