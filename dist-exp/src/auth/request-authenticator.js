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
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.RequestAuthenticator = void 0;
const common_1 = require("@nestjs/common");
const ipaddr_js_1 = __importDefault(require("ipaddr.js"));
const app_error_1 = require("../common/app-error");
const app_config_1 = require("../config/app-config");
const rate_limit_headers_1 = require("../rate-limit/rate-limit.headers");
const rate_limit_store_1 = require("../rate-limit/rate-limit.store");
const api_keys_service_1 = require("./api-keys.service");
function clientNetwork(ip) {
    if (!ip || !ipaddr_js_1.default.isValid(ip))
        return 'unknown';
    const address = ipaddr_js_1.default.process(ip);
    if (address.kind() === 'ipv4')
        return address.toString();
    return `${address.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}
let RequestAuthenticator = class RequestAuthenticator {
    keys;
    limits;
    config;
    constructor(keys, limits, config) {
        this.keys = keys;
        this.limits = limits;
        this.config = config;
    }
    async authenticate(req) {
        try {
            req.caller = await this.keys.authorize(req.headers.authorization);
            return req.caller;
        }
        catch (error) {
            if (error instanceof app_error_1.AppError && error.code === 'unauthorized') {
                const failures = await this.limits.take(`authfail:${clientNetwork(req.ip)}`, this.config.authFailureLimit);
                if (!failures.allowed)
                    throw this.tooManyFailures(failures.resetInMs);
            }
            throw error;
        }
    }
    tooManyFailures(resetInMs) {
        return (0, rate_limit_headers_1.rateLimited)((0, rate_limit_headers_1.wholeSeconds)(resetInMs), 'Too many failed authentication attempts from this address.');
    }
};
exports.RequestAuthenticator = RequestAuthenticator;
exports.RequestAuthenticator = RequestAuthenticator = __decorate([
    (0, common_1.Injectable)(),
    __param(2, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [api_keys_service_1.ApiKeysService,
        rate_limit_store_1.RateLimitStore, Object])
], RequestAuthenticator);
//# sourceMappingURL=request-authenticator.js.map