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
exports.CommentResponse = exports.COMMENT_SELECT = void 0;
exports.toCommentResponse = toCommentResponse;
const swagger_1 = require("@nestjs/swagger");
const post_mapper_1 = require("../posts/post.mapper");
exports.COMMENT_SELECT = `
  SELECT c.id, c.post_id, c.body, c.official, a.name AS author_name, c.created_at
    FROM comments c
    JOIN people a ON a.workspace_id = c.workspace_id AND a.id = c.author_id`;
let CommentResponse = class CommentResponse {
    id;
    post_id;
    body;
    official;
    author;
    created_at;
};
exports.CommentResponse = CommentResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 1 }),
    __metadata("design:type", Number)
], CommentResponse.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 1 }),
    __metadata("design:type", Number)
], CommentResponse.prototype, "post_id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Up to 2,000 characters when created through the API.' }),
    __metadata("design:type", String)
], CommentResponse.prototype, "body", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'True for a team reply.' }),
    __metadata("design:type", Boolean)
], CommentResponse.prototype, "official", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: post_mapper_1.AuthorRef }),
    __metadata("design:type", post_mapper_1.AuthorRef)
], CommentResponse.prototype, "author", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time' }),
    __metadata("design:type", String)
], CommentResponse.prototype, "created_at", void 0);
exports.CommentResponse = CommentResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Comment' })
], CommentResponse);
function toCommentResponse(row) {
    return {
        id: Number(row.id),
        post_id: Number(row.post_id),
        body: row.body,
        official: row.official,
        author: { name: row.author_name },
        created_at: row.created_at.toISOString(),
    };
}
//# sourceMappingURL=comment.mapper.js.map