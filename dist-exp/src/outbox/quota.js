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
exports.Quota = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_config_1 = require("../config/app-config");
const queries_1 = require("../database/queries");
const plans_1 = require("../workspaces/plans");
const MONTH = `date_trunc('month', now() AT TIME ZONE 'UTC')::date`;
const HOUR = `date_trunc('hour', now())`;
let Quota = class Quota {
    db;
    config;
    constructor(db, config) {
        this.db = db;
        this.config = config;
    }
    async reserveAttempts(workspaceId, plan, count) {
        const quota = (0, plans_1.isPlan)(plan) ? plans_1.PLANS[plan].deliveriesPerMonth : 0;
        if (quota <= 0 || count <= 0)
            return 0;
        return this.reserve('delivery_usage', 'month', MONTH, 'attempts', workspaceId, count, quota);
    }
    async reserveEmails(workspaceId, count) {
        if (count <= 0)
            return 0;
        return this.reserve('email_usage', 'hour', HOUR, 'sent', workspaceId, count, this.config.emailHourlyLimit);
    }
    async reserve(table, period, current, counter, workspaceId, count, limit) {
        if (limit <= 0)
            return 0;
        const add = () => (0, queries_1.updateReturning)(this.db, `WITH before AS (SELECT ${counter} AS used FROM ${table} WHERE workspace_id = $1 AND ${period} = ${current} FOR UPDATE)
         UPDATE ${table} u SET ${counter} = LEAST(before.used + $2, greatest($3, before.used))
           FROM before
          WHERE u.workspace_id = $1 AND u.${period} = ${current}
         RETURNING greatest(LEAST(before.used + $2, $3) - before.used, 0)::integer AS granted`, [workspaceId, count, limit]);
        let [row] = await add();
        if (!row) {
            await this.db.query(`INSERT INTO ${table} (workspace_id, ${period}, ${counter}) VALUES ($1, ${current}, 0) ON CONFLICT DO NOTHING`, [workspaceId]);
            [row] = await add();
        }
        return row?.granted ?? 0;
    }
};
exports.Quota = Quota;
exports.Quota = Quota = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, Object])
], Quota);
//# sourceMappingURL=quota.js.map