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
exports.ApiKeyEntity = void 0;
const typeorm_1 = require("typeorm");
let ApiKeyEntity = class ApiKeyEntity {
    workspaceId;
    id;
    keyHash;
    keyPrefix;
    createdBy;
    createdAt;
    revokedAt;
};
exports.ApiKeyEntity = ApiKeyEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], ApiKeyEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid', default: () => 'gen_random_uuid()' }),
    __metadata("design:type", String)
], ApiKeyEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'key_hash', type: 'text' }),
    __metadata("design:type", String)
], ApiKeyEntity.prototype, "keyHash", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'key_prefix', type: 'text' }),
    __metadata("design:type", String)
], ApiKeyEntity.prototype, "keyPrefix", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_by', type: 'uuid' }),
    __metadata("design:type", String)
], ApiKeyEntity.prototype, "createdBy", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], ApiKeyEntity.prototype, "createdAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'revoked_at', type: 'timestamptz', precision: 3, nullable: true }),
    __metadata("design:type", Object)
], ApiKeyEntity.prototype, "revokedAt", void 0);
exports.ApiKeyEntity = ApiKeyEntity = __decorate([
    (0, typeorm_1.Entity)('api_keys')
], ApiKeyEntity);
//# sourceMappingURL=api-key.entity.js.map