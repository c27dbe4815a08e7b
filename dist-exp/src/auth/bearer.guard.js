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
exports.BearerGuard = void 0;
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const public_decorator_1 = require("./public.decorator");
const request_authenticator_1 = require("./request-authenticator");
let BearerGuard = class BearerGuard {
    authenticator;
    reflector;
    constructor(authenticator, reflector) {
        this.authenticator = authenticator;
        this.reflector = reflector;
    }
    async canActivate(context) {
        if (this.reflector.getAllAndOverride(public_decorator_1.IS_PUBLIC, [context.getHandler(), context.getClass()])) {
            return true;
        }
        await this.authenticator.authenticate(context.switchToHttp().getRequest());
        return true;
    }
};
exports.BearerGuard = BearerGuard;
exports.BearerGuard = BearerGuard = __decorate([
    (0, common_1.Injectable)(),
    __metadata("design:paramtypes", [request_authenticator_1.RequestAuthenticator,
        core_1.Reflector])
], BearerGuard);
//# sourceMappingURL=bearer.guard.js.map