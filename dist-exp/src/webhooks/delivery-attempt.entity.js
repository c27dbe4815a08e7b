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
exports.DeliveryAttemptEntity = void 0;
const typeorm_1 = require("typeorm");
let DeliveryAttemptEntity = class DeliveryAttemptEntity {
    workspaceId;
    id;
    deliveryId;
    at;
    durationMs;
    statusCode;
    error;
    responseBody;
};
exports.DeliveryAttemptEntity = DeliveryAttemptEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], DeliveryAttemptEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid', default: () => 'gen_random_uuid()' }),
    __metadata("design:type", String)
], DeliveryAttemptEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'delivery_id', type: 'uuid' }),
    __metadata("design:type", String)
], DeliveryAttemptEntity.prototype, "deliveryId", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'timestamptz', precision: 3 }),
    __metadata("design:type", Date)
], DeliveryAttemptEntity.prototype, "at", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'duration_ms', type: 'integer' }),
    __metadata("design:type", Number)
], DeliveryAttemptEntity.prototype, "durationMs", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'status_code', type: 'integer', nullable: true }),
    __metadata("design:type", Object)
], DeliveryAttemptEntity.prototype, "statusCode", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', nullable: true }),
    __metadata("design:type", Object)
], DeliveryAttemptEntity.prototype, "error", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'response_body', type: 'text', nullable: true }),
    __metadata("design:type", Object)
], DeliveryAttemptEntity.prototype, "responseBody", void 0);
exports.DeliveryAttemptEntity = DeliveryAttemptEntity = __decorate([
    (0, typeorm_1.Entity)('delivery_attempts')
], DeliveryAttemptEntity);
//# sourceMappingURL=delivery-attempt.entity.js.map