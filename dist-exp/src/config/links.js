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
exports.Links = void 0;
exports.titleSlug = titleSlug;
const common_1 = require("@nestjs/common");
const app_config_1 = require("./app-config");
function titleSlug(title) {
    return title
        .replace(/[^A-Za-z0-9]+/g, '-')
        .toLowerCase()
        .replace(/^-+|-+$/g, '')
        .slice(0, 60)
        .replace(/-+$/, '');
}
let Links = class Links {
    config;
    constructor(config) {
        this.config = config;
    }
    board(workspaceSlug, boardSlug) {
        return `${this.config.publicBaseUrl}/${workspaceSlug}/${boardSlug}`;
    }
    post(workspaceSlug, boardSlug, id, title) {
        const slug = titleSlug(title);
        return `${this.board(workspaceSlug, boardSlug)}/p/${slug ? `${id}-${slug}` : id}`;
    }
    postAdmin(id) {
        return `${this.config.baseUrl}/admin/p/${id}`;
    }
};
exports.Links = Links;
exports.Links = Links = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [Object])
], Links);
//# sourceMappingURL=links.js.map