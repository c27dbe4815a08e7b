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
exports.IdempotencyStore = exports.IN_FLIGHT_LEASE_MS = exports.IDEMPOTENCY_TTL_MS = void 0;
const node_crypto_1 = require("node:crypto");
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
exports.IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
exports.IN_FLIGHT_LEASE_MS = 2 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;
let IdempotencyStore = class IdempotencyStore {
    db;
    logger = new common_1.Logger('Idempotency');
    purgeTimer;
    constructor(db) {
        this.db = db;
    }
    onModuleInit() {
        this.purgeTimer = setInterval(() => {
            this.purgeExpired().catch((error) => this.logger.warn(`Could not purge expired keys: ${error.message}`));
        }, PURGE_EVERY_MS);
        this.purgeTimer.unref();
    }
    onModuleDestroy() {
        clearInterval(this.purgeTimer);
    }
    async claim(workspaceId, key, requestHash) {
        for (let tries = 0; tries < 3; tries++) {
            const owner = (0, node_crypto_1.randomUUID)();
            const taken = await this.db.query(`INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, owner, locked_until, expires_at)
         VALUES ($1, $2, $3, 'in_flight', $4, now() + $5 * interval '1 millisecond', now() + $6 * interval '1 millisecond')
         ON CONFLICT (workspace_id, key) DO UPDATE
            SET request_hash = EXCLUDED.request_hash, state = 'in_flight', owner = EXCLUDED.owner,
                locked_until = EXCLUDED.locked_until, status_code = NULL, response_body = NULL,
                created_at = now(), expires_at = EXCLUDED.expires_at
          WHERE idempotency_keys.expires_at <= now()
             OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.locked_until <= now()
                 AND idempotency_keys.request_hash = EXCLUDED.request_hash)
         RETURNING owner`, [workspaceId, key, requestHash, owner, exports.IN_FLIGHT_LEASE_MS, exports.IDEMPOTENCY_TTL_MS]);
            if (taken[0]?.owner === owner)
                return { kind: 'owned', workspaceId, key, owner };
            const [row] = await this.db.query(`SELECT request_hash, state, status_code, response_body FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`, [workspaceId, key]);
            if (!row)
                continue;
            if (row.request_hash !== requestHash)
                return { kind: 'different_request' };
            if (row.state === 'in_flight')
                return { kind: 'in_flight' };
            return { kind: 'replay', status: row.status_code, body: JSON.parse(row.response_body) };
        }
        return { kind: 'in_flight' };
    }
    async complete(claim, status, body) {
        await this.db.query(`UPDATE idempotency_keys SET state = 'completed', status_code = $4, response_body = $5, locked_until = NULL
        WHERE workspace_id = $1 AND key = $2 AND owner = $3`, [claim.workspaceId, claim.key, claim.owner, status, JSON.stringify(body ?? null)]);
    }
    async release(claim) {
        await this.db.query(`DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND owner = $3`, [
            claim.workspaceId,
            claim.key,
            claim.owner,
        ]);
    }
    async purgeExpired() {
        const [, deleted] = (await this.db.query(`DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= now() LIMIT 10000)`));
        return deleted;
    }
};
exports.IdempotencyStore = IdempotencyStore;
exports.IdempotencyStore = IdempotencyStore = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource])
], IdempotencyStore);
//# sourceMappingURL=idempotency.store.js.map