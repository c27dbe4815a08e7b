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
exports.ChatEndpointResponse = exports.EndpointWithSecretResponse = exports.EndpointResponse = void 0;
exports.toEndpointResponse = toEndpointResponse;
const swagger_1 = require("@nestjs/swagger");
const outbox_event_entity_1 = require("./outbox-event.entity");
const webhook_endpoint_entity_1 = require("./webhook-endpoint.entity");
let EndpointResponse = class EndpointResponse {
    id;
    kind;
    url;
    events;
    enabled;
    disabled_reason;
    consecutive_failures;
    created_at;
    secret;
};
exports.EndpointResponse = EndpointResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'uuid' }),
    __metadata("design:type", String)
], EndpointResponse.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: webhook_endpoint_entity_1.ENDPOINT_KINDS }),
    __metadata("design:type", String)
], EndpointResponse.prototype, "kind", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'The URL; masked for Slack and Discord, whose URLs are credentials.' }),
    __metadata("design:type", String)
], EndpointResponse.prototype, "url", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: outbox_event_entity_1.EVENT_TYPES, isArray: true }),
    __metadata("design:type", Array)
], EndpointResponse.prototype, "events", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", Boolean)
], EndpointResponse.prototype, "enabled", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['user', 'consecutive_failures', 'gone'], nullable: true, type: String }),
    __metadata("design:type", Object)
], EndpointResponse.prototype, "disabled_reason", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 0 }),
    __metadata("design:type", Number)
], EndpointResponse.prototype, "consecutive_failures", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time' }),
    __metadata("design:type", String)
], EndpointResponse.prototype, "created_at", void 0);
exports.EndpointResponse = EndpointResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'WebhookEndpoint' })
], EndpointResponse);
let EndpointWithSecretResponse = class EndpointWithSecretResponse extends EndpointResponse {
};
exports.EndpointWithSecretResponse = EndpointWithSecretResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['webhook'] }),
    __metadata("design:type", String)
], EndpointWithSecretResponse.prototype, "kind", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        pattern: '^whsec_[0-9A-Za-z]{32,}$',
        description: 'The signing secret, shown in this answer only: keep it to verify deliveries.',
    }),
    __metadata("design:type", String)
], EndpointWithSecretResponse.prototype, "secret", void 0);
exports.EndpointWithSecretResponse = EndpointWithSecretResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'WebhookEndpointWithSecret' })
], EndpointWithSecretResponse);
let ChatEndpointResponse = class ChatEndpointResponse extends EndpointResponse {
};
exports.ChatEndpointResponse = ChatEndpointResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['slack', 'discord'] }),
    __metadata("design:type", String)
], ChatEndpointResponse.prototype, "kind", void 0);
exports.ChatEndpointResponse = ChatEndpointResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'ChatEndpoint' })
], ChatEndpointResponse);
function toEndpointResponse(endpoint, secret) {
    return {
        id: endpoint.id,
        kind: endpoint.kind,
        url: endpoint.urlShown,
        events: endpoint.events,
        enabled: endpoint.enabled,
        disabled_reason: endpoint.disabledReason,
        consecutive_failures: endpoint.consecutiveFailures,
        created_at: endpoint.createdAt.toISOString(),
        ...(secret !== undefined ? { secret: secret ?? undefined } : {}),
    };
}
//# sourceMappingURL=endpoint.mapper.js.map