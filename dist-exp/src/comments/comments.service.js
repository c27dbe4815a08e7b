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
exports.CommentsService = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const posts_service_1 = require("../posts/posts.service");
const events_service_1 = require("../webhooks/events.service");
const comment_mapper_1 = require("./comment.mapper");
const comment_entity_1 = require("./comment.entity");
let CommentsService = class CommentsService {
    db;
    posts;
    events;
    constructor(db, posts, events) {
        this.db = db;
        this.posts = posts;
        this.events = events;
    }
    async list(actor, postId) {
        const exists = await this.db.query(`SELECT 1 FROM posts WHERE workspace_id = $1 AND id = $2`, [
            actor.workspaceId,
            postId,
        ]);
        if (exists.length === 0)
            throw app_error_1.AppError.notFound('post');
        const rows = await this.db.query(`${comment_mapper_1.COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.post_id = $2 ORDER BY c.created_at, c.id`, [actor.workspaceId, postId]);
        return rows.map(comment_mapper_1.toCommentResponse);
    }
    async create(actor, postId, input) {
        const authorId = input.authorId ?? actor.personId;
        const official = input.authorId === undefined;
        return this.db.transaction(async (manager) => {
            const [, counted] = await manager.query(`UPDATE posts SET comments_count = comments_count + 1 WHERE workspace_id = $1 AND id = $2`, [actor.workspaceId, postId]);
            if (counted === 0)
                throw app_error_1.AppError.notFound('post');
            const saved = await manager
                .getRepository(comment_entity_1.CommentEntity)
                .save({ workspaceId: actor.workspaceId, postId, authorId, body: input.body, official });
            const rows = await manager.query(`${comment_mapper_1.COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.id = $2`, [
                actor.workspaceId,
                saved.id,
            ]);
            const comment = (0, comment_mapper_1.toCommentResponse)(rows[0]);
            const post = await this.posts.get(actor, postId, manager);
            await this.events.record(manager, actor.workspaceId, 'comment.created', { post, comment }, authorId);
            return comment;
        });
    }
};
exports.CommentsService = CommentsService;
exports.CommentsService = CommentsService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource,
        posts_service_1.PostsService,
        events_service_1.EventsService])
], CommentsService);
//# sourceMappingURL=comments.service.js.map