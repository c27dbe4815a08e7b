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
exports.CommentsController = void 0;
const swagger_1 = require("@nestjs/swagger");
const openapi_1 = require("../common/openapi");
const common_1 = require("@nestjs/common");
const caller_decorator_1 = require("../auth/caller.decorator");
const post_id_pipe_1 = require("../common/post-id.pipe");
const validation_1 = require("../common/validation");
const comment_mapper_1 = require("./comment.mapper");
const comments_service_1 = require("./comments.service");
const create_comment_dto_1 = require("./dto/create-comment.dto");
let CommentsController = class CommentsController {
    comments;
    constructor(comments) {
        this.comments = comments;
    }
    async list(caller, postId) {
        return { data: await this.comments.list(caller, postId) };
    }
    async create(caller, postId, body) {
        return { data: await this.comments.create(caller, postId, { body: body.body }) };
    }
};
exports.CommentsController = CommentsController;
__decorate([
    (0, common_1.Get)(),
    (0, openapi_1.Operation)({ id: 'listComments', summary: 'List a post\'s comments', description: 'Every comment of the post, oldest first.' }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(comment_mapper_1.CommentResponse, { list: true }) }),
    (0, openapi_1.ApiErrors)([404, 'No such post in this workspace.']),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number]),
    __metadata("design:returntype", Promise)
], CommentsController.prototype, "list", null);
__decorate([
    (0, common_1.Post)(),
    (0, openapi_1.Operation)({
        id: 'createComment',
        summary: 'Reply to a post',
        description: 'Posts an official team reply as the key\'s creator; the post\'s `comments` count goes up. Sends `comment.created`.',
    }),
    (0, swagger_1.ApiCreatedResponse)({ type: (0, openapi_1.DataOf)(comment_mapper_1.CommentResponse) }),
    (0, openapi_1.ApiErrors)(400, [400, 'body: must be 1 to 2000 characters'], [404, 'No such post in this workspace.'], 413),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __param(1, (0, common_1.Param)('id', post_id_pipe_1.PostIdPipe)),
    __param(2, (0, common_1.Body)(validation_1.BodyValidation)),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object, Number, create_comment_dto_1.CreateCommentDto]),
    __metadata("design:returntype", Promise)
], CommentsController.prototype, "create", null);
exports.CommentsController = CommentsController = __decorate([
    (0, swagger_1.ApiTags)('Comments'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, swagger_1.ApiParam)({ name: 'id', description: 'The post.', schema: { type: 'integer', minimum: 1 } }),
    (0, common_1.Controller)('api/v1/posts/:id/comments'),
    __metadata("design:paramtypes", [comments_service_1.CommentsService])
], CommentsController);
//# sourceMappingURL=comments.controller.js.map