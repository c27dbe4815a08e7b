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
exports.RateLimitStore = void 0;
const node_crypto_1 = require("node:crypto");
const MEMBER_PREFIX = (0, node_crypto_1.randomBytes)(6).toString('hex');
let members = 0;
const common_1 = require("@nestjs/common");
const ioredis_1 = __importDefault(require("ioredis"));
const app_config_1 = require("../config/app-config");
const sliding_window_1 = require("./sliding-window");
class MemoryWindows {
    hits = new Map();
    count(key, limit, windowMs, add, now = Date.now()) {
        const log = (this.hits.get(key) ?? []).filter((at) => at > now - windowMs);
        const allowed = add && log.length < limit;
        if (allowed)
            log.push(now);
        if (log.length > 0)
            this.hits.set(key, log);
        else
            this.hits.delete(key);
        return { allowed, count: log.length, resetInMs: log.length > 0 ? log[0] + windowMs - now : windowMs };
    }
    sweep(windowMs, now = Date.now()) {
        for (const [key, log] of this.hits)
            if (log[log.length - 1] <= now - windowMs)
                this.hits.delete(key);
    }
}
const REDIS_BACKOFF_MS = 2_000;
let RateLimitStore = class RateLimitStore {
    config;
    logger = new common_1.Logger('RateLimits');
    memory = new MemoryWindows();
    redis;
    redisFailing = false;
    redisRetryAt = 0;
    sweeper;
    constructor(config) {
        this.config = config;
        this.redis = config.redisUrl
            ? new ioredis_1.default(config.redisUrl, {
                enableOfflineQueue: false,
                maxRetriesPerRequest: 0,
                commandTimeout: 500,
                connectTimeout: 2_000,
                retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
                lazyConnect: false,
                enableAutoPipelining: true,
            })
            : null;
        this.redis?.on('error', () => { });
        this.redis?.defineCommand('chorusWindow', { numberOfKeys: 1, lua: sliding_window_1.SLIDING_WINDOW_LUA });
        this.sweeper = setInterval(() => this.memory.sweep(config.rateLimitWindowMs), config.rateLimitWindowMs);
        this.sweeper.unref();
    }
    take(key, limit) {
        return this.count(key, limit, true);
    }
    async redisAnswers() {
        if (!this.redis)
            return null;
        try {
            return (await this.redis.ping()) === 'PONG';
        }
        catch {
            return false;
        }
    }
    get windowMs() {
        return this.config.rateLimitWindowMs;
    }
    async count(key, limit, add) {
        const windowMs = this.config.rateLimitWindowMs;
        if (this.redis && Date.now() >= this.redisRetryAt) {
            try {
                const [allowed, count, resetInMs] = (await this.redis.chorusWindow(`chorus:rl:${key}`, limit, windowMs, add ? '1' : '0', `${MEMBER_PREFIX}.${members++}`));
                if (this.redisFailing) {
                    this.redisFailing = false;
                    this.logger.log('Redis answers again: rate limits are shared across instances again.');
                }
                return { allowed: allowed === 1, count, resetInMs };
            }
            catch (error) {
                this.redisRetryAt = Date.now() + REDIS_BACKOFF_MS;
                if (!this.redisFailing) {
                    this.redisFailing = true;
                    this.logger.warn(`Redis is unreachable (${error.message}): counting rate limits in this instance until it is back.`);
                }
            }
        }
        return this.memory.count(key, limit, windowMs, add);
    }
    async onApplicationShutdown() {
        clearInterval(this.sweeper);
        if (this.redis)
            this.redis.disconnect();
    }
};
exports.RateLimitStore = RateLimitStore;
exports.RateLimitStore = RateLimitStore = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [Object])
], RateLimitStore);
//# sourceMappingURL=rate-limit.store.js.map