"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.UnsafeTargetError = void 0;
exports.addressProblem = addressProblem;
exports.isPublicUnicast = isPublicUnicast;
exports.urlProblem = urlProblem;
exports.checkTargetUrl = checkTargetUrl;
exports.attemptRefusal = attemptRefusal;
exports.safeLookup = safeLookup;
exports.safeAgents = safeAgents;
const http = __importStar(require("node:http"));
const https = __importStar(require("node:https"));
const net = __importStar(require("node:net"));
const common_1 = require("@nestjs/common");
const ipaddr_js_1 = __importDefault(require("ipaddr.js"));
const app_error_1 = require("../common/app-error");
const chat_messages_1 = require("../notifications/chat-messages");
const logger = new common_1.Logger('AddressGuard');
const IPV6_GLOBAL_UNICAST = ipaddr_js_1.default.parseCIDR('2000::/3');
const RANGE_WORDS = {
    unspecified: 'unspecified',
    broadcast: 'broadcast',
    multicast: 'multicast',
    linkLocal: 'link-local',
    loopback: 'loopback',
    carrierGradeNat: 'carrier-grade NAT',
    private: 'private',
    reserved: 'reserved',
    as112: 'AS112',
    as112v6: 'AS112',
    amt: 'AMT',
    uniqueLocal: 'unique-local',
    ipv4Mapped: 'IPv4-mapped',
    deprecatedSiteLocal: 'site-local',
    discard: 'discard-only',
    rfc6145: 'IPv4-translated',
    rfc6052: 'NAT64',
    '6to4': '6to4',
    teredo: 'Teredo',
    benchmarking: 'benchmarking',
    deprecatedOrchid: 'ORCHID',
    orchid2: 'ORCHID',
    droneRemoteIdProtocolEntityTags: 'reserved',
    segmentRouting: 'segment-routing',
};
function unbracket(host) {
    return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
function addressProblem(address) {
    if (typeof address !== 'string' || address.includes('%') || net.isIP(address) === 0) {
        return 'not an IP address';
    }
    let parsed;
    try {
        parsed = ipaddr_js_1.default.parse(address);
    }
    catch {
        return 'not an IP address';
    }
    const range = parsed.range();
    if (range !== 'unicast')
        return RANGE_WORDS[range] ?? range;
    if (parsed.kind() === 'ipv6' && !parsed.match(IPV6_GLOBAL_UNICAST)) {
        return 'not global unicast';
    }
    return null;
}
function isPublicUnicast(address) {
    return addressProblem(address) === null;
}
class UnsafeTargetError extends Error {
    host;
    address;
    reason;
    code = 'ERR_UNSAFE_TARGET';
    constructor(host, address, reason) {
        super(host === address
            ? `Refused to connect to ${address}: ${reason} address, not public unicast`
            : `Refused to connect to ${host} (${address}): ${reason} address, not public unicast`);
        this.host = host;
        this.address = address;
        this.reason = reason;
        this.name = 'UnsafeTargetError';
    }
}
exports.UnsafeTargetError = UnsafeTargetError;
function urlProblem(kind, raw, allowPrivate) {
    if (!allowPrivate && kind === 'slack' && !(0, chat_messages_1.isSlackWebhookUrl)(raw)) {
        return 'must be a Slack incoming webhook URL (https://hooks.slack.com/services/…)';
    }
    if (!allowPrivate && kind === 'discord' && !(0, chat_messages_1.isDiscordWebhookUrl)(raw)) {
        return 'must be a Discord webhook URL (https://discord.com/api/webhooks/…)';
    }
    let url;
    try {
        url = new URL(raw);
    }
    catch {
        return 'must be a valid URL';
    }
    if (url.protocol !== 'https:' && (!allowPrivate || url.protocol !== 'http:')) {
        return allowPrivate ? 'must use http or https' : 'must use https';
    }
    if (!url.hostname)
        return 'must be a valid URL';
    if (url.username || url.password)
        return 'must not contain credentials';
    return null;
}
async function checkTargetUrl(kind, raw, options) {
    const problem = urlProblem(kind, raw, options.allowPrivate);
    if (problem)
        throw app_error_1.AppError.invalid('url', problem);
    if (options.allowPrivate)
        return;
    const host = unbracket(new URL(raw).hostname);
    if (net.isIP(host)) {
        const range = addressProblem(host);
        if (range)
            throw app_error_1.AppError.invalid('url', `must be a public address (${host} is ${range})`);
        return;
    }
    let addresses;
    try {
        addresses = await options.resolver.resolve(host, options.workspaceId);
    }
    catch (error) {
        if (error.code === 'ETIMEOUT') {
            throw app_error_1.AppError.invalid('url', `${host} did not resolve within ${options.resolver.timeoutMs} ms; try again later`);
        }
        throw app_error_1.AppError.invalid('url', `does not resolve (${host})`);
    }
    for (const { address } of addresses) {
        const range = addressProblem(address);
        if (range) {
            logger.warn(`Workspace ${options.workspaceId}: endpoint URL refused, ${host} resolves to ${address}, which is ${range}`);
            throw app_error_1.AppError.invalid('url', `must resolve to public addresses only (${host} does not)`);
        }
    }
}
function attemptRefusal(kind, url, allowPrivate) {
    return urlProblem(kind, url, allowPrivate) === null ? null : 'unsafe_target';
}
function safeLookup(guard) {
    const lookup = (hostname, options, callback) => {
        const wantAll = options?.all === true;
        const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
        guard.resolver.resolve(hostname, guard.workspaceId, family).then((addresses) => {
            if (!guard.allowPrivate) {
                for (const { address } of addresses) {
                    const problem = addressProblem(address);
                    if (problem)
                        return callback(new UnsafeTargetError(hostname, address, problem), wantAll ? [] : '', undefined);
                }
            }
            if (wantAll)
                return callback(null, addresses);
            return callback(null, addresses[0].address, addresses[0].family);
        }, (error) => callback(error, wantAll ? [] : '', undefined));
    };
    return lookup;
}
function guardAgent(agent, guard) {
    const lookup = safeLookup(guard);
    const original = agent.createConnection;
    const guarded = function (options, callback) {
        const refuse = (error) => {
            process.nextTick(() => callback?.(error, undefined));
            return undefined;
        };
        if (!guard.allowPrivate) {
            if (options.socketPath) {
                return refuse(new UnsafeTargetError(options.socketPath, options.socketPath, 'Unix socket'));
            }
            const host = unbracket(options.host || 'localhost');
            if (net.isIP(host)) {
                const problem = addressProblem(host);
                if (problem)
                    return refuse(new UnsafeTargetError(host, host, problem));
            }
        }
        return original.call(this, { ...options, lookup }, callback);
    };
    agent.createConnection = guarded;
    return agent;
}
function safeAgents(guard) {
    const lookup = safeLookup(guard);
    return {
        httpAgent: guardAgent(new http.Agent({ keepAlive: false, lookup }), guard),
        httpsAgent: guardAgent(new https.Agent({ keepAlive: false, lookup }), guard),
    };
}
//# sourceMappingURL=address-guard.js.map