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
exports.BoardEntity = void 0;
const typeorm_1 = require("typeorm");
let BoardEntity = class BoardEntity {
    workspaceId;
    id;
    slug;
    name;
    description;
    public;
    notifyVoters;
    createdAt;
};
exports.BoardEntity = BoardEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], BoardEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'uuid', default: () => 'gen_random_uuid()' }),
    __metadata("design:type", String)
], BoardEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], BoardEntity.prototype, "slug", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], BoardEntity.prototype, "name", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', nullable: true }),
    __metadata("design:type", Object)
], BoardEntity.prototype, "description", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'boolean', default: true }),
    __metadata("design:type", Boolean)
], BoardEntity.prototype, "public", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'notify_voters', type: 'boolean', default: true }),
    __metadata("design:type", Boolean)
], BoardEntity.prototype, "notifyVoters", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], BoardEntity.prototype, "createdAt", void 0);
exports.BoardEntity = BoardEntity = __decorate([
    (0, typeorm_1.Entity)('boards')
], BoardEntity);
//# sourceMappingURL=board.entity.js.map