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
exports.WorkspaceThrottlerGuard = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const throttler_1 = require("@nestjs/throttler");
const workspace_rate_limiter_1 = require("./workspace-rate-limiter");
let WorkspaceThrottlerGuard = class WorkspaceThrottlerGuard extends throttler_1.ThrottlerGuard {
    limiter;
    constructor(options, storage, reflector, limiter) {
        super(options, storage, reflector);
        this.limiter = limiter;
    }
    async handleRequest({ context }) {
        const http = context.switchToHttp();
        const req = http.getRequest();
        if (req.caller)
            await this.limiter.apply(req, http.getResponse());
        return true;
    }
};
exports.WorkspaceThrottlerGuard = WorkspaceThrottlerGuard;
exports.WorkspaceThrottlerGuard = WorkspaceThrottlerGuard = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, throttler_1.InjectThrottlerOptions)()),
    __param(1, (0, throttler_1.InjectThrottlerStorage)()),
    __metadata("design:paramtypes", [Object, Object, core_1.Reflector,
        workspace_rate_limiter_1.WorkspaceRateLimiter])
], WorkspaceThrottlerGuard);
//# sourceMappingURL=workspace-throttler.guard.js.map