"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.WorkspacesModule = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const caller_cache_1 = require("../auth/caller-cache");
const person_entity_1 = require("./person.entity");
const workspace_entity_1 = require("./workspace.entity");
const workspaces_service_1 = require("./workspaces.service");
let WorkspacesModule = class WorkspacesModule {
};
exports.WorkspacesModule = WorkspacesModule;
exports.WorkspacesModule = WorkspacesModule = __decorate([
    (0, common_1.Module)({
        imports: [typeorm_1.TypeOrmModule.forFeature([workspace_entity_1.WorkspaceEntity, person_entity_1.PersonEntity])],
        providers: [workspaces_service_1.WorkspacesService, caller_cache_1.CallerCache],
        exports: [workspaces_service_1.WorkspacesService, caller_cache_1.CallerCache],
    })
], WorkspacesModule);
//# sourceMappingURL=workspaces.module.js.map