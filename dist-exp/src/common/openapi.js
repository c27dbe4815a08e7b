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
exports.ApiErrors = exports.COMMON_ERROR_EXAMPLES = exports.ERROR_DESCRIPTIONS = exports.errorExample = exports.RequireOneOf = exports.SchemaRule = exports.fallbackOperationId = exports.Operation = exports.ErrorBody = void 0;
exports.applySchemaRules = applySchemaRules;
exports.DataOf = DataOf;
exports.PageOf = PageOf;
const common_1 = require("@nestjs/common");
const swagger_1 = require("@nestjs/swagger");
const app_error_1 = require("./app-error");
let ErrorDetail = class ErrorDetail {
    code;
    message;
};
__decorate([
    (0, swagger_1.ApiProperty)({ enum: Object.keys(app_error_1.ERROR_STATUS) }),
    __metadata("design:type", String)
], ErrorDetail.prototype, "code", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ description: '`invalid_request`: `<field>: <problem>`, several joined by `; `.' }),
    __metadata("design:type", String)
], ErrorDetail.prototype, "message", void 0);
ErrorDetail = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'ErrorDetail' })
], ErrorDetail);
class ErrorBody {
    error;
}
exports.ErrorBody = ErrorBody;
__decorate([
    (0, swagger_1.ApiProperty)({ type: ErrorDetail }),
    __metadata("design:type", ErrorDetail)
], ErrorBody.prototype, "error", void 0);
const Operation = (op) => (0, swagger_1.ApiOperation)({ operationId: op.id, summary: op.summary, description: op.description });
exports.Operation = Operation;
const fallbackOperationId = (controllerKey, methodKey) => methodKey + controllerKey.replace(/Controller$/, '');
exports.fallbackOperationId = fallbackOperationId;
const rules = new Map();
const SchemaRule = (rule) => (target) => {
    rules.set(target, rule);
};
exports.SchemaRule = SchemaRule;
const RequireOneOf = (...keys) => (0, exports.SchemaRule)(({ description, ...object }) => ({
    description,
    anyOf: keys.map((key) => ({ ...object, required: [key] })),
}));
exports.RequireOneOf = RequireOneOf;
function applySchemaRules(schemas) {
    for (const [type, rule] of rules) {
        const name = schemaName(type);
        if (schemas[name])
            schemas[name] = rule(schemas[name]);
    }
}
const named = (cls, name) => Object.defineProperty(cls, 'name', { value: name });
const wrappers = new Map();
const schemaName = (type) => (0, swagger_1.getSchemaPath)(type).split('/').pop();
function DataOf(type, options = {}) {
    const name = `${schemaName(type)}${options.list ? 'List' : ''}Answer`;
    if (!wrappers.has(name)) {
        class Wrapper {
            data;
        }
        __decorate([
            (0, swagger_1.ApiProperty)({ type, isArray: !!options.list }),
            __metadata("design:type", Object)
        ], Wrapper.prototype, "data", void 0);
        wrappers.set(name, named(Wrapper, name));
    }
    return wrappers.get(name);
}
function PageOf(type) {
    const name = `${schemaName(type)}Page`;
    if (!wrappers.has(name)) {
        class Page {
            data;
            has_more;
            next_offset;
        }
        __decorate([
            (0, swagger_1.ApiProperty)({ type, isArray: true }),
            __metadata("design:type", Array)
        ], Page.prototype, "data", void 0);
        __decorate([
            (0, swagger_1.ApiProperty)({ description: 'Whether another page follows.' }),
            __metadata("design:type", Boolean)
        ], Page.prototype, "has_more", void 0);
        __decorate([
            (0, swagger_1.ApiProperty)({ type: 'integer', nullable: true, description: '`offset + data.length` while `has_more`, else null.' }),
            __metadata("design:type", Object)
        ], Page.prototype, "next_offset", void 0);
        wrappers.set(name, named(Page, name));
    }
    return wrappers.get(name);
}
const errorExample = (code, message, summary) => ({
    summary: summary ?? code,
    value: { error: { code, message } },
});
exports.errorExample = errorExample;
exports.ERROR_DESCRIPTIONS = {
    400: '`invalid_request` (`<field>: <problem>`) or `invalid_json`',
    401: '`unauthorized`: a missing, wrong or revoked key',
    403: '`plan_required`: the workspace\'s plan has no API (or no more of what was asked)',
    404: '`not_found`: no such resource in this workspace',
    409: '`conflict`',
    413: '`payload_too_large`: a body over 256 KiB',
    429: '`rate_limited`: over the plan\'s requests per minute, or too many failed authentications; see `Retry-After`',
    500: '`server_error`: our failure; the message carries the request id',
    503: '`query_timeout`: the database work took longer than the server allows and was cancelled; narrow a search, or try again',
};
exports.COMMON_ERROR_EXAMPLES = {
    401: {
        missing_key: (0, exports.errorExample)('unauthorized', 'Send an API key as "Authorization: Bearer <key>".', 'No key'),
        wrong_key: (0, exports.errorExample)('unauthorized', 'The API key is wrong or revoked.', 'A wrong or revoked key'),
    },
    403: { plan_required: (0, exports.errorExample)('plan_required', 'The API is available on the Pro plan and above.') },
    429: {
        rate_limited: (0, exports.errorExample)('rate_limited', 'This workspace\'s plan allows 60 requests per minute. Retry in 12 s.'),
    },
    500: {
        server_error: (0, exports.errorExample)('server_error', 'Something went wrong on our side. Try again later; if it persists, contact support with request id 5f0c6b1e-8a1d-4f57-9a51-2cf3a4b1e0d7.'),
    },
    503: {
        query_timeout: (0, exports.errorExample)('query_timeout', 'The request took longer than the database allows (5000 ms) and was cancelled. ' +
            'For a search, use longer or more distinctive terms, or narrow it with board or status; otherwise try again.'),
    },
};
const CODE_OF = { 400: 'invalid_request', 403: 'plan_required', 404: 'not_found', 409: 'conflict' };
const BODY_EXAMPLES = {
    400: { invalid_json: (0, exports.errorExample)('invalid_json', 'body: is not valid JSON') },
    413: { payload_too_large: (0, exports.errorExample)('payload_too_large', 'body: must be at most 256 KiB') },
};
const ApiErrors = (...statuses) => {
    const examples = new Map();
    for (const entry of statuses) {
        const [status, message] = Array.isArray(entry) ? entry : [entry, undefined];
        const found = examples.get(status) ?? { ...(BODY_EXAMPLES[status] ?? {}) };
        if (message) {
            let key = CODE_OF[status];
            for (let i = 2; key in found; i++)
                key = `${CODE_OF[status]}_${i}`;
            found[key] = (0, exports.errorExample)(CODE_OF[status], message);
        }
        examples.set(status, found);
    }
    return (0, common_1.applyDecorators)(...[...examples].map(([status, found]) => (0, swagger_1.ApiResponse)({
        status,
        description: exports.ERROR_DESCRIPTIONS[status],
        type: ErrorBody,
        examples: status in exports.COMMON_ERROR_EXAMPLES ? { ...exports.COMMON_ERROR_EXAMPLES[status], ...found } : found,
    })));
};
exports.ApiErrors = ApiErrors;
//# sourceMappingURL=openapi.js.map