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
exports.CallerCache = exports.CALLERS_CHANNEL = void 0;
const common_1 = require("@nestjs/common");
const pg_1 = require("pg");
const database_1 = require("../database/database");
exports.CALLERS_CHANNEL = 'chorus_callers';
const TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;
let CallerCache = class CallerCache {
    database;
    logger = new common_1.Logger('Callers');
    entries = new Map();
    generation = 0;
    listener = null;
    listening = false;
    started = false;
    stopped = false;
    constructor(database) {
        this.database = database;
    }
    async get(keyHash, load) {
        if (!this.started)
            this.start();
        const now = Date.now();
        const hit = this.listening ? this.entries.get(keyHash) : undefined;
        if (hit && hit.expiresAt > now)
            return hit.caller;
        const generation = this.generation;
        const caller = await load();
        if (caller && this.listening && generation === this.generation) {
            if (this.entries.size >= MAX_ENTRIES)
                this.entries.clear();
            this.entries.set(keyHash, { caller, expiresAt: now + TTL_MS });
        }
        return caller;
    }
    clear() {
        this.generation++;
        this.entries.clear();
    }
    start() {
        this.started = true;
        if (!this.database.embedded)
            void this.listen();
    }
    async listen() {
        if (this.stopped)
            return;
        const client = new pg_1.Client({ connectionString: this.database.url });
        let failed = false;
        const retry = (why) => {
            if (failed)
                return;
            failed = true;
            this.listening = false;
            this.clear();
            if (this.listener === client)
                this.listener = null;
            void client.end().catch(() => { });
            if (this.stopped)
                return;
            this.logger.warn(`Not listening for key changes (${why}): every request looks its key up until it is back.`);
            setTimeout(() => void this.listen(), 1_000).unref();
        };
        client.on('notification', () => this.clear());
        client.on('error', (error) => retry(error.message));
        client.on('end', () => this.listener === client && retry('connection closed'));
        try {
            await client.connect();
            await client.query(`LISTEN ${exports.CALLERS_CHANNEL}`);
            if (this.stopped)
                return void client.end().catch(() => { });
            this.listener = client;
            this.clear();
            this.listening = true;
        }
        catch (error) {
            retry(error.message);
        }
    }
    async onApplicationShutdown() {
        this.stopped = true;
        this.listening = false;
        const listener = this.listener;
        this.listener = null;
        await listener?.end().catch(() => { });
    }
};
exports.CallerCache = CallerCache;
exports.CallerCache = CallerCache = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, common_1.Inject)(database_1.DATABASE_TARGET)),
    __metadata("design:paramtypes", [Object])
], CallerCache);
//# sourceMappingURL=caller-cache.js.map