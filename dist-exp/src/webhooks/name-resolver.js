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
Object.defineProperty(exports, "__esModule", { value: true });
exports.nameResolverProvider = exports.NameResolver = exports.LookupError = exports.MAX_LOOKUPS_PER_WORKSPACE = exports.MAX_LOOKUPS = void 0;
const promises_1 = require("node:dns/promises");
const net = __importStar(require("node:net"));
const fair_slots_1 = require("../common/fair-slots");
const app_config_1 = require("../config/app-config");
exports.MAX_LOOKUPS = 64;
exports.MAX_LOOKUPS_PER_WORKSPACE = 8;
class LookupError extends Error {
    host;
    code;
    constructor(host, code, detail) {
        super(`Lookup of ${host} failed: ${detail}`);
        this.host = host;
        this.code = code;
        this.name = 'LookupError';
    }
}
exports.LookupError = LookupError;
const isLocalhost = (host) => {
    const name = host.toLowerCase().replace(/\.$/, '');
    return name === 'localhost' || name.endsWith('.localhost');
};
const LOOPBACK = [
    { address: '127.0.0.1', family: 4 },
    { address: '::1', family: 6 },
];
class NameResolver {
    resolver;
    slots;
    timeoutMs;
    constructor(options) {
        this.timeoutMs = options.timeoutMs;
        this.resolver = new promises_1.Resolver({ timeout: options.timeoutMs, tries: 1 });
        if (options.servers?.length)
            this.resolver.setServers(options.servers);
        this.slots = new fair_slots_1.FairSlots(options.maxLookups ?? exports.MAX_LOOKUPS, options.maxLookupsPerWorkspace ?? exports.MAX_LOOKUPS_PER_WORKSPACE);
    }
    inFlight(workspaceId) {
        return this.slots.used(workspaceId);
    }
    waiting(workspaceId) {
        return this.slots.waiting(workspaceId);
    }
    async resolve(host, workspaceId, family = 0) {
        const literal = net.isIP(host);
        const local = literal ? [{ address: host, family: literal }] : isLocalhost(host) ? LOOPBACK : null;
        if (local) {
            const matching = local.filter((a) => family === 0 || a.family === family);
            if (matching.length === 0)
                throw new LookupError(host, 'ENOTFOUND', `no IPv${family} address`);
            return matching;
        }
        const timedOut = () => new LookupError(host, 'ETIMEOUT', `no answer within ${this.timeoutMs} ms`);
        const endsAt = Date.now() + this.timeoutMs;
        const deadline = new AbortController();
        const timer = setTimeout(() => deadline.abort(timedOut()), this.timeoutMs);
        try {
            const release = await this.slots.acquire(workspaceId, deadline.signal);
            try {
                if (Date.now() >= endsAt)
                    throw timedOut();
                return await this.query(host, family, deadline.signal);
            }
            finally {
                release();
            }
        }
        finally {
            clearTimeout(timer);
        }
    }
    query(host, family, deadline) {
        const families = family === 0 ? [4, 6] : [family];
        const answers = new Map();
        const errors = [];
        return new Promise((resolve, reject) => {
            let pending = families.length;
            let settled = false;
            const settle = () => {
                if (settled)
                    return;
                settled = true;
                deadline.removeEventListener('abort', settle);
                const found = families.flatMap((f) => answers.get(f) ?? []);
                if (found.length > 0)
                    return resolve(found);
                if (deadline.aborted)
                    return reject(deadline.reason);
                const missing = errors.every((e) => e.code === 'ENOTFOUND' || e.code === 'ENODATA');
                reject(new LookupError(host, missing ? 'ENOTFOUND' : 'EAI_AGAIN', errors.map((e) => e.code).join(', ') || 'no address'));
            };
            deadline.addEventListener('abort', settle, { once: true });
            for (const f of families) {
                (f === 4 ? this.resolver.resolve4(host) : this.resolver.resolve6(host))
                    .then((addresses) => answers.set(f, addresses.map((address) => ({ address, family: f }))), (error) => errors.push(error))
                    .finally(() => {
                    pending -= 1;
                    if (pending === 0)
                        settle();
                });
            }
        });
    }
    close() {
        this.resolver.cancel();
    }
    onApplicationShutdown() {
        this.close();
    }
}
exports.NameResolver = NameResolver;
exports.nameResolverProvider = {
    provide: NameResolver,
    useFactory: (config) => new NameResolver({ servers: config.dnsServers, timeoutMs: config.dnsTimeoutMs }),
    inject: [app_config_1.APP_CONFIG],
};
//# sourceMappingURL=name-resolver.js.map