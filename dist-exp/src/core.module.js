"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var CoreModule_1;
Object.defineProperty(exports, "__esModule", { value: true });
exports.CoreModule = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const auth_module_1 = require("./auth/auth.module");
const boards_module_1 = require("./boards/boards.module");
const comments_module_1 = require("./comments/comments.module");
const config_module_1 = require("./config/config.module");
const data_source_options_1 = require("./database/data-source-options");
const posts_module_1 = require("./posts/posts.module");
const webhooks_module_1 = require("./webhooks/webhooks.module");
const workspaces_module_1 = require("./workspaces/workspaces.module");
let CoreModule = CoreModule_1 = class CoreModule {
    static forRoot(config, database) {
        return {
            module: CoreModule_1,
            imports: [
                config_module_1.ConfigModule.forRoot(config, database),
                typeorm_1.TypeOrmModule.forRoot((0, data_source_options_1.dataSourceOptions)(database.url, database.embedded, config.databaseStatementTimeoutMs)),
                workspaces_module_1.WorkspacesModule,
                auth_module_1.AuthModule,
                boards_module_1.BoardsModule,
                posts_module_1.PostsModule,
                comments_module_1.CommentsModule,
                webhooks_module_1.WebhooksModule,
            ],
            exports: [
                config_module_1.ConfigModule,
                workspaces_module_1.WorkspacesModule,
                auth_module_1.AuthModule,
                boards_module_1.BoardsModule,
                posts_module_1.PostsModule,
                comments_module_1.CommentsModule,
                webhooks_module_1.WebhooksModule,
            ],
        };
    }
};
exports.CoreModule = CoreModule;
exports.CoreModule = CoreModule = CoreModule_1 = __decorate([
    (0, common_1.Module)({})
], CoreModule);
//# sourceMappingURL=core.module.js.map