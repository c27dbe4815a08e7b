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
exports.OutboxEventEntity = exports.EVENT_TYPES = void 0;
const typeorm_1 = require("typeorm");
exports.EVENT_TYPES = ['post.created', 'post.status_changed', 'comment.created', 'post.voted'];
let OutboxEventEntity = class OutboxEventEntity {
    workspaceId;
    id;
    type;
    data;
    actorId;
    endpointIds;
    createdAt;
    dispatchedAt;
};
exports.OutboxEventEntity = OutboxEventEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], OutboxEventEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid', default: () => 'gen_random_uuid()' }),
    __metadata("design:type", String)
], OutboxEventEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], OutboxEventEntity.prototype, "type", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'json' }),
    __metadata("design:type", Object)
], OutboxEventEntity.prototype, "data", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'actor_id', type: 'uuid', nullable: true }),
    __metadata("design:type", Object)
], OutboxEventEntity.prototype, "actorId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'endpoint_ids', type: 'uuid', array: true, nullable: true }),
    __metadata("design:type", Object)
], OutboxEventEntity.prototype, "endpointIds", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], OutboxEventEntity.prototype, "createdAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'dispatched_at', type: 'timestamptz', precision: 3, nullable: true }),
    __metadata("design:type", Object)
], OutboxEventEntity.prototype, "dispatchedAt", void 0);
exports.OutboxEventEntity = OutboxEventEntity = __decorate([
    (0, typeorm_1.Entity)('outbox_events')
], OutboxEventEntity);
//# sourceMappingURL=outbox-event.entity.js.map