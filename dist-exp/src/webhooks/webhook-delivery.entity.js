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
exports.WebhookDeliveryEntity = void 0;
const typeorm_1 = require("typeorm");
let WebhookDeliveryEntity = class WebhookDeliveryEntity {
    workspaceId;
    id;
    endpointId;
    recipient;
    eventId;
    eventType;
    eventCreatedAt;
    body;
    status;
    reason;
    attemptCount;
    nextAttemptAt;
    lockedBy;
    lockedUntil;
    createdAt;
    deliveredAt;
};
exports.WebhookDeliveryEntity = WebhookDeliveryEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], WebhookDeliveryEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid' }),
    __metadata("design:type", String)
], WebhookDeliveryEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'endpoint_id', type: 'uuid', nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "endpointId", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "recipient", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'event_id', type: 'uuid' }),
    __metadata("design:type", String)
], WebhookDeliveryEntity.prototype, "eventId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'event_type', type: 'text' }),
    __metadata("design:type", String)
], WebhookDeliveryEntity.prototype, "eventType", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'event_created_at', type: 'timestamptz', precision: 3 }),
    __metadata("design:type", Date)
], WebhookDeliveryEntity.prototype, "eventCreatedAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], WebhookDeliveryEntity.prototype, "body", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', default: 'pending' }),
    __metadata("design:type", String)
], WebhookDeliveryEntity.prototype, "status", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "reason", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'attempt_count', type: 'integer', default: 0 }),
    __metadata("design:type", Number)
], WebhookDeliveryEntity.prototype, "attemptCount", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'next_attempt_at', type: 'timestamptz', precision: 3, nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "nextAttemptAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'locked_by', type: 'text', nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "lockedBy", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'locked_until', type: 'timestamptz', precision: 3, nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "lockedUntil", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], WebhookDeliveryEntity.prototype, "createdAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'delivered_at', type: 'timestamptz', precision: 3, nullable: true }),
    __metadata("design:type", Object)
], WebhookDeliveryEntity.prototype, "deliveredAt", void 0);
exports.WebhookDeliveryEntity = WebhookDeliveryEntity = __decorate([
    (0, typeorm_1.Entity)('webhook_deliveries')
], WebhookDeliveryEntity);
//# sourceMappingURL=webhook-delivery.entity.js.map