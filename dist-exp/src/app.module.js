"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var AppModule_1;
Object.defineProperty(exports, "__esModule", { value: true });
exports.AppModule = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const bearer_guard_1 = require("./auth/bearer.guard");
const request_authenticator_1 = require("./auth/request-authenticator");
const body_error_interceptor_1 = require("./common/body-error.interceptor");
const error_filter_1 = require("./common/error.filter");
const idempotency_interceptor_1 = require("./idempotency/idempotency.interceptor");
const idempotency_store_1 = require("./idempotency/idempotency.store");
const core_module_1 = require("./core.module");
const health_module_1 = require("./health/health.module");
const metrics_controller_1 = require("./metrics/metrics.controller");
const metrics_module_1 = require("./metrics/metrics.module");
const rate_limit_module_1 = require("./rate-limit/rate-limit.module");
const workspace_throttler_guard_1 = require("./rate-limit/workspace-throttler.guard");
const notifications_module_1 = require("./notifications/notifications.module");
const outbox_module_1 = require("./outbox/outbox.module");
let AppModule = AppModule_1 = class AppModule {
    static forRoot(config, database) {
        return {
            module: AppModule_1,
            imports: [
                core_module_1.CoreModule.forRoot(config, database),
                metrics_module_1.MetricsModule,
                rate_limit_module_1.RateLimitModule,
                health_module_1.HealthModule,
                notifications_module_1.NotificationsModule,
                ...(config.runWorker ? [outbox_module_1.OutboxModule] : []),
            ],
            controllers: [metrics_controller_1.MetricsController],
            providers: [
                request_authenticator_1.RequestAuthenticator,
                { provide: core_1.APP_GUARD, useClass: bearer_guard_1.BearerGuard },
                { provide: core_1.APP_GUARD, useExisting: workspace_throttler_guard_1.WorkspaceThrottlerGuard },
                { provide: core_1.APP_FILTER, useClass: error_filter_1.ErrorFilter },
                idempotency_store_1.IdempotencyStore,
            ],
        };
    }
};
exports.AppModule = AppModule;
exports.AppModule = AppModule = AppModule_1 = __decorate([
    (0, common_1.Module)({})
], AppModule);
//# sourceMappingURL=app.module.js.map