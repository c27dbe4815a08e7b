"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.NoFields = exports.QueryValidation = exports.BodyValidation = exports.Trim = exports.codePoints = void 0;
exports.HasLength = HasLength;
exports.Optional = Optional;
exports.IsIntegerString = IsIntegerString;
exports.isTimestamp = isTimestamp;
exports.IsTimestamp = IsTimestamp;
exports.validationMessage = validationMessage;
const common_1 = require("@nestjs/common");
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const app_error_1 = require("./app-error");
const http_middleware_1 = require("./http-middleware");
const codePoints = (text) => {
    let count = 0;
    for (const _ of text)
        count++;
    return count;
};
exports.codePoints = codePoints;
const Trim = () => (0, class_transformer_1.Transform)(({ value }) => (typeof value === 'string' ? value.trim() : value));
exports.Trim = Trim;
function HasLength(min, max, options) {
    const problem = min === 0 ? `must be at most ${max} characters` : `must be ${min} to ${max} characters`;
    return (0, class_validator_1.ValidateBy)({
        name: 'hasLength',
        validator: {
            validate: (value) => typeof value === 'string' && (0, exports.codePoints)(value) >= min && (0, exports.codePoints)(value) <= max,
            defaultMessage: (args) => (typeof args?.value === 'string' ? problem : 'must be a string'),
        },
    }, options);
}
function Optional(type) {
    return (0, common_1.applyDecorators)((0, class_validator_1.ValidateIf)((_object, value) => value !== undefined), (0, class_validator_1.ValidateBy)({
        name: class_validator_1.IS_DEFINED,
        validator: { validate: (value) => value !== null, defaultMessage: () => `must be ${type}, not null` },
    }));
}
function IsIntegerString(min, max, options) {
    const problem = max === Number.MAX_SAFE_INTEGER
        ? `must be an integer of ${min} or more`
        : `must be an integer from ${min} to ${max}`;
    return (0, class_validator_1.ValidateBy)({
        name: 'isIntegerString',
        validator: {
            validate: (value) => typeof value === 'string' &&
                /^\d{1,16}$/.test(value) &&
                Number(value) >= min &&
                Number(value) <= max,
            defaultMessage: () => problem,
        },
    }, options);
}
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;
function isTimestamp(value) {
    const m = typeof value === 'string' ? TIMESTAMP.exec(value) : null;
    if (!m)
        return false;
    const [year, month, day, hour, minute, second = 0, zoneHours = 0, zoneMinutes = 0] = m.slice(1).map((part) => Number(part ?? 0));
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    return (month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth && hour < 24 && minute < 60 && second < 60 &&
        zoneHours < 24 && zoneMinutes < 60 && !Number.isNaN(Date.parse(value)));
}
function IsTimestamp(options) {
    return (0, class_validator_1.ValidateBy)({
        name: 'isTimestamp',
        validator: {
            validate: isTimestamp,
            defaultMessage: () => 'must be an ISO 8601 date and time with a time zone, such as 2026-11-21T14:00:00Z',
        },
    }, options);
}
function validationMessage(errors) {
    const problems = [];
    const walk = (error, parent) => {
        const path = parent ? `${parent}.${error.property}` : error.property;
        const constraints = error.constraints ?? {};
        if (constraints.whitelistValidation) {
            problems.push({ path, problem: 'is not allowed', unknown: true });
        }
        else {
            const first = Object.values(constraints)[0];
            if (first)
                problems.push({ path, problem: first, unknown: false });
        }
        for (const child of error.children ?? [])
            walk(child, path);
    };
    for (const error of errors)
        walk(error, '');
    problems.sort((a, b) => Number(a.unknown) - Number(b.unknown));
    return problems.map((p) => `${p.path}: ${p.problem}`).join('; ');
}
const exceptionFactory = (errors) => new app_error_1.AppError('invalid_request', validationMessage(errors));
exports.BodyValidation = new common_1.ValidationPipe({
    transform: true,
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory,
});
let QueryValidationPipe = class QueryValidationPipe {
    validation = new common_1.ValidationPipe({
        transform: true,
        whitelist: true,
        forbidNonWhitelisted: false,
        stopAtFirstError: true,
        validationError: { target: false, value: false },
        exceptionFactory,
    });
    transform(query, metadata) {
        const read = new Set(metadata.metatype
            ? (0, class_validator_1.getMetadataStorage)().getTargetValidationMetadatas(metadata.metatype, '', true, false).map((m) => m.propertyName)
            : []);
        const kept = Object.fromEntries(Object.entries(query ?? {}).filter(([name]) => read.has(name)));
        const problem = (0, http_middleware_1.valueProblem)(kept, 'body');
        if (problem)
            throw problem;
        return this.validation.transform(kept, metadata);
    }
};
QueryValidationPipe = __decorate([
    (0, common_1.Injectable)()
], QueryValidationPipe);
exports.QueryValidation = new QueryValidationPipe();
exports.NoFields = {
    transform(body) {
        const fields = Object.keys(body ?? {});
        if (fields.length > 0)
            throw new app_error_1.AppError('invalid_request', fields.map((f) => `${f}: is not allowed`).join('; '));
        return body;
    },
};
//# sourceMappingURL=validation.js.map