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
exports.WorkspacesService = exports.SLUG = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const caller_cache_1 = require("../auth/caller-cache");
const app_error_1 = require("../common/app-error");
const person_entity_1 = require("./person.entity");
const workspace_entity_1 = require("./workspace.entity");
exports.SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
let WorkspacesService = class WorkspacesService {
    workspaces;
    people;
    callers;
    constructor(workspaces, people, callers) {
        this.workspaces = workspaces;
        this.people = people;
        this.callers = callers;
    }
    async create(input) {
        if (!exports.SLUG.test(input.slug)) {
            throw app_error_1.AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
        }
        if (await this.workspaces.existsBy({ slug: input.slug })) {
            throw new app_error_1.AppError('conflict', `A workspace with slug "${input.slug}" already exists.`);
        }
        return this.workspaces.save(this.workspaces.create(input));
    }
    async findBySlug(slug) {
        const workspace = await this.workspaces.findOneBy({ slug });
        if (!workspace)
            throw app_error_1.AppError.notFound(`workspace "${slug}"`);
        return workspace;
    }
    list() {
        return this.workspaces.find({ order: { createdAt: 'ASC' } });
    }
    async setPlan(slug, plan) {
        const workspace = await this.findBySlug(slug);
        workspace.plan = plan;
        const saved = await this.workspaces.save(workspace);
        this.callers.clear();
        return saved;
    }
    async addPerson(workspaceId, input, manager = this.people.manager) {
        if (input.email && (await this.findByEmail(workspaceId, input.email, manager))) {
            throw new app_error_1.AppError('conflict', `Someone with email ${input.email} is already in this workspace.`);
        }
        const repo = manager.getRepository(person_entity_1.PersonEntity);
        return repo.save(repo.create({ workspaceId, kind: input.kind, name: input.name, email: input.email ?? null }));
    }
    findByEmail(workspaceId, email, manager = this.people.manager) {
        return manager
            .getRepository(person_entity_1.PersonEntity)
            .createQueryBuilder('p')
            .where('p.workspace_id = :workspaceId AND lower(p.email) = lower(:email)', { workspaceId, email })
            .getOne();
    }
    listMembers(workspaceId) {
        return this.people.find({ where: { workspaceId, kind: 'member' }, order: { createdAt: 'ASC' } });
    }
    async findMemberByEmail(workspaceId, email) {
        const person = await this.findByEmail(workspaceId, email);
        if (!person || person.kind !== 'member')
            throw app_error_1.AppError.notFound(`member with email ${email}`);
        return person;
    }
    async resolveAuthor(workspaceId, author, manager, field = 'author') {
        if (author.email) {
            const known = await this.findByEmail(workspaceId, author.email, manager);
            if (known)
                return known;
        }
        if (!author.name)
            throw app_error_1.AppError.invalid(`${field}.name`, 'is required');
        const inserted = await manager.query(`INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'guest', $2, $3)
       ON CONFLICT (workspace_id, lower(email)) WHERE email IS NOT NULL DO NOTHING
       RETURNING id`, [workspaceId, author.name, author.email ?? null]);
        if (inserted.length > 0) {
            return manager.getRepository(person_entity_1.PersonEntity).findOneByOrFail({ workspaceId, id: inserted[0].id });
        }
        return (await this.findByEmail(workspaceId, author.email, manager));
    }
};
exports.WorkspacesService = WorkspacesService;
exports.WorkspacesService = WorkspacesService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectRepository)(workspace_entity_1.WorkspaceEntity)),
    __param(1, (0, typeorm_1.InjectRepository)(person_entity_1.PersonEntity)),
    __metadata("design:paramtypes", [typeorm_2.Repository,
        typeorm_2.Repository,
        caller_cache_1.CallerCache])
], WorkspacesService);
//# sourceMappingURL=workspaces.service.js.map