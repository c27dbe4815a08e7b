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
exports.Recorder = exports.CHAT_PACE_MS = exports.MAX_CONSECUTIVE_FAILURES = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_config_1 = require("../config/app-config");
const queries_1 = require("../database/queries");
const endpoints_service_1 = require("../webhooks/endpoints.service");
const channel_1 = require("./channel");
const lease_1 = require("./lease");
exports.MAX_CONSECUTIVE_FAILURES = 20;
exports.CHAT_PACE_MS = 1_000;
let Recorder = class Recorder {
    db;
    config;
    endpoints;
    lease;
    logger = new common_1.Logger('Outbox');
    constructor(db, config, endpoints, lease) {
        this.db = db;
        this.config = config;
        this.endpoints = endpoints;
        this.lease = lease;
    }
    async record(sendable, at, outcome) {
        if (outcome.ok && !(0, channel_1.isChat)(sendable.kind))
            return this.successes.add({ sendable, at, outcome });
        return this.recordOne(sendable, at, outcome);
    }
    async recordOne({ delivery, kind, endpoint }, at, outcome) {
        const attempts = delivery.attempt_count + 1;
        const ended = new Date(at.getTime() + outcome.durationMs);
        const key = [delivery.workspace_id, delivery.id];
        await this.db.transaction(async (manager) => {
            const [row] = await manager.query(`SELECT locked_by FROM webhook_deliveries WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, key);
            if (!row)
                return;
            await manager.query(`INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`, [...key, at, outcome.durationMs, outcome.statusCode, outcome.error, outcome.responseBody]);
            const waitMs = (0, channel_1.isChat)(kind) && outcome.statusCode === 429 && outcome.retryAfterMs !== null ? Math.min(outcome.retryAfterMs, 86_400_000) : null;
            if (endpoint && (0, channel_1.isChat)(kind)) {
                await manager.query(`UPDATE webhook_endpoints SET next_send_at = GREATEST(next_send_at, $3::timestamptz + $4 * interval '1 millisecond')
            WHERE workspace_id = $1 AND id = $2`, [delivery.workspace_id, endpoint.id, ended, Math.max(exports.CHAT_PACE_MS, waitMs ?? 0)]);
            }
            if (row.locked_by !== this.lease.owner)
                return;
            if (outcome.ok) {
                await manager.query(`UPDATE webhook_deliveries SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = $3,
                  next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
            WHERE workspace_id = $1 AND id = $2`, [...key, attempts]);
                if (endpoint) {
                    await manager.query(`UPDATE webhook_endpoints SET consecutive_failures = 0 WHERE workspace_id = $1 AND id = $2 AND consecutive_failures <> 0`, [delivery.workspace_id, endpoint.id]);
                }
                return;
            }
            const delay = this.config.webhookRetrySchedule[attempts - 1];
            const next = delay === undefined ? null : Math.max(delay, waitMs ?? 0);
            await manager.query(`UPDATE webhook_deliveries
            SET attempt_count = $3, locked_by = NULL, locked_until = NULL,
                status = CASE WHEN $4::bigint IS NULL THEN 'failed' ELSE 'pending' END,
                reason = CASE WHEN $4::bigint IS NULL THEN 'retries_exhausted' END,
                next_attempt_at = CASE WHEN $4::bigint IS NULL THEN NULL ELSE $5::timestamptz + $4 * interval '1 millisecond' END
          WHERE workspace_id = $1 AND id = $2`, [...key, attempts, next, ended]);
            if (!endpoint)
                return;
            const ref = { workspaceId: delivery.workspace_id, id: endpoint.id };
            const [counted] = await (0, queries_1.updateReturning)(manager, `UPDATE webhook_endpoints SET consecutive_failures = consecutive_failures + 1
          WHERE workspace_id = $1 AND id = $2 RETURNING consecutive_failures, enabled`, [ref.workspaceId, ref.id]);
            let off = !counted?.enabled;
            if (!off && (0, channel_1.isChat)(kind) && (outcome.statusCode === 404 || outcome.statusCode === 410)) {
                await this.endpoints.disable(manager, ref, 'gone');
                this.logger.warn(`Endpoint ${endpoint.id} turned off: ${kind} answered ${outcome.statusCode}.`);
                off = true;
            }
            else if (!off && counted.consecutive_failures >= exports.MAX_CONSECUTIVE_FAILURES) {
                await this.endpoints.disable(manager, ref, 'consecutive_failures');
                this.logger.warn(`Endpoint ${endpoint.id} turned off after ${exports.MAX_CONSECUTIVE_FAILURES} failures in a row.`);
                off = true;
            }
            if (off) {
                await manager.query(`UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL
            WHERE workspace_id = $1 AND id = $2 AND status = 'pending'`, key);
            }
        });
    }
    successes = new Batch((items) => this.recordSuccesses(items));
    async recordSuccesses(items) {
        const keys = [items.map((i) => i.sendable.delivery.workspace_id), items.map((i) => i.sendable.delivery.id)];
        await this.db.transaction(async (manager) => {
            const rows = await manager.query(`SELECT id, locked_by FROM webhook_deliveries
          WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[])) ORDER BY id FOR UPDATE`, keys);
            const owner = new Map(rows.map((row) => [row.id, row.locked_by]));
            const present = items.filter((i) => owner.has(i.sendable.delivery.id));
            if (present.length === 0)
                return;
            await manager.query(`INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::integer[], $5::integer[], $6::text[], $7::text[])`, [
                present.map((i) => i.sendable.delivery.workspace_id),
                present.map((i) => i.sendable.delivery.id),
                present.map((i) => i.at.toISOString()),
                present.map((i) => i.outcome.durationMs),
                present.map((i) => i.outcome.statusCode),
                present.map((i) => i.outcome.error),
                present.map((i) => i.outcome.responseBody),
            ]);
            const owned = present.filter((i) => owner.get(i.sendable.delivery.id) === this.lease.owner);
            if (owned.length === 0)
                return;
            await manager.query(`UPDATE webhook_deliveries d SET status = 'delivered', reason = NULL, delivered_at = now(), attempt_count = u.attempts,
                next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
           FROM unnest($1::uuid[], $2::uuid[], $3::integer[]) AS u(workspace_id, id, attempts)
          WHERE d.workspace_id = u.workspace_id AND d.id = u.id`, [
                owned.map((i) => i.sendable.delivery.workspace_id),
                owned.map((i) => i.sendable.delivery.id),
                owned.map((i) => i.sendable.delivery.attempt_count + 1),
            ]);
            const endpoints = owned.filter((i) => i.sendable.endpoint);
            if (endpoints.length === 0)
                return;
            await manager.query(`UPDATE webhook_endpoints SET consecutive_failures = 0
          WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[])) AND consecutive_failures <> 0`, [endpoints.map((i) => i.sendable.delivery.workspace_id), endpoints.map((i) => i.sendable.endpoint.id)]);
        });
    }
    async finish(delivery, status, reason) {
        await this.db.query(`UPDATE webhook_deliveries SET status = $3, reason = $4, next_attempt_at = NULL, locked_by = NULL, locked_until = NULL
        WHERE workspace_id = $1 AND id = $2 AND locked_by = $5`, [delivery.workspace_id, delivery.id, status, reason, this.lease.owner]);
    }
    async defer(deliveries, until) {
        if (deliveries.length === 0)
            return;
        await this.db.query(`UPDATE webhook_deliveries SET next_attempt_at = $3, locked_by = NULL, locked_until = NULL
        WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[])) AND locked_by = $4`, [deliveries.map((d) => d.workspace_id), deliveries.map((d) => d.id), until, this.lease.owner]);
    }
    async release(delivery) {
        const delay = this.config.webhookRetrySchedule[delivery.attempt_count];
        await this.db.query(`UPDATE webhook_deliveries
          SET attempt_count = attempt_count + 1, locked_by = NULL, locked_until = NULL,
              status = CASE WHEN $4::bigint IS NULL THEN 'failed' ELSE 'pending' END,
              reason = CASE WHEN $4::bigint IS NULL THEN 'retries_exhausted' END,
              next_attempt_at = CASE WHEN $4::bigint IS NULL THEN NULL ELSE now() + $4 * interval '1 millisecond' END
        WHERE workspace_id = $1 AND id = $2 AND locked_by = $3`, [delivery.workspace_id, delivery.id, this.lease.owner, delay ?? null]);
    }
};
exports.Recorder = Recorder;
exports.Recorder = Recorder = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, Object, endpoints_service_1.EndpointsService,
        lease_1.Lease])
], Recorder);
class Batch {
    write;
    max;
    waiting = [];
    writing = false;
    constructor(write, max = 256) {
        this.write = write;
        this.max = max;
    }
    add(item) {
        return new Promise((resolve, reject) => {
            this.waiting.push({ item, done: (error) => (error ? reject(error) : resolve()) });
            if (!this.writing) {
                this.writing = true;
                setImmediate(() => void this.flush());
            }
        });
    }
    async flush() {
        while (this.waiting.length > 0) {
            const taken = this.waiting.splice(0, this.max);
            try {
                await this.write(taken.map((w) => w.item));
                for (const w of taken)
                    w.done();
            }
            catch (error) {
                for (const w of taken)
                    w.done(error);
            }
        }
        this.writing = false;
    }
}
//# sourceMappingURL=recorder.js.map