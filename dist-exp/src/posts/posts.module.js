"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.PostsModule = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const boards_module_1 = require("../boards/boards.module");
const webhooks_module_1 = require("../webhooks/webhooks.module");
const workspaces_module_1 = require("../workspaces/workspaces.module");
const post_entity_1 = require("./post.entity");
const posts_controller_1 = require("./posts.controller");
const posts_service_1 = require("./posts.service");
const status_change_entity_1 = require("./status-change.entity");
const vote_entity_1 = require("./vote.entity");
let PostsModule = class PostsModule {
};
exports.PostsModule = PostsModule;
exports.PostsModule = PostsModule = __decorate([
    (0, common_1.Module)({
        imports: [
            typeorm_1.TypeOrmModule.forFeature([post_entity_1.PostEntity, vote_entity_1.VoteEntity, status_change_entity_1.StatusChangeEntity]),
            boards_module_1.BoardsModule,
            workspaces_module_1.WorkspacesModule,
            webhooks_module_1.WebhooksModule,
        ],
        controllers: [posts_controller_1.PostsController],
        providers: [posts_service_1.PostsService],
        exports: [posts_service_1.PostsService],
    })
], PostsModule);
//# sourceMappingURL=posts.module.js.map