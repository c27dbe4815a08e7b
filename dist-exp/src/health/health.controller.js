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
exports.HealthController = exports.OUTBOX_STUCK_SECONDS = void 0;
const swagger_1 = require("@nestjs/swagger");
const common_1 = require("@nestjs/common");
const terminus_1 = require("@nestjs/terminus");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const public_decorator_1 = require("../auth/public.decorator");
const metrics_service_1 = require("../metrics/metrics.service");
const rate_limit_store_1 = require("../rate-limit/rate-limit.store");
exports.OUTBOX_STUCK_SECONDS = 300;
let HealthController = class HealthController {
    health;
    indicators;
    typeorm;
    limits;
    db;
    constructor(health, indicators, typeorm, limits, db) {
        this.health = health;
        this.indicators = indicators;
        this.typeorm = typeorm;
        this.limits = limits;
        this.db = db;
    }
    live() {
        return { status: 'ok' };
    }
    async ready(res) {
        try {
            return await this.health.check([
                () => this.typeorm.pingCheck('database', { timeout: 2_000 }),
                () => this.indicators
                    .check('migrations')
                    .attempt(async () => {
                    if (await this.db.showMigrations())
                        throw new Error('migrations are pending: run npm run migration:run');
                    return {};
                })
                    .withTimeout(3_000),
                () => this.indicators
                    .check('redis')
                    .attempt(async () => {
                    const answers = await this.limits.redisAnswers();
                    if (answers === false)
                        throw new Error('Redis does not answer');
                    return { configured: answers !== null };
                })
                    .withTimeout(2_000),
                () => this.indicators
                    .check('outbox')
                    .attempt(async () => {
                    const { seconds, sending } = await (0, metrics_service_1.oldestDue)(this.db);
                    if (seconds > exports.OUTBOX_STUCK_SECONDS && !sending) {
                        throw new Error(`a delivery has waited ${Math.round(seconds)} s and no processor is sending`);
                    }
                    return { oldest_due_seconds: Math.round(seconds), sending };
                })
                    .withTimeout(3_000),
            ]);
        }
        catch (error) {
            if (!(error instanceof common_1.ServiceUnavailableException))
                throw error;
            res.status(503);
            return error.getResponse();
        }
    }
};
exports.HealthController = HealthController;
__decorate([
    (0, public_decorator_1.Public)(),
    (0, common_1.Get)('healthz'),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", []),
    __metadata("design:returntype", void 0)
], HealthController.prototype, "live", null);
__decorate([
    (0, public_decorator_1.Public)(),
    (0, common_1.Get)('readyz'),
    __param(0, (0, common_1.Res)({ passthrough: true })),
    __metadata("design:type", Function),
    __metadata("design:paramtypes", [Object]),
    __metadata("design:returntype", Promise)
], HealthController.prototype, "ready", null);
exports.HealthController = HealthController = __decorate([
    (0, swagger_1.ApiExcludeController)(),
    (0, common_1.Controller)(),
    __param(4, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [terminus_1.HealthCheckService,
        terminus_1.HealthIndicatorService,
        terminus_1.TypeOrmHealthIndicator,
        rate_limit_store_1.RateLimitStore,
        typeorm_2.DataSource])
], HealthController);
//# sourceMappingURL=health.controller.js.map