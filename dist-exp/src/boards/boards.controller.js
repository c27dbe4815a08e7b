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
exports.BoardsController = void 0;
const swagger_1 = require("@nestjs/swagger");
const openapi_1 = require("../common/openapi");
const common_1 = require("@nestjs/common");
const caller_decorator_1 = require("../auth/caller.decorator");
const links_1 = require("../config/links");
const board_mapper_1 = require("./board.mapper");
const boards_service_1 = require("./boards.service");
let BoardsController = class BoardsController {
    boards;
    links;
    constructor(boards, links) {
        this.boards = boards;
        this.links = links;
    }
    async list(caller) {
        const boards = await this.boards.list(caller.workspaceId);
        return { data: boards.map((b) => (0, board_mapper_1.toBoardResponse)(b, caller.workspaceSlug, this.links)) };
    }
};
exports.BoardsController = BoardsController;
__decorate([
    (0, common_1.Get)(),
    (0, openapi_1.Operation)({ id: 'listBoards', summary: 'List boards', description: 'Every board of the workspace, private ones included.' }),
    (0, swagger_1.ApiOkResponse)({ type: (0, openapi_1.DataOf)(board_mapper_1.BoardResponse, { list: true }) }),
    __param(0, (0, caller_decorator_1.CurrentCaller)()),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", Promise)
], BoardsController.prototype, "list", null);
exports.BoardsController = BoardsController = __decorate([
    (0, swagger_1.ApiTags)('Boards'),
    (0, swagger_1.ApiBearerAuth)(),
    (0, common_1.Controller)('api/v1/boards'),
    __metadata("design:paramtypes", [boards_service_1.BoardsService,
        links_1.Links])
], BoardsController);
//# sourceMappingURL=boards.controller.js.map