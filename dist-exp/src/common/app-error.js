"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.AppError = exports.ERROR_STATUS = void 0;
exports.ERROR_STATUS = {
    unauthorized: 401,
    plan_required: 403,
    not_found: 404,
    conflict: 409,
    invalid_json: 400,
    invalid_request: 400,
    payload_too_large: 413,
    rate_limited: 429,
    server_error: 500,
    query_timeout: 503,
};
class AppError extends Error {
    code;
    headers;
    constructor(code, message, headers = {}) {
        super(message);
        this.code = code;
        this.headers = headers;
        this.name = 'AppError';
    }
    get status() {
        return exports.ERROR_STATUS[this.code];
    }
    static notFound(what = 'resource') {
        return new AppError('not_found', `No such ${what} in this workspace.`);
    }
    static invalid(field, problem) {
        return new AppError('invalid_request', `${field}: ${problem}`);
    }
}
exports.AppError = AppError;
//# sourceMappingURL=app-error.js.map