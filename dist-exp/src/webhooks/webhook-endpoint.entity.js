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
exports.WebhookEndpointEntity = exports.ENDPOINT_KINDS = void 0;
const typeorm_1 = require("typeorm");
exports.ENDPOINT_KINDS = ['webhook', 'slack', 'discord'];
let WebhookEndpointEntity = class WebhookEndpointEntity {
    workspaceId;
    id;
    kind;
    urlSealed;
    urlShown;
    events;
    secretSealed;
    rotatedSecrets;
    nextSendAt;
    enabled;
    disabledReason;
    consecutiveFailures;
    createdAt;
    updatedAt;
};
exports.WebhookEndpointEntity = WebhookEndpointEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], WebhookEndpointEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid', default: () => 'gen_random_uuid()' }),
    __metadata("design:type", String)
], WebhookEndpointEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], WebhookEndpointEntity.prototype, "kind", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'url_sealed', type: 'text' }),
    __metadata("design:type", String)
], WebhookEndpointEntity.prototype, "urlSealed", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'url_shown', type: 'text' }),
    __metadata("design:type", String)
], WebhookEndpointEntity.prototype, "urlShown", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', array: true }),
    __metadata("design:type", Array)
], WebhookEndpointEntity.prototype, "events", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'secret_sealed', type: 'text', nullable: true }),
    __metadata("design:type", Object)
], WebhookEndpointEntity.prototype, "secretSealed", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'rotated_secrets', type: 'jsonb', default: () => `'[]'` }),
    __metadata("design:type", Array)
], WebhookEndpointEntity.prototype, "rotatedSecrets", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'next_send_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], WebhookEndpointEntity.prototype, "nextSendAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'boolean', default: true }),
    __metadata("design:type", Boolean)
], WebhookEndpointEntity.prototype, "enabled", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'disabled_reason', type: 'text', nullable: true }),
    __metadata("design:type", Object)
], WebhookEndpointEntity.prototype, "disabledReason", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'consecutive_failures', type: 'integer', default: 0 }),
    __metadata("design:type", Number)
], WebhookEndpointEntity.prototype, "consecutiveFailures", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], WebhookEndpointEntity.prototype, "createdAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'updated_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], WebhookEndpointEntity.prototype, "updatedAt", void 0);
exports.WebhookEndpointEntity = WebhookEndpointEntity = __decorate([
    (0, typeorm_1.Entity)('webhook_endpoints')
], WebhookEndpointEntity);
//# sourceMappingURL=webhook-endpoint.entity.js.map