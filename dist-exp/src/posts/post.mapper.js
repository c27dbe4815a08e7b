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
exports.PostResponse = exports.VoterResponse = exports.AuthorRef = exports.MergedIntoRef = exports.PostBoardRef = exports.postSelect = void 0;
exports.toPostResponse = toPostResponse;
const swagger_1 = require("@nestjs/swagger");
const post_entity_1 = require("./post.entity");
const postSelect = (source = 'posts') => `
  SELECT p.id, p.title, p.body, p.category, p.status, p.votes, p.comments_count, p.pinned,
         p.created_at, p.updated_at,
         b.id AS board_id, b.slug AS board_slug, b.name AS board_name,
         a.name AS author_name,
         m.id AS merged_id, m.title AS merged_title, mb.slug AS merged_board_slug
    FROM ${source} p
    JOIN boards b ON b.workspace_id = p.workspace_id AND b.id = p.board_id
    JOIN people a ON a.workspace_id = p.workspace_id AND a.id = p.author_id
    LEFT JOIN posts m ON m.workspace_id = p.workspace_id AND m.id = p.merged_into_id
    LEFT JOIN boards mb ON mb.workspace_id = m.workspace_id AND mb.id = m.board_id`;
exports.postSelect = postSelect;
let PostBoardRef = class PostBoardRef {
    id;
    slug;
    name;
};
exports.PostBoardRef = PostBoardRef;
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'uuid' }),
    __metadata("design:type", String)
], PostBoardRef.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], PostBoardRef.prototype, "slug", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], PostBoardRef.prototype, "name", void 0);
exports.PostBoardRef = PostBoardRef = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'BoardRef' })
], PostBoardRef);
let MergedIntoRef = class MergedIntoRef {
    id;
    title;
    url;
};
exports.MergedIntoRef = MergedIntoRef;
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer' }),
    __metadata("design:type", Number)
], MergedIntoRef.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], MergedIntoRef.prototype, "title", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", String)
], MergedIntoRef.prototype, "url", void 0);
exports.MergedIntoRef = MergedIntoRef = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'MergeTarget' })
], MergedIntoRef);
let AuthorRef = class AuthorRef {
    name;
};
exports.AuthorRef = AuthorRef;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'Ada Lovelace' }),
    __metadata("design:type", String)
], AuthorRef.prototype, "name", void 0);
exports.AuthorRef = AuthorRef = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Author' })
], AuthorRef);
let VoterResponse = class VoterResponse {
    name;
};
exports.VoterResponse = VoterResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ example: 'Grace Hopper' }),
    __metadata("design:type", String)
], VoterResponse.prototype, "name", void 0);
exports.VoterResponse = VoterResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Voter' })
], VoterResponse);
let PostResponse = class PostResponse {
    id;
    board;
    title;
    body;
    category;
    status;
    votes;
    comments;
    pinned;
    merged_into;
    author;
    url;
    admin_url;
    created_at;
    updated_at;
};
exports.PostResponse = PostResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 1 }),
    __metadata("design:type", Number)
], PostResponse.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: PostBoardRef }),
    __metadata("design:type", PostBoardRef)
], PostResponse.prototype, "board", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points).' }),
    __metadata("design:type", String)
], PostResponse.prototype, "title", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ maxLength: 5000, description: 'Up to 5,000 characters; `""` when none.' }),
    __metadata("design:type", String)
], PostResponse.prototype, "body", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: post_entity_1.POST_CATEGORIES }),
    __metadata("design:type", String)
], PostResponse.prototype, "category", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: post_entity_1.POST_STATUSES }),
    __metadata("design:type", String)
], PostResponse.prototype, "status", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 0 }),
    __metadata("design:type", Number)
], PostResponse.prototype, "votes", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 0, description: 'Number of comments.' }),
    __metadata("design:type", Number)
], PostResponse.prototype, "comments", void 0);
__decorate([
    (0, swagger_1.ApiProperty)(),
    __metadata("design:type", Boolean)
], PostResponse.prototype, "pinned", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: MergedIntoRef, nullable: true, description: 'The post this one was merged into, or null.' }),
    __metadata("design:type", Object)
], PostResponse.prototype, "merged_into", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: AuthorRef }),
    __metadata("design:type", AuthorRef)
], PostResponse.prototype, "author", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Public address: `<public base>/<workspace>/<board>/p/<id>-<title slug>`.' }),
    __metadata("design:type", String)
], PostResponse.prototype, "url", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: 'Dashboard address: `<base>/admin/p/<id>`.' }),
    __metadata("design:type", String)
], PostResponse.prototype, "admin_url", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time' }),
    __metadata("design:type", String)
], PostResponse.prototype, "created_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time' }),
    __metadata("design:type", String)
], PostResponse.prototype, "updated_at", void 0);
exports.PostResponse = PostResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Post' })
], PostResponse);
function toPostResponse(row, workspaceSlug, links) {
    const id = Number(row.id);
    return {
        id,
        board: { id: row.board_id, slug: row.board_slug, name: row.board_name },
        title: row.title,
        body: row.body,
        category: row.category,
        status: row.status,
        votes: row.votes,
        comments: row.comments_count,
        pinned: row.pinned,
        merged_into: row.merged_id === null
            ? null
            : {
                id: Number(row.merged_id),
                title: row.merged_title,
                url: links.post(workspaceSlug, row.merged_board_slug, Number(row.merged_id), row.merged_title),
            },
        author: { name: row.author_name },
        url: links.post(workspaceSlug, row.board_slug, id, row.title),
        admin_url: links.postAdmin(id),
        created_at: row.created_at.toISOString(),
        updated_at: row.updated_at.toISOString(),
    };
}
//# sourceMappingURL=post.mapper.js.map