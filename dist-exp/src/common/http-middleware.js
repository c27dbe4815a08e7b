"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.MAX_BODY_BYTES = void 0;
exports.requestId = requestId;
exports.valueProblem = valueProblem;
exports.jsonBody = jsonBody;
const express_1 = __importDefault(require("express"));
const app_error_1 = require("./app-error");
const random_1 = require("./random");
exports.MAX_BODY_BYTES = 256 * 1024;
function requestId(req, res, next) {
    req.id = `req_${(0, random_1.pooledRandomId)(12)}`;
    res.setHeader('Request-Id', req.id);
    next();
}
const JSON_MEDIA_TYPE = /^application\/([\w.+-]+\+)?json$/i;
const hasBody = (req) => req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
const MAX_DEPTH = 32;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
function valueProblem(value, path, depth = 0) {
    if (typeof value === 'string') {
        if (value.includes('\u0000'))
            return app_error_1.AppError.invalid(path, 'must not contain NUL characters');
        if (!value.isWellFormed())
            return app_error_1.AppError.invalid(path, 'must be valid Unicode text');
        return null;
    }
    if (value === null || typeof value !== 'object')
        return null;
    if (depth >= MAX_DEPTH)
        return app_error_1.AppError.invalid(path, `is nested more than ${MAX_DEPTH} levels deep`);
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
    for (const [key, child] of entries) {
        const childPath = path === 'body' ? key : `${path}.${key}`;
        if (FORBIDDEN_KEYS.has(key))
            return app_error_1.AppError.invalid(childPath, 'is not allowed');
        const problem = valueProblem(child, childPath, depth + 1);
        if (problem)
            return problem;
    }
    return null;
}
const parseJson = express_1.default.json({ limit: exports.MAX_BODY_BYTES, strict: false, type: () => true });
function jsonBody(req, res, next) {
    if (!hasBody(req) || req.path.startsWith('/email/')) {
        req.body = {};
        if (hasBody(req))
            req.resume();
        return next();
    }
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim();
    if (!JSON_MEDIA_TYPE.test(mediaType)) {
        req.body = {};
        req.bodyError = app_error_1.AppError.invalid('content-type', 'must be application/json');
        req.resume();
        return next();
    }
    parseJson(req, res, (error) => {
        if (error) {
            req.body = {};
            req.bodyError =
                error.type === 'entity.too.large'
                    ? new app_error_1.AppError('payload_too_large', `body: must be at most ${exports.MAX_BODY_BYTES / 1024} KiB`)
                    : error.type === 'entity.parse.failed'
                        ? new app_error_1.AppError('invalid_json', 'body: is not valid JSON')
                        : app_error_1.AppError.invalid('body', 'could not be read as UTF-8 JSON');
        }
        else if (req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
            req.body = {};
            req.bodyError = app_error_1.AppError.invalid('body', 'must be a JSON object');
        }
        else {
            const problem = valueProblem(req.body, 'body');
            if (problem) {
                req.body = {};
                req.bodyError = problem;
            }
        }
        next();
    });
}
//# sourceMappingURL=http-middleware.js.map