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
exports.CommentEntity = void 0;
const typeorm_1 = require("typeorm");
const columns_1 = require("../database/columns");
let CommentEntity = class CommentEntity {
    workspaceId;
    id;
    postId;
    authorId;
    body;
    official;
    createdAt;
};
exports.CommentEntity = CommentEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], CommentEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'bigint', default: () => "nextval('comments_id_seq')", transformer: columns_1.bigintToNumber }),
    __metadata("design:type", Number)
], CommentEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'post_id', type: 'bigint', transformer: columns_1.bigintToNumber }),
    __metadata("design:type", Number)
], CommentEntity.prototype, "postId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'author_id', type: 'uuid' }),
    __metadata("design:type", String)
], CommentEntity.prototype, "authorId", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], CommentEntity.prototype, "body", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'boolean', default: false }),
    __metadata("design:type", Boolean)
], CommentEntity.prototype, "official", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], CommentEntity.prototype, "createdAt", void 0);
exports.CommentEntity = CommentEntity = __decorate([
    (0, typeorm_1.Entity)('comments')
], CommentEntity);
//# sourceMappingURL=comment.entity.js.map