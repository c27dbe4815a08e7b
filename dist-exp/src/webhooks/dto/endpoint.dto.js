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
exports.RecoverDto = exports.UpdateEndpointDto = exports.CreateEndpointDto = void 0;
const swagger_1 = require("@nestjs/swagger");
const class_validator_1 = require("class-validator");
const validation_1 = require("../../common/validation");
const outbox_event_entity_1 = require("../outbox-event.entity");
const webhook_endpoint_entity_1 = require("../webhook-endpoint.entity");
const eventsMessage = `must be a list of event types: ${outbox_event_entity_1.EVENT_TYPES.join(', ')}`;
const uniqueMessage = ({ value }) => Array.isArray(value) ? 'must not repeat an event type' : eventsMessage;
let CreateEndpointDto = class CreateEndpointDto {
    kind;
    url;
    events;
};
exports.CreateEndpointDto = CreateEndpointDto;
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: webhook_endpoint_entity_1.ENDPOINT_KINDS, description: 'Default: `webhook`.' }),
    (0, validation_1.Optional)('a string'),
    (0, class_validator_1.IsIn)(webhook_endpoint_entity_1.ENDPOINT_KINDS, { message: `must be one of ${webhook_endpoint_entity_1.ENDPOINT_KINDS.join(', ')}` }),
    __metadata("design:type", String)
], CreateEndpointDto.prototype, "kind", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'https, public addresses only; for Slack or Discord their incoming-webhook URL.' }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    __metadata("design:type", String)
], CreateEndpointDto.prototype, "url", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: outbox_event_entity_1.EVENT_TYPES, isArray: true, minItems: 1 }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, class_validator_1.IsArray)({ message: eventsMessage }),
    (0, class_validator_1.ArrayNotEmpty)({ message: 'must name at least one event type' }),
    (0, class_validator_1.IsIn)(outbox_event_entity_1.EVENT_TYPES, { each: true, message: eventsMessage }),
    (0, class_validator_1.ArrayUnique)({ message: uniqueMessage }),
    __metadata("design:type", Array)
], CreateEndpointDto.prototype, "events", void 0);
exports.CreateEndpointDto = CreateEndpointDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'CreateWebhookEndpointRequest' })
], CreateEndpointDto);
let UpdateEndpointDto = class UpdateEndpointDto {
    url;
    events;
    enabled;
};
exports.UpdateEndpointDto = UpdateEndpointDto;
__decorate([
    (0, swagger_1.ApiPropertyOptional)(),
    (0, validation_1.Optional)('a string'),
    (0, class_validator_1.IsString)({ message: 'must be a string' }),
    __metadata("design:type", String)
], UpdateEndpointDto.prototype, "url", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ enum: outbox_event_entity_1.EVENT_TYPES, isArray: true, minItems: 1 }),
    (0, validation_1.Optional)('a list of event types'),
    (0, class_validator_1.IsArray)({ message: eventsMessage }),
    (0, class_validator_1.ArrayNotEmpty)({ message: 'must name at least one event type' }),
    (0, class_validator_1.IsIn)(outbox_event_entity_1.EVENT_TYPES, { each: true, message: eventsMessage }),
    (0, class_validator_1.ArrayUnique)({ message: uniqueMessage }),
    __metadata("design:type", Array)
], UpdateEndpointDto.prototype, "events", void 0);
__decorate([
    (0, swagger_1.ApiPropertyOptional)({ description: 'true turns the endpoint on and resets its failure count.' }),
    (0, validation_1.Optional)('true or false'),
    (0, class_validator_1.IsBoolean)({ message: 'must be true or false' }),
    __metadata("design:type", Boolean)
], UpdateEndpointDto.prototype, "enabled", void 0);
exports.UpdateEndpointDto = UpdateEndpointDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'UpdateWebhookEndpointRequest' })
], UpdateEndpointDto);
let RecoverDto = class RecoverDto {
    since;
};
exports.RecoverDto = RecoverDto;
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time', description: 'Failed deliveries created since this moment (at most 7 days back).' }),
    (0, class_validator_1.IsDefined)({ message: 'is required' }),
    (0, validation_1.IsTimestamp)(),
    __metadata("design:type", String)
], RecoverDto.prototype, "since", void 0);
exports.RecoverDto = RecoverDto = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'RecoverRequest' })
], RecoverDto);
//# sourceMappingURL=endpoint.dto.js.map