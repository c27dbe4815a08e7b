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
exports.BoardsService = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const workspaces_service_1 = require("../workspaces/workspaces.service");
const board_entity_1 = require("./board.entity");
let BoardsService = class BoardsService {
    boards;
    workspaces;
    constructor(boards, workspaces) {
        this.boards = boards;
        this.workspaces = workspaces;
    }
    list(workspaceId) {
        return this.boards.find({ where: { workspaceId }, order: { createdAt: 'ASC', slug: 'ASC' } });
    }
    async findBySlug(workspaceId, slug, manager = this.boards.manager) {
        const board = await manager.getRepository(board_entity_1.BoardEntity).findOneBy({ workspaceId, slug });
        if (!board)
            throw app_error_1.AppError.notFound(`board "${slug}"`);
        return board;
    }
    async create(workspaceSlug, input) {
        const workspace = await this.workspaces.findBySlug(workspaceSlug);
        if (!workspaces_service_1.SLUG.test(input.slug))
            throw app_error_1.AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
        if (await this.boards.existsBy({ workspaceId: workspace.id, slug: input.slug })) {
            throw new app_error_1.AppError('conflict', `Board "${input.slug}" already exists in ${workspaceSlug}.`);
        }
        return this.boards.save(this.boards.create({
            workspaceId: workspace.id,
            slug: input.slug,
            name: input.name,
            description: input.description ?? null,
            public: input.public ?? true,
            notifyVoters: input.notifyVoters ?? true,
        }));
    }
};
exports.BoardsService = BoardsService;
exports.BoardsService = BoardsService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectRepository)(board_entity_1.BoardEntity)),
    __metadata("design:paramtypes", [typeorm_2.Repository,
        workspaces_service_1.WorkspacesService])
], BoardsService);
//# sourceMappingURL=boards.service.js.map