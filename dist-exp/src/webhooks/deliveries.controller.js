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
exports.DeliveriesController = void 0;
const swagger_1 = require("@nestjs/swagger");
const openapi_1 = require("../common/openapi");
const common_1 = require("@nestjs/common");
const page_query_1 = require("../common/page.query");
const validation_1 = require("../common/validation");
const list_deliveries_query_1 = require("./dto/list-deliveries.query");
const caller_decorator_1 = require("../auth/caller.decorator");
const deliveries_service_1 = require("./deliveries.service");
const delivery_mapper_1 = require("./delivery.mapper");
let DeliveriesController = class DeliveriesController {
    deliveries;
    constructor(deliveries) {
        this.deliveries = deliveries;
    }
    list(caller, query) {
        return this.deliveries.list(caller.workspaceId, { channel: query.channel, endpointId: query.endpoint_id }, (0, page_query_1.toPage)(query));
    }
    async retry(caller, id, _body) {
        return { data: await this.deliveries.retry(caller.workspaceId, id) };
    }
};
exports.DeliveriesController = DeliveriesController;
__decorate([
    (0, common_1.Get)(),
    (0, openapi_1.Operation)({
        id: 'listDeliveries',
        summary: 'List deliveries',
        description: 'The delivery log: every delivery of the workspace, voter emails included, newest first, with every attempt; ' +
            'optionally of one channel or one endpoint.',
    }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.PageOf)(delivery_mapper_1.DeliveryResponse) }),
    (0, openapi_1.ApiErrors)([400, 'channel: must be one of webhook, slack, discord, email'], [404, 'No such webhook endpoint in this workspace.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Query)(validation_1.QueryValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, list_deliveries_query_1.ListDeliveriesQuery]),
    __metadata("design:returntype", void 0)
], DeliveriesController.prototype, "list", null);
__decorate([
    (0, common_1.Post)(':id/retry'),
    (0, common_1.HttpCode)(200),
    (0, openapi_1.Operation)({
        id: 'retryDelivery',
        summary: 'Retry a delivery',
        description: 'Sends the delivery again now, whatever its status; it is `pending` until the attempt is made.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'string', format: 'uuid' } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(delivery_mapper_1.DeliveryResponse) }),
    (0, openapi_1.ApiErrors)(400, [404, 'No such delivery in this workspace.'], [409, 'The endpoint is turned off; turn it on before retrying its deliveries.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id')),
    __param(2, (0, common_1.Body)(validation_1.NoFields)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, String, Object]),
    __metadata("design:returntype", Promise)
], DeliveriesController.prototype, "retry", null);
exports.DeliveriesController = DeliveriesController = __decorate([
    (0, swagger_1.ApiTags)('Webhook endpoints'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, common_1.Controller)('api/v1/deliveries'),
    __metadata("design:paramtypes", [deliveries_service_1.DeliveriesService])
], DeliveriesController);
//# sourceMappingURL=deliveries.controller.js.map