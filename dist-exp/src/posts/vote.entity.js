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
exports.VoteEntity = void 0;
const typeorm_1 = require("typeorm");
const columns_1 = require("../database/columns");
let VoteEntity = class VoteEntity {
    workspaceId;
    postId;
    personId;
    createdAt;
};
exports.VoteEntity = VoteEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], VoteEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'post_id', type: 'bigint', transformer: columns_1.bigintToNumber }),
    __metadata("design:type", Number)
], VoteEntity.prototype, "postId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'person_id', type: 'uuid' }),
    __metadata("design:type", String)
], VoteEntity.prototype, "personId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], VoteEntity.prototype, "createdAt", void 0);
exports.VoteEntity = VoteEntity = __decorate([
    (0, typeorm_1.Entity)('votes')
], VoteEntity);
//# sourceMappingURL=vote.entity.js.map