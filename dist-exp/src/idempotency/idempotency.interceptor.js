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
exports.IdempotencyInterceptor = exports.MAX_KEY_LENGTH = void 0;
const node_crypto_1 = require("node:crypto");
const common_1 = require("@nestjs/common");
const rxjs_1 = require("rxjs");
const app_error_1 = require("../common/app-error");
const error_filter_1 = require("../common/error.filter");
const app_config_1 = require("../config/app-config");
const idempotency_store_1 = require("./idempotency.store");
exports.MAX_KEY_LENGTH = 255;
function canonicalJson(value) {
    if (Array.isArray(value))
        return `[${value.map(canonicalJson).join(',')}]`;
    if (value !== null && typeof value === 'object') {
        const entries = Object.keys(value)
            .sort()
            .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`);
        return `{${entries.join(',')}}`;
    }
    return JSON.stringify(value) ?? 'null';
}
const requestHash = (req) => (0, node_crypto_1.createHash)('sha256').update(`${req.method} ${req.path}\n${canonicalJson(req.body)}`).digest('hex');
let IdempotencyInterceptor = class IdempotencyInterceptor {
    store;
    config;
    logger = new common_1.Logger('Idempotency');
    constructor(store, config) {
        this.store = store;
        this.config = config;
    }
    intercept(context, next) {
        const req = context.switchToHttp().getRequest();
        const res = context.switchToHttp().getResponse();
        const key = req.headers['idempotency-key'];
        if (req.method !== 'POST' || typeof key !== 'string' || !req.caller)
            return next.handle();
        if (key.length === 0 || key.length > exports.MAX_KEY_LENGTH) {
            throw app_error_1.AppError.invalid('idempotency-key', `must be 1 to ${exports.MAX_KEY_LENGTH} characters`);
        }
        return (0, rxjs_1.from)(this.store.claim(req.caller.workspaceId, key, requestHash(req))).pipe((0, rxjs_1.mergeMap)((claim) => {
            switch (claim.kind) {
                case 'different_request':
                    throw app_error_1.AppError.invalid('idempotency-key', 'was used with a different request');
                case 'in_flight':
                    throw new app_error_1.AppError('conflict', 'A request with this Idempotency-Key is still in progress; retry it later.');
                case 'replay':
                    res.status(claim.status);
                    res.setHeader('Idempotent-Replayed', 'true');
                    return (0, rxjs_1.of)(claim.body);
                case 'owned':
                    return this.run(claim, next, req, res);
            }
        }));
    }
    run(claim, next, req, res) {
        return next.handle().pipe((0, rxjs_1.mergeMap)(async (body) => {
            await this.settle(claim, res.statusCode, body);
            return body;
        }), (0, rxjs_1.catchError)(async (error) => {
            const answer = (0, error_filter_1.toAppError)(error, req, this.config.databaseStatementTimeoutMs);
            await this.settle(claim, answer.status, { error: { code: answer.code, message: answer.message } });
            throw error;
        }));
    }
    async settle(claim, status, body) {
        try {
            if (status >= 500 || status === 400)
                await this.store.release(claim);
            else
                await this.store.complete(claim, status, body);
        }
        catch (error) {
            this.logger.error(`Idempotency-Key ${JSON.stringify(claim.key)}: the answer could not be stored: ${error.message}`);
        }
    }
};
exports.IdempotencyInterceptor = IdempotencyInterceptor;
exports.IdempotencyInterceptor = IdempotencyInterceptor = __decorate([
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [idempotency_store_1.IdempotencyStore, Object])
], IdempotencyInterceptor);
//# sourceMappingURL=idempotency.interceptor.js.map