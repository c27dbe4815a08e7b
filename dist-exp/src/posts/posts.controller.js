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
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.PostsController = void 0;
const swagger_1 = require("@nestjs/swagger");
const openapi_1 = require("../common/openapi");
const common_1 = require("@nestjs/common");
const caller_decorator_1 = require("../auth/caller.decorator");
const page_query_1 = require("../common/page.query");
const post_id_pipe_1 = require("../common/post-id.pipe");
const validation_1 = require("../common/validation");
const create_post_dto_1 = require("./dto/create-post.dto");
const list_posts_query_1 = require("./dto/list-posts.query");
const merge_post_dto_1 = require("./dto/merge-post.dto");
const update_post_dto_1 = require("./dto/update-post.dto");
const vote_dto_1 = require("./dto/vote.dto");
const post_mapper_1 = require("./post.mapper");
const posts_service_1 = require("./posts.service");
let PostsController = class PostsController {
    posts;
    constructor(posts) {
        this.posts = posts;
    }
    list(caller, query) {
        return this.posts.list(caller, {
            board: query.board || undefined,
            status: query.status,
            q: query.q,
            sort: query.sort ?? 'new',
            includeMerged: query.include_merged === 'true',
            ...(0, page_query_1.toPage)(query),
        });
    }
    async create(caller, body) {
        return { data: await this.posts.create(caller, body) };
    }
    async get(caller, id) {
        return { data: await this.posts.get(caller, id) };
    }
    async update(caller, id, body) {
        return { data: await this.posts.setStatus(caller, id, body.status) };
    }
    async merge(caller, id, body) {
        return { data: await this.posts.merge(caller, id, body.into) };
    }
    listVotes(caller, id, query) {
        return this.posts.listVoters(caller, id, (0, page_query_1.toPage)(query));
    }
    async vote(caller, id, body, res) {
        const { post, added } = await this.posts.addVote(caller, id, body.voter);
        if (!added)
            res.status(200);
        return { data: post };
    }
    async unvote(caller, id, body) {
        await this.posts.removeVote(caller, id, body.voter);
    }
};
exports.PostsController = PostsController;
__decorate([
    (0, common_1.Get)(),
    (0, openapi_1.Operation)({
        id: 'listPosts',
        summary: 'List posts',
        description: 'A page of the workspace\'s posts, newest first by default, optionally of one board or status, matching search terms. ' +
            'Merged posts are left out unless `include_merged=true`. Walk the pages with `next_offset`.',
    }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.PageOf)(post_mapper_1.PostResponse) }),
    (0, openapi_1.ApiErrors)([400, 'limit: must be an integer from 1 to 100'], [404, 'No such board "nope" in this workspace.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Query)(validation_1.QueryValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, list_posts_query_1.ListPostsQuery]),
    __metadata("design:returntype", void 0)
], PostsController.prototype, "list", null);
__decorate([
    (0, common_1.Post)(),
    (0, openapi_1.Operation)({
        id: 'createPost',
        summary: 'Create a post',
        description: 'Creates a post on a board, as the given author or as the key\'s creator; the author\'s vote counts (`votes: 1`). ' +
            'Sends `post.created`.',
    }),
    (0, swagger_1.ApiCreatedResponse)({ type: (0, openapi_1.DataOf)(post_mapper_1.PostResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'title: must be 4 to 120 characters'], [404, 'No such board "nope" in this workspace.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, create_post_dto_1.CreatePostDto]),
    __metadata("design:returntype", Promise)
], PostsController.prototype, "create", null);
__decorate([
    (0, common_1.Get)(':id'),
    (0, openapi_1.Operation)({ id: 'getPost', summary: 'Get a post', description: 'One post of the workspace, merged ones included.' }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'integer', minimum: 1 } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(post_mapper_1.PostResponse) }),
    (0, openapi_1.ApiErrors)([404, 'No such post in this workspace.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number]),
    __metadata("design:returntype", Promise)
], PostsController.prototype, "get", null);
__decorate([
    (0, common_1.Patch)(':id'),
    (0, openapi_1.Operation)({
        id: 'updatePost',
        summary: 'Change a post\'s status',
        description: 'Sets the status; any status may follow any. Sends `post.status_changed` unless the post already has that status, ' +
            'in which case nothing changes.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'integer', minimum: 1 } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(post_mapper_1.PostResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'status: must be one of open, planned, in_progress, done, closed'], [404, 'No such post in this workspace.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number, update_post_dto_1.UpdatePostDto]),
    __metadata("design:returntype", Promise)
], PostsController.prototype, "update", null);
__decorate([
    (0, common_1.Post)(':id/merge'),
    (0, common_1.HttpCode)(200),
    (0, openapi_1.Operation)({
        id: 'mergePost',
        summary: 'Merge a post into another',
        description: 'Merges a duplicate into another post of the workspace: it is closed, its voters count on the target, its comments stay. ' +
            'Sends `post.status_changed` with `merged_into`.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'integer', minimum: 1 } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(post_mapper_1.PostResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'into: must be another post'], [404, 'No such post in this workspace.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number, merge_post_dto_1.MergePostDto]),
    __metadata("design:returntype", Promise)
], PostsController.prototype, "merge", null);
__decorate([
    (0, common_1.Get)(':id/votes'),
    (0, openapi_1.Operation)({ id: 'listVotes', summary: 'List a post\'s voters', description: 'The post\'s voters, newest vote first: names only, never an email.' }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'integer', minimum: 1 } }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.PageOf)(post_mapper_1.VoterResponse) }),
    (0, openapi_1.ApiErrors)([400, 'limit: must be an integer from 1 to 100'], [404, 'No such post in this workspace.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __param(2, (0, common_1.Query)(validation_1.QueryValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number, page_query_1.PageQuery]),
    __metadata("design:returntype", void 0)
], PostsController.prototype, "listVotes", null);
__decorate([
    (0, common_1.Post)(':id/votes'),
    (0, openapi_1.Operation)({
        id: 'addVote',
        summary: 'Vote on behalf of a person',
        description: 'Adds the vote of a known person (by email) or a new guest (by name), with the rules of a post\'s `author`; a merged ' +
            'post\'s vote goes to its target. Answers with the post the vote counts on: 201 for a new vote (and a `post.voted` ' +
            'event), 200 unchanged when it was there.',
    }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'integer', minimum: 1 } }),
    (0, swagger_1.ApiCreatedResponse)({ type: (0, openapi_1.DataOf)(post_mapper_1.PostResponse), description: 'A new vote.' }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(post_mapper_1.PostResponse), description: 'The vote was already there.' }),
    (0, openapi_1.ApiErrors)(400, [400, 'voter.name: is required'], [404, 'No such post in this workspace.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __param(3, (0, common_1.Res)({ passthrough: true })),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number, vote_dto_1.VoteDto, Object]),
    __metadata("design:returntype", Promise)
], PostsController.prototype, "vote", null);
__decorate([
    (0, common_1.Delete)(':id/votes'),
    (0, common_1.HttpCode)(204),
    (0, openapi_1.Operation)({ id: 'removeVote', summary: 'Remove a vote', description: 'Removes a person\'s vote (by email; omitted: the key\'s creator).' }),
    (0, swagger_1.ApiParam)({ name: 'id', schema: { type: 'integer', minimum: 1 } }),
    (0, swagger_1.ApiNoContentResponse)({ description: 'Removed, or there was none.' }),
    (0, openapi_1.ApiErrors)(400, [400, 'voter.email: is required to remove a vote'], [404, 'No such post in this workspace.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number, vote_dto_1.VoteDto]),
    __metadata("design:returntype", Promise)
], PostsController.prototype, "unvote", null);
exports.PostsController = PostsController = __decorate([
    (0, swagger_1.ApiTags)('Posts'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, common_1.Controller)('api/v1/posts'),
    __metadata("design:paramtypes", [posts_service_1.PostsService])
], PostsController);
//# sourceMappingURL=posts.controller.js.map