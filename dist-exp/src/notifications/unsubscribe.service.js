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
exports.UnsubscribeService = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const secret_box_1 = require("../common/secret-box");
const unsubscribe_token_1 = require("./unsubscribe-token");
let UnsubscribeService = class UnsubscribeService {
    db;
    box;
    constructor(db, box) {
        this.db = db;
        this.box = box;
    }
    read(token) {
        const who = (0, unsubscribe_token_1.readUnsubscribeToken)(this.box, token);
        if (!who)
            throw app_error_1.AppError.notFound('unsubscribe link');
        return who;
    }
    async unsubscribe(token) {
        const { workspaceId, email } = this.read(token);
        await this.db.query(`UPDATE people SET email_unsubscribed_at = coalesce(email_unsubscribed_at, now())
        WHERE workspace_id = $1 AND lower(email) = lower($2)`, [workspaceId, email]);
    }
};
exports.UnsubscribeService = UnsubscribeService;
exports.UnsubscribeService = UnsubscribeService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource,
        secret_box_1.SecretBox])
], UnsubscribeService);
//# sourceMappingURL=unsubscribe.service.js.map