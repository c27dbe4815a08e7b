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
exports.APP_CONFIG = exports.ConfigError = exports.EnvironmentVariables = void 0;
exports.parseSchedule = parseSchedule;
exports.loadConfig = loadConfig;
const node_dns_1 = require("node:dns");
const node_path_1 = require("node:path");
const class_transformer_1 = require("class-transformer");
const class_validator_1 = require("class-validator");
const toBoolean = ({ value }) => value === 'true' ? true : value === 'false' ? false : value;
const toInteger = ({ value }) => typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
const DURATION = /^(\d+)(ms|s|m|h)$/;
const DURATION_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
function parseSchedule(text) {
    return text.split(',').map((part) => {
        const match = DURATION.exec(part.trim());
        if (!match)
            throw new Error(`not a duration: "${part}"`);
        return Number(match[1]) * DURATION_MS[match[2]];
    });
}
class EnvironmentVariables {
    PORT = 3000;
    DATABASE_URL;
    DATABASE_STATEMENT_TIMEOUT_MS = 5_000;
    DATA_DIR = './.data';
    REDIS_URL;
    BASE_URL;
    PUBLIC_BASE_URL;
    RATE_LIMIT_WINDOW_MS = 60_000;
    AUTH_FAILURE_LIMIT = 20;
    TRUST_PROXY = 'false';
    RUN_WORKER = true;
    LOG_LEVEL = 'info';
    SMTP_URL;
    ENCRYPTION_KEY;
    WEBHOOK_TIMEOUT_MS = 10_000;
    WEBHOOK_RETRY_SCHEDULE = '1m,5m,30m,2h,8h';
    WEBHOOK_ALLOW_PRIVATE_TARGETS = false;
    EMAIL_HOURLY_LIMIT = 1_000;
    OUTBOX_CONCURRENCY = 64;
    OUTBOX_WORKSPACE_CONCURRENCY = 32;
    OUTBOX_ENDPOINT_CONCURRENCY = 32;
    DNS_TIMEOUT_MS = 3_000;
    DNS_SERVERS;
}
exports.EnvironmentVariables = EnvironmentVariables;
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a port number' }),
    (0, class_validator_1.Min)(0, { message: 'must be a port number' }),
    (0, class_validator_1.Max)(65535, { message: 'must be a port number' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "PORT", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DATABASE_URL", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number of milliseconds (0: no limit)' }),
    (0, class_validator_1.Min)(0, { message: 'must be a whole number of milliseconds (0: no limit)' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "DATABASE_STATEMENT_TIMEOUT_MS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DATA_DIR", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^rediss?:\/\//, { message: 'must be a redis:// URL' }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "REDIS_URL", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^https?:\/\/[^/\s]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "BASE_URL", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^https?:\/\/[^/\s]+(\/[^\s]*)?$/, { message: 'must be an http(s) URL' }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "PUBLIC_BASE_URL", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number of milliseconds' }),
    (0, class_validator_1.Min)(100, { message: 'must be at least 100 milliseconds' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "RATE_LIMIT_WINDOW_MS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number' }),
    (0, class_validator_1.Min)(1, { message: 'must be at least 1' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "AUTH_FAILURE_LIMIT", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "TRUST_PROXY", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toBoolean),
    (0, class_validator_1.IsBoolean)({ message: 'must be true or false' }),
    __metadata("design:type", Boolean)
], EnvironmentVariables.prototype, "RUN_WORKER", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsIn)(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
        message: 'must be one of fatal, error, warn, info, debug, trace, silent',
    }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "LOG_LEVEL", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^smtps?:\/\//, { message: 'must be an smtp:// or smtps:// URL' }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "SMTP_URL", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^[0-9a-fA-F]{64}$/, { message: 'must be 64 hex characters (32 bytes)' }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "ENCRYPTION_KEY", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number of milliseconds' }),
    (0, class_validator_1.Min)(1, { message: 'must be a whole number of milliseconds' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "WEBHOOK_TIMEOUT_MS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.Matches)(/^\s*\d+(ms|s|m|h)\s*(,\s*\d+(ms|s|m|h)\s*)*$/, {
        message: 'must be a comma-separated list of durations such as 1m,5m,30m,2h,8h',
    }),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "WEBHOOK_RETRY_SCHEDULE", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toBoolean),
    (0, class_validator_1.IsBoolean)({ message: 'must be true or false' }),
    __metadata("design:type", Boolean)
], EnvironmentVariables.prototype, "WEBHOOK_ALLOW_PRIVATE_TARGETS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number' }),
    (0, class_validator_1.Min)(0, { message: 'must be 0 or more' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "EMAIL_HOURLY_LIMIT", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number' }),
    (0, class_validator_1.Min)(1, { message: 'must be at least 1' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "OUTBOX_CONCURRENCY", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number' }),
    (0, class_validator_1.Min)(1, { message: 'must be at least 1' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "OUTBOX_WORKSPACE_CONCURRENCY", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number' }),
    (0, class_validator_1.Min)(1, { message: 'must be at least 1' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "OUTBOX_ENDPOINT_CONCURRENCY", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_transformer_1.Transform)(toInteger),
    (0, class_validator_1.IsInt)({ message: 'must be a whole number of milliseconds' }),
    (0, class_validator_1.Min)(1, { message: 'must be a whole number of milliseconds' }),
    __metadata("design:type", Number)
], EnvironmentVariables.prototype, "DNS_TIMEOUT_MS", void 0);
__decorate([
    (0, class_validator_1.IsOptional)(),
    (0, class_validator_1.IsString)(),
    __metadata("design:type", String)
], EnvironmentVariables.prototype, "DNS_SERVERS", void 0);
class ConfigError extends Error {
}
exports.ConfigError = ConfigError;
function shown(name, value) {
    if (value === undefined)
        return value;
    if (name === 'ENCRYPTION_KEY')
        return `(${value.length} characters, not shown)`;
    return name.endsWith('_URL') ? value.replace(/\/\/([^:/@]*):[^@]*@/, '//$1:***@') : value;
}
function parseTrustProxy(value) {
    if (value === 'true' || value === 'false')
        return value === 'true';
    return /^\d+$/.test(value) ? Number(value) : value;
}
function parseDnsServers(text) {
    if (text === undefined)
        return undefined;
    const servers = text.split(',').map((s) => s.trim()).filter(Boolean);
    try {
        if (servers.length === 0)
            throw new Error('empty');
        if (servers.some((s) => Number(/(?:\]|\.\d+):(\d+)$/.exec(s)?.[1] ?? 53) > 65535))
            throw new Error('port');
        new node_dns_1.Resolver().setServers(servers);
    }
    catch {
        throw new ConfigError(`Invalid configuration:\n  DNS_SERVERS=${JSON.stringify(text)}: ` +
            'must be a comma-separated list of IP addresses, each with an optional :port ([::1]:53 for IPv6)');
    }
    return servers;
}
const stripSlash = (url) => url.replace(/\/+$/, '');
function loadConfig(env = process.env) {
    const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
    const vars = (0, class_transformer_1.plainToInstance)(EnvironmentVariables, present, { exposeDefaultValues: true });
    const errors = (0, class_validator_1.validateSync)(vars, { skipMissingProperties: false });
    if (errors.length > 0) {
        const lines = errors.map((e) => `  ${e.property}=${JSON.stringify(shown(e.property, env[e.property]))}: ${Object.values(e.constraints ?? {})[0]}`);
        throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
    }
    if (vars.DATABASE_URL && !vars.ENCRYPTION_KEY) {
        throw new ConfigError('Invalid configuration:\n  ENCRYPTION_KEY is required when DATABASE_URL is set: 64 hex characters (32 bytes), ' +
            'for example from `openssl rand -hex 32`. Keep it: endpoint secrets and chat URLs are encrypted with it.');
    }
    const baseUrl = stripSlash(vars.BASE_URL ?? `http://localhost:${vars.PORT}`);
    return {
        port: vars.PORT,
        databaseUrl: vars.DATABASE_URL,
        databaseStatementTimeoutMs: vars.DATABASE_STATEMENT_TIMEOUT_MS,
        dataDir: (0, node_path_1.resolve)(vars.DATA_DIR),
        redisUrl: vars.REDIS_URL,
        rateLimitWindowMs: vars.RATE_LIMIT_WINDOW_MS,
        authFailureLimit: vars.AUTH_FAILURE_LIMIT,
        trustProxy: parseTrustProxy(vars.TRUST_PROXY),
        baseUrl,
        publicBaseUrl: stripSlash(vars.PUBLIC_BASE_URL ?? baseUrl),
        runWorker: vars.RUN_WORKER,
        logLevel: vars.LOG_LEVEL,
        smtpUrl: vars.SMTP_URL,
        encryptionKey: vars.ENCRYPTION_KEY?.toLowerCase(),
        webhookTimeoutMs: vars.WEBHOOK_TIMEOUT_MS,
        webhookRetrySchedule: parseSchedule(vars.WEBHOOK_RETRY_SCHEDULE),
        webhookAllowPrivateTargets: vars.WEBHOOK_ALLOW_PRIVATE_TARGETS,
        emailHourlyLimit: vars.EMAIL_HOURLY_LIMIT,
        outboxConcurrency: vars.OUTBOX_CONCURRENCY,
        outboxWorkspaceConcurrency: vars.OUTBOX_WORKSPACE_CONCURRENCY,
        outboxEndpointConcurrency: vars.OUTBOX_ENDPOINT_CONCURRENCY,
        dnsServers: parseDnsServers(vars.DNS_SERVERS),
        dnsTimeoutMs: vars.DNS_TIMEOUT_MS,
    };
}
exports.APP_CONFIG = Symbol('APP_CONFIG');
//# sourceMappingURL=app-config.js.map