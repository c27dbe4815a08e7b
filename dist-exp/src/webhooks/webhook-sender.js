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
exports.WebhookSender = exports.USER_AGENT = exports.RESPONSE_BODY_LIMIT = void 0;
const axios_1 = require("@nestjs/axios");
const common_1 = require("@nestjs/common");
const rxjs_1 = require("rxjs");
const version_1 = require("../common/version");
const app_config_1 = require("../config/app-config");
const address_guard_1 = require("./address-guard");
const name_resolver_1 = require("./name-resolver");
exports.RESPONSE_BODY_LIMIT = 2048;
exports.USER_AGENT = `Chorus-Webhooks/${version_1.VERSION}`;
function retryAfter(header, body) {
    try {
        const parsed = JSON.parse(body);
        if (typeof parsed.retry_after === 'number' && parsed.retry_after >= 0)
            return Math.ceil(parsed.retry_after * 1000);
    }
    catch {
    }
    const seconds = Number(header);
    return typeof header === 'string' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds * 1000) : null;
}
function errorClass(error) {
    const code = error.code ?? error.code ?? '';
    if (code === 'ERR_UNSAFE_TARGET')
        return 'unsafe_target';
    if (code === 'ECONNABORTED' || code === 'ETIMEDOUT' || code === 'ERR_CANCELED' || code === 'ABORT_ERR')
        return 'timeout';
    if (code === 'ECONNREFUSED')
        return 'connection_refused';
    if (code === 'ECONNRESET' || code === 'EPIPE')
        return 'connection_reset';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ETIMEOUT')
        return 'dns_error';
    if (/CERT|TLS|SSL|SELF_SIGNED/i.test(code))
        return 'tls_error';
    return 'network_error';
}
async function readStart(stream, limit) {
    const kept = [];
    let size = 0;
    for await (const chunk of stream) {
        if (size < limit) {
            const buffer = Buffer.from(chunk).subarray(0, limit - size);
            kept.push(buffer);
            size += buffer.length;
        }
    }
    return Buffer.concat(kept).toString('utf8').replaceAll('\u0000', '');
}
let WebhookSender = class WebhookSender {
    http;
    config;
    resolver;
    constructor(http, config, resolver) {
        this.http = http;
        this.config = config;
        this.resolver = resolver;
    }
    async post(target, headers, body) {
        const allowPrivate = this.config.webhookAllowPrivateTargets;
        const refused = (0, address_guard_1.attemptRefusal)(target.kind, target.url, allowPrivate);
        if (refused)
            return { statusCode: null, error: refused, durationMs: 0, responseBody: null, retryAfterMs: null };
        const started = performance.now();
        const elapsed = () => Math.round(performance.now() - started);
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), this.config.webhookTimeoutMs);
        try {
            const response = await (0, rxjs_1.firstValueFrom)(this.http.post(target.url, body, {
                headers,
                ...(0, address_guard_1.safeAgents)({ allowPrivate, resolver: this.resolver, workspaceId: target.workspaceId }),
                proxy: false,
                maxRedirects: 0,
                responseType: 'stream',
                decompress: true,
                validateStatus: () => true,
                transformRequest: [(data) => data],
                signal: abort.signal,
            }));
            const responseBody = await readStart(response.data, exports.RESPONSE_BODY_LIMIT);
            return {
                statusCode: response.status,
                error: null,
                durationMs: elapsed(),
                responseBody,
                retryAfterMs: response.status === 429 ? retryAfter(response.headers['retry-after'], responseBody) : null,
            };
        }
        catch (error) {
            const timedOut = abort.signal.aborted;
            return {
                statusCode: null,
                error: timedOut ? 'timeout' : errorClass(error),
                durationMs: elapsed(),
                responseBody: null,
                retryAfterMs: null,
            };
        }
        finally {
            clearTimeout(timer);
        }
    }
};
exports.WebhookSender = WebhookSender;
exports.WebhookSender = WebhookSender = __decorate([
    (0, common_1.Injectable)(),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [axios_1.HttpService, Object, name_resolver_1.NameResolver])
], WebhookSender);
//# sourceMappingURL=webhook-sender.js.map