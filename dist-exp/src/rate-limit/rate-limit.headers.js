"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.wholeSeconds = void 0;
exports.setRateLimitHeaders = setRateLimitHeaders;
exports.rateLimited = rateLimited;
const app_error_1 = require("../common/app-error");
const wholeSeconds = (ms) => Math.max(1, Math.ceil(ms / 1000));
exports.wholeSeconds = wholeSeconds;
function setRateLimitHeaders(res, limit, count, resetInMs) {
    res.setHeader('X-RateLimit-Limit', String(limit));
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, limit - count)));
    res.setHeader('X-RateLimit-Reset', String(Math.ceil((Date.now() + resetInMs) / 1000)));
}
function rateLimited(retryAfterSeconds, message) {
    return new app_error_1.AppError('rate_limited', `${message} Retry in ${retryAfterSeconds} s.`, {
        'Retry-After': String(retryAfterSeconds),
    });
}
//# sourceMappingURL=rate-limit.headers.js.map