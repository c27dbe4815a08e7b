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
exports.PostsService = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const boards_service_1 = require("../boards/boards.service");
const app_error_1 = require("../common/app-error");
const page_query_1 = require("../common/page.query");
const validation_1 = require("../common/validation");
const links_1 = require("../config/links");
const queries_1 = require("../database/queries");
const events_service_1 = require("../webhooks/events.service");
const workspaces_service_1 = require("../workspaces/workspaces.service");
const post_entity_1 = require("./post.entity");
const post_mapper_1 = require("./post.mapper");
const status_change_entity_1 = require("./status-change.entity");
const ORDER = {
    new: 'p.created_at DESC, p.id DESC',
    top: 'p.votes DESC, p.created_at DESC, p.id DESC',
};
const RECENT_WINDOW = 1_000;
const likePattern = (term) => `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
let PostsService = class PostsService {
    db;
    boards;
    workspaces;
    events;
    links;
    constructor(db, boards, workspaces, events, links) {
        this.db = db;
        this.boards = boards;
        this.workspaces = workspaces;
        this.events = events;
        this.links = links;
    }
    async list(actor, filter) {
        const params = [actor.workspaceId];
        const where = ['p.workspace_id = $1'];
        if (filter.board) {
            const board = await this.boards.findBySlug(actor.workspaceId, filter.board);
            params.push(board.id);
            where.push(`p.board_id = $${params.length}`);
        }
        if (filter.status) {
            params.push(filter.status);
            where.push(`p.status = $${params.length}`);
        }
        if (!filter.includeMerged)
            where.push('p.merged_into_id IS NULL');
        const search = [];
        for (const term of (filter.q ?? '').split(/\s+/).filter(Boolean)) {
            params.push(likePattern(term));
            const like = `(p.title || ' ' || p.body) ILIKE $${params.length}`;
            if ((0, validation_1.codePoints)(term) >= 3) {
                search.push(like);
            }
            else {
                params.push(term);
                search.push(`chorus_short_grams(p.title || ' ' || p.body) @> ARRAY[lower($${params.length}::text)] AND ${like}`);
            }
        }
        params.push(filter.limit + 1, filter.offset);
        const [limit, offset] = [`$${params.length - 1}`, `$${params.length}`];
        const order = ORDER[filter.sort];
        const read = async (page) => {
            const rows = await this.db.query(`${(0, post_mapper_1.postSelect)(page)} ORDER BY ${order}`, params);
            return (0, page_query_1.pageOf)(rows.map((row) => (0, post_mapper_1.toPostResponse)(row, actor.workspaceSlug, this.links)), filter);
        };
        const matches = [...where, ...search].join(' AND ');
        if (search.length === 0) {
            return read(`(SELECT * FROM posts p WHERE ${matches} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`);
        }
        if (filter.offset + filter.limit + 1 <= RECENT_WINDOW) {
            const recent = await read(`(SELECT * FROM (SELECT * FROM posts p WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT ${RECENT_WINDOW}) p
           WHERE ${search.join(' AND ')} ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`);
            if (recent.has_more)
                return recent;
        }
        return read(`(SELECT * FROM (SELECT * FROM posts p WHERE ${matches} OFFSET 0) p ORDER BY ${order} LIMIT ${limit} OFFSET ${offset})`);
    }
    async get(actor, id, manager = this.db.manager) {
        const rows = await manager.query(`${(0, post_mapper_1.postSelect)()} WHERE p.workspace_id = $1 AND p.id = $2`, [
            actor.workspaceId,
            id,
        ]);
        if (rows.length === 0)
            throw app_error_1.AppError.notFound('post');
        return (0, post_mapper_1.toPostResponse)(rows[0], actor.workspaceSlug, this.links);
    }
    async create(actor, input) {
        return this.db.transaction(async (manager) => {
            let authorId = actor.personId;
            if (input.author) {
                await this.boards.findBySlug(actor.workspaceId, input.board, manager);
                authorId = (await this.workspaces.resolveAuthor(actor.workspaceId, input.author, manager)).id;
            }
            const rows = await manager.query(`WITH board AS (SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2),
              inserted AS (
                INSERT INTO posts (workspace_id, board_id, title, body, category, author_id, votes)
                SELECT $1, board.id, $3, $4, $5, $6, 1 FROM board
                RETURNING *),
              vote AS (INSERT INTO votes (workspace_id, post_id, person_id) SELECT workspace_id, id, author_id FROM inserted)
         ${(0, post_mapper_1.postSelect)('inserted')}`, [actor.workspaceId, input.board, input.title, input.body ?? '', input.category ?? 'feature', authorId]);
            if (rows.length === 0)
                throw app_error_1.AppError.notFound(`board "${input.board}"`);
            const post = (0, post_mapper_1.toPostResponse)(rows[0], actor.workspaceSlug, this.links);
            await this.events.record(manager, actor.workspaceId, 'post.created', { post }, actor.personId);
            return post;
        });
    }
    async setStatus(actor, id, status) {
        return this.db.transaction(async (manager) => {
            const current = await this.lock(manager, actor.workspaceId, [id]);
            const previous = current.get(id)?.status;
            if (!previous)
                throw app_error_1.AppError.notFound('post');
            if (previous === status)
                return this.get(actor, id, manager);
            await manager.update(post_entity_1.PostEntity, { workspaceId: actor.workspaceId, id }, { status, updatedAt: () => 'now()' });
            await manager.getRepository(status_change_entity_1.StatusChangeEntity).insert({
                workspaceId: actor.workspaceId,
                postId: id,
                fromStatus: previous,
                toStatus: status,
                changedBy: actor.personId,
            });
            const post = await this.get(actor, id, manager);
            await this.events.record(manager, actor.workspaceId, 'post.status_changed', { post, previous_status: previous }, actor.personId);
            return post;
        });
    }
    async merge(actor, id, into) {
        return this.db.transaction(async (manager) => {
            const posts = await this.lock(manager, actor.workspaceId, [id, into]);
            const source = posts.get(id);
            if (!source)
                throw app_error_1.AppError.notFound('post');
            if (into === id)
                throw app_error_1.AppError.invalid('into', 'must be another post');
            const target = posts.get(into);
            if (!target)
                throw app_error_1.AppError.invalid('into', `no post ${into} in this workspace`);
            if (source.mergedIntoId !== null) {
                throw app_error_1.AppError.invalid('path', `post ${id} is already merged into post ${source.mergedIntoId}; merge post ${source.mergedIntoId} instead`);
            }
            if (target.mergedIntoId !== null) {
                throw app_error_1.AppError.invalid('into', `post ${into} is itself merged into post ${target.mergedIntoId}`);
            }
            const ws = actor.workspaceId;
            await manager.query(`INSERT INTO votes (workspace_id, post_id, person_id, created_at)
         SELECT workspace_id, $3, person_id, created_at FROM votes WHERE workspace_id = $1 AND post_id = $2
         ON CONFLICT DO NOTHING`, [ws, id, into]);
            await this.recountVotes(manager, ws, into);
            await manager.update(post_entity_1.PostEntity, { workspaceId: ws, id }, { status: 'closed', mergedIntoId: into, updatedAt: () => 'now()' });
            await manager.getRepository(status_change_entity_1.StatusChangeEntity).insert({
                workspaceId: ws,
                postId: id,
                fromStatus: source.status,
                toStatus: 'closed',
                mergedIntoId: into,
                changedBy: actor.personId,
            });
            const post = await this.get(actor, id, manager);
            await this.events.record(manager, ws, 'post.status_changed', { post, previous_status: source.status, merged_into: post.merged_into }, actor.personId);
            return post;
        });
    }
    async listVoters(actor, id, page) {
        await this.get(actor, id);
        const rows = await this.db.query(`SELECT p.name FROM votes v JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
        WHERE v.workspace_id = $1 AND v.post_id = $2
        ORDER BY v.created_at DESC, v.person_id DESC LIMIT $3 OFFSET $4`, [actor.workspaceId, id, page.limit + 1, page.offset]);
        return (0, page_query_1.pageOf)(rows, page);
    }
    async addVote(actor, id, voter) {
        return this.db.transaction(async (manager) => {
            const chain = await this.lockMergeChain(manager, actor.workspaceId, id);
            const personId = voter ? (await this.workspaces.resolveAuthor(actor.workspaceId, voter, manager, 'voter')).id : actor.personId;
            if (!personId)
                throw app_error_1.AppError.invalid('voter', 'is required');
            return this.castVote(manager, { ...actor, personId: actor.personId ?? personId }, chain.at(-1), personId);
        });
    }
    async vote(actor, postId, personId) {
        return this.db.transaction(async (manager) => {
            const chain = await this.lockMergeChain(manager, actor.workspaceId, postId);
            return this.castVote(manager, actor, chain.at(-1), personId);
        });
    }
    async removeVote(actor, id, voter) {
        if (voter && !voter.email)
            throw app_error_1.AppError.invalid('voter.email', 'is required to remove a vote');
        return this.db.transaction(async (manager) => {
            const chain = await this.lockMergeChain(manager, actor.workspaceId, id);
            const personId = voter ? (await this.workspaces.findByEmail(actor.workspaceId, voter.email, manager))?.id : actor.personId;
            if (!personId)
                return false;
            const removed = await (0, queries_1.updateReturning)(manager, `DELETE FROM votes WHERE workspace_id = $1 AND post_id = ANY($2::bigint[]) AND person_id = $3 RETURNING post_id`, [actor.workspaceId, chain, personId]);
            for (const postId of new Set(removed.map((row) => Number(row.post_id)))) {
                await this.recountVotes(manager, actor.workspaceId, postId);
            }
            return removed.length > 0;
        });
    }
    async castVote(manager, actor, postId, personId) {
        const inserted = await manager.query(`INSERT INTO votes (workspace_id, post_id, person_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING person_id`, [actor.workspaceId, postId, personId]);
        if (inserted.length === 0)
            return { post: await this.get(actor, postId, manager), added: false };
        await this.recountVotes(manager, actor.workspaceId, postId);
        const post = await this.get(actor, postId, manager);
        const [voter] = await manager.query(`SELECT name FROM people WHERE workspace_id = $1 AND id = $2`, [
            actor.workspaceId,
            personId,
        ]);
        await this.events.record(manager, actor.workspaceId, 'post.voted', { post, voter: { name: voter.name } }, actor.personId);
        return { post, added: true };
    }
    async lockMergeChain(manager, workspaceId, id) {
        const chain = [];
        for (let next = id; next !== null && !chain.includes(next);) {
            const post = (await this.lock(manager, workspaceId, [next])).get(next);
            if (!post)
                throw app_error_1.AppError.notFound('post');
            chain.push(next);
            next = post.mergedIntoId;
        }
        return chain;
    }
    async recountVotes(manager, workspaceId, postId) {
        await manager.query(`UPDATE posts SET votes = (SELECT count(*) FROM votes WHERE workspace_id = $1 AND post_id = $2)
        WHERE workspace_id = $1 AND id = $2`, [workspaceId, postId]);
    }
    async lock(manager, workspaceId, ids) {
        const rows = await manager
            .getRepository(post_entity_1.PostEntity)
            .createQueryBuilder('p')
            .where('p.workspace_id = :workspaceId AND p.id IN (:...ids)', { workspaceId, ids })
            .orderBy('p.id')
            .setLock('pessimistic_write')
            .getMany();
        return new Map(rows.map((row) => [row.id, row]));
    }
};
exports.PostsService = PostsService;
exports.PostsService = PostsService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource,
        boards_service_1.BoardsService,
        workspaces_service_1.WorkspacesService,
        events_service_1.EventsService,
        links_1.Links])
], PostsService);
//# sourceMappingURL=posts.service.js.map