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
exports.ErrorFilter = void 0;
exports.toAppError = toAppError;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("typeorm");
const app_config_1 = require("../config/app-config");
const request_authenticator_1 = require("../auth/request-authenticator");
const workspace_rate_limiter_1 = require("../rate-limit/workspace-rate-limiter");
const app_error_1 = require("./app-error");
const HTTP_CODES = {
    404: 'not_found',
    409: 'conflict',
    413: 'payload_too_large',
    429: 'rate_limited',
};
let ErrorFilter = class ErrorFilter {
    authenticator;
    limiter;
    config;
    logger = new common_1.Logger('Errors');
    constructor(authenticator, limiter, config) {
        this.authenticator = authenticator;
        this.limiter = limiter;
        this.config = config;
    }
    async catch(exception, host) {
        const req = host.switchToHttp().getRequest();
        const res = host.switchToHttp().getResponse();
        let error = this.toAppError(exception, req);
        if (exception instanceof common_1.NotFoundException && req.path.startsWith('/api') && !req.caller) {
            error = await this.authenticator
                .authenticate(req)
                .then(() => this.limiter.apply(req, res))
                .then(() => error, (guardError) => this.toAppError(guardError, req));
        }
        if (error.code === 'query_timeout') {
            this.logger.warn(`${req.method} ${req.originalUrl} cancelled by the statement timeout (request ${req.id})`);
        }
        else if (error.status >= 500) {
            this.logger.error(`${req.method} ${req.originalUrl} failed (request ${req.id})`, exception instanceof Error ? exception.stack : String(exception));
        }
        if (res.headersSent)
            return;
        res.status(error.status);
        for (const [name, value] of Object.entries(error.headers))
            res.setHeader(name, value);
        res.json({ error: { code: error.code, message: error.message } });
    }
    toAppError(exception, req) {
        return toAppError(exception, req, this.config.databaseStatementTimeoutMs);
    }
};
exports.ErrorFilter = ErrorFilter;
exports.ErrorFilter = ErrorFilter = __decorate([
    (0, common_1.Catch)(),
    __param(2, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [request_authenticator_1.RequestAuthenticator,
        workspace_rate_limiter_1.WorkspaceRateLimiter, Object])
], ErrorFilter);
function toAppError(exception, req, statementTimeoutMs) {
    if (exception instanceof app_error_1.AppError)
        return exception;
    if (exception instanceof common_1.HttpException && exception.getStatus() < 500) {
        const code = HTTP_CODES[exception.getStatus()] ?? 'invalid_request';
        if (code === 'not_found' || exception.message.startsWith('Failed to decode param')) {
            return new app_error_1.AppError('not_found', `No route for ${req.method} ${req.path}.`);
        }
        return new app_error_1.AppError(code, exception.message);
    }
    if (exception instanceof typeorm_1.QueryFailedError && exception.driverError?.code === '57014') {
        return new app_error_1.AppError('query_timeout', `The request took longer than the database allows (${statementTimeoutMs} ms) and was cancelled. ` +
            'For a search, use longer or more distinctive terms, or narrow it with board or status; otherwise try again.');
    }
    return new app_error_1.AppError('server_error', `Something went wrong on our side. Try again later; if it persists, contact support with request id ${req.id}.`);
}
//# sourceMappingURL=error.filter.js.map