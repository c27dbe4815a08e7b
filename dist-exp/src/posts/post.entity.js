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
exports.PostEntity = exports.POST_CATEGORIES = exports.POST_STATUSES = void 0;
const typeorm_1 = require("typeorm");
const columns_1 = require("../database/columns");
exports.POST_STATUSES = ['open', 'planned', 'in_progress', 'done', 'closed'];
exports.POST_CATEGORIES = ['feature', 'bug', 'improvement'];
let PostEntity = class PostEntity {
    workspaceId;
    id;
    boardId;
    title;
    body;
    category;
    status;
    votes;
    commentsCount;
    pinned;
    mergedIntoId;
    authorId;
    createdAt;
    updatedAt;
};
exports.PostEntity = PostEntity;
__decorate([
    (0, typeorm_1.PrimaryColumn)({ name: 'workspace_id', type: 'uuid' }),
    __metadata("design:type", String)
], PostEntity.prototype, "workspaceId", void 0);
__decorate([
    (0, typeorm_1.PrimaryColumn)({ type: 'bigint', default: () => "nextval('posts_id_seq')", transformer: columns_1.bigintToNumber }),
    __metadata("design:type", Number)
], PostEntity.prototype, "id", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'board_id', type: 'uuid' }),
    __metadata("design:type", String)
], PostEntity.prototype, "boardId", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text' }),
    __metadata("design:type", String)
], PostEntity.prototype, "title", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', default: '' }),
    __metadata("design:type", String)
], PostEntity.prototype, "body", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', default: 'feature' }),
    __metadata("design:type", String)
], PostEntity.prototype, "category", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'text', default: 'open' }),
    __metadata("design:type", String)
], PostEntity.prototype, "status", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'integer', default: 0 }),
    __metadata("design:type", Number)
], PostEntity.prototype, "votes", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'comments_count', type: 'integer', default: 0 }),
    __metadata("design:type", Number)
], PostEntity.prototype, "commentsCount", void 0);
__decorate([
    (0, typeorm_1.Column)({ type: 'boolean', default: false }),
    __metadata("design:type", Boolean)
], PostEntity.prototype, "pinned", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'merged_into_id', type: 'bigint', nullable: true, transformer: columns_1.bigintToNumber }),
    __metadata("design:type", Object)
], PostEntity.prototype, "mergedIntoId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'author_id', type: 'uuid' }),
    __metadata("design:type", String)
], PostEntity.prototype, "authorId", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'created_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], PostEntity.prototype, "createdAt", void 0);
__decorate([
    (0, typeorm_1.Column)({ name: 'updated_at', type: 'timestamptz', precision: 3, default: () => 'now()' }),
    __metadata("design:type", Date)
], PostEntity.prototype, "updatedAt", void 0);
exports.PostEntity = PostEntity = __decorate([
    (0, typeorm_1.Entity)('posts')
], PostEntity);
//# sourceMappingURL=post.entity.js.map