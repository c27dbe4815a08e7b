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
Object.defineProperty(exports, "__esModule", { value: true });
exports.WorkspaceRateLimiter = void 0;
const common_1 = require("@nestjs/common");
const plans_1 = require("../workspaces/plans");
const rate_limit_headers_1 = require("./rate-limit.headers");
const rate_limit_store_1 = require("./rate-limit.store");
let WorkspaceRateLimiter = class WorkspaceRateLimiter {
    store;
    constructor(store) {
        this.store = store;
    }
    async apply(req, res) {
        const caller = req.caller;
        const limit = (0, plans_1.isPlan)(caller.plan) ? plans_1.PLANS[caller.plan].requestsPerMinute : 0;
        const tally = await this.store.take(`ws:${caller.workspaceId}`, limit);
        (0, rate_limit_headers_1.setRateLimitHeaders)(res, limit, tally.count, tally.resetInMs);
        if (!tally.allowed) {
            const windowMs = this.store.windowMs;
            const per = windowMs === 60_000 ? 'minute' : `${windowMs / 1000} seconds`;
            throw (0, rate_limit_headers_1.rateLimited)((0, rate_limit_headers_1.wholeSeconds)(tally.resetInMs), `This workspace's plan allows ${limit} requests per ${per}.`);
        }
    }
};
exports.WorkspaceRateLimiter = WorkspaceRateLimiter;
exports.WorkspaceRateLimiter = WorkspaceRateLimiter = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [rate_limit_store_1.RateLimitStore])
], WorkspaceRateLimiter);
//# sourceMappingURL=workspace-rate-limiter.js.map