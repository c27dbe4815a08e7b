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
Object.defineProperty(exports, "__esModule", { value: true });
exports.ListDeliveriesQuery = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const page_query_1 = require("../../common/page.query");
const delivery_mapper_1 = require("../delivery.mapper");
class ListDeliveriesQuery extends page_query_1.PageQuery {
    channel;
    endpoint_id;
}
exports.ListDeliveriesQuery = ListDeliveriesQuery;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: delivery_mapper_1.CHANNELS, description: 'Only deliveries of this channel.' }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsIn)(delivery_mapper_1.CHANNELS, { message: `must be one of ${delivery_mapper_1.CHANNELS.join(', ')}` }),
    __metadata("design:type", String)
], ListDeliveriesQuery.prototype, "channel", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ format: 'uuid', description: 'Only deliveries of this endpoint.' }),
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsUUID)('all', { message: 'must be an endpoint id' }),
    __metadata("design:type", String)
], ListDeliveriesQuery.prototype, "endpoint_id", void 0);
//# sourceMappingURL=list-deliveries.query.js.map