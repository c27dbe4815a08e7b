"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.RateLimitModule = void 0;
const common_1 = require("@nestjs/common");
const throttler_1 = require("@nestjs/throttler");
const app_config_1 = require("../config/app-config");
const rate_limit_store_1 = require("./rate-limit.store");
const workspace_rate_limiter_1 = require("./workspace-rate-limiter");
const workspace_throttler_guard_1 = require("./workspace-throttler.guard");
let RateLimitModule = class RateLimitModule {
};
exports.RateLimitModule = RateLimitModule;
exports.RateLimitModule = RateLimitModule = __decorate([
    (0, common_1.Module)({
        imports: [
            throttler_1.ThrottlerModule.forRootAsync({
                inject: [app_config_1.APP_CONFIG],
                useFactory: (config) => [{ name: 'default', ttl: config.rateLimitWindowMs, limit: 1 }],
            }),
        ],
        providers: [rate_limit_store_1.RateLimitStore, workspace_rate_limiter_1.WorkspaceRateLimiter, workspace_throttler_guard_1.WorkspaceThrottlerGuard],
        exports: [rate_limit_store_1.RateLimitStore, workspace_rate_limiter_1.WorkspaceRateLimiter, workspace_throttler_guard_1.WorkspaceThrottlerGuard],
    })
], RateLimitModule);
//# sourceMappingURL=rate-limit.module.js.map