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
exports.Scheduler = exports.EMAIL_CONCURRENCY = exports.BREAKER_THRESHOLD = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_config_1 = require("../config/app-config");
const queries_1 = require("../database/queries");
const endpoints_service_1 = require("../webhooks/endpoints.service");
const channel_1 = require("./channel");
const lease_1 = require("./lease");
const quota_1 = require("./quota");
const recorder_1 = require("./recorder");
exports.BREAKER_THRESHOLD = 5;
exports.EMAIL_CONCURRENCY = 4;
const MAIL_QUEUE = '00000000-0000-0000-0000-000000000000';
const QUEUE = `coalesce(d.endpoint_id, '${MAIL_QUEUE}'::uuid)`;
const CLAIMABLE = `
  WITH RECURSIVE queues AS (
    (SELECT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
      WHERE d.status = 'pending' ORDER BY d.workspace_id, ${QUEUE} LIMIT 1)
    UNION ALL
    SELECT n.workspace_id, n.queue FROM queues q, LATERAL (
      SELECT d.workspace_id, ${QUEUE} AS queue FROM webhook_deliveries d
       WHERE d.status = 'pending' AND (d.workspace_id, ${QUEUE}) > (q.workspace_id, q.queue)
       ORDER BY d.workspace_id, ${QUEUE} LIMIT 1) n
  ),
  flight AS (
    SELECT d.workspace_id, ${QUEUE} AS queue, count(*)::integer AS n FROM webhook_deliveries d
     WHERE d.status = 'pending' AND d.locked_by IS NOT NULL AND d.locked_until > now()
     GROUP BY 1, 2
  ),
  workspace_flight AS (SELECT workspace_id, sum(n)::integer AS n FROM flight GROUP BY 1),
  room AS (
    SELECT q.workspace_id, q.queue, e.kind,
           CASE WHEN e.id IS NULL THEN $4
                WHEN e.kind <> 'webhook' THEN CASE WHEN e.next_send_at <= now() THEN 1 ELSE 0 END
                WHEN e.consecutive_failures >= $3 THEN 1
                ELSE $2 END - coalesce(f.n, 0) AS free
      FROM queues q
      LEFT JOIN webhook_endpoints e ON e.workspace_id = q.workspace_id AND e.id = q.queue
      LEFT JOIN flight f ON f.workspace_id = q.workspace_id AND f.queue = q.queue
     WHERE q.queue = '${MAIL_QUEUE}'::uuid OR e.id IS NOT NULL
  ),
  candidates AS (
    SELECT c.*, r.kind,
           row_number() OVER (PARTITION BY c.workspace_id ORDER BY c.queue_rank, c.next_attempt_at, c.id) AS workspace_rank
      FROM room r, LATERAL (
        SELECT due.*, row_number() OVER (ORDER BY due.next_attempt_at, due.created_at) AS queue_rank FROM (
          SELECT d.workspace_id, d.id, d.endpoint_id, d.next_attempt_at, d.created_at FROM webhook_deliveries d
           WHERE d.workspace_id = r.workspace_id AND ${QUEUE} = r.queue AND d.status = 'pending'
             AND d.next_attempt_at <= now() AND (d.locked_until IS NULL OR d.locked_until < now())
           ORDER BY d.next_attempt_at, d.created_at LIMIT r.free) due
      ) c
     WHERE r.free > 0
  )
  SELECT c.workspace_id, c.id, c.endpoint_id, c.kind
    FROM candidates c LEFT JOIN workspace_flight w ON w.workspace_id = c.workspace_id
   WHERE c.workspace_rank <= $5 - coalesce(w.n, 0)
   ORDER BY c.workspace_rank, coalesce(w.n, 0), c.next_attempt_at
   LIMIT $1`;
const CLAIM_LOCK = 7_302_318_455_120_911;
let Scheduler = class Scheduler {
    db;
    config;
    lease;
    endpoints;
    quota;
    recorder;
    constructor(db, config, lease, endpoints, quota, recorder) {
        this.db = db;
        this.config = config;
        this.lease = lease;
        this.endpoints = endpoints;
        this.quota = quota;
        this.recorder = recorder;
    }
    async claim(slots) {
        const claimed = await this.lock(slots);
        if (claimed.length === 0)
            return [];
        const targets = await this.endpoints.targets(claimed.filter((d) => d.endpoint_id !== null).map((d) => ({ workspace_id: d.workspace_id, endpoint_id: d.endpoint_id })));
        const unsubscribed = await this.unsubscribed(claimed.filter((d) => d.recipient !== null));
        const wanted = [];
        for (const delivery of claimed) {
            if (delivery.recipient !== null) {
                if (unsubscribed.has(`${delivery.workspace_id} ${delivery.recipient.toLowerCase()}`)) {
                    await this.recorder.finish(delivery, 'cancelled', 'unsubscribed');
                }
                else
                    wanted.push({ delivery, kind: 'email', endpoint: null });
                continue;
            }
            const endpoint = targets.get(delivery.endpoint_id);
            if (!endpoint)
                continue;
            if (!endpoint.enabled)
                await this.recorder.finish(delivery, 'cancelled', 'endpoint_disabled');
            else if (endpoint.unreadable) {
                await this.recorder.record({ delivery, kind: endpoint.kind, endpoint }, new Date(), {
                    ok: false,
                    statusCode: null,
                    error: 'secret_unreadable',
                    durationMs: 0,
                    responseBody: null,
                    retryAfterMs: null,
                });
            }
            else
                wanted.push({ delivery, kind: endpoint.kind, endpoint });
        }
        return this.withinQuota(wanted);
    }
    lock(slots) {
        return this.db.transaction(async (manager) => {
            await manager.query(`SELECT pg_advisory_xact_lock($1)`, [CLAIM_LOCK]);
            const chosen = await manager.query(CLAIMABLE, [
                slots,
                this.config.outboxEndpointConcurrency,
                exports.BREAKER_THRESHOLD,
                exports.EMAIL_CONCURRENCY,
                this.config.outboxWorkspaceConcurrency,
            ]);
            if (chosen.length === 0)
                return [];
            const channels = chosen.filter((d) => (0, channel_1.isChat)(d.kind)).map((d) => d.endpoint_id);
            if (channels.length > 0) {
                await manager.query(`UPDATE webhook_endpoints SET next_send_at = now() + $2 * interval '1 millisecond' WHERE id = ANY($1)`, [channels, recorder_1.CHAT_PACE_MS]);
            }
            return (0, queries_1.updateReturning)(manager, `UPDATE webhook_deliveries d SET locked_by = $1, locked_until = now() + $2 * interval '1 millisecond'
           FROM workspaces w
          WHERE (d.workspace_id, d.id) IN (SELECT * FROM unnest($3::uuid[], $4::uuid[])) AND d.status = 'pending'
            AND w.id = d.workspace_id
          RETURNING d.workspace_id, d.id, d.endpoint_id, d.recipient, d.event_type, d.event_created_at, d.body,
                    d.attempt_count, w.plan`, [this.lease.owner, this.lease.ms, chosen.map((d) => d.workspace_id), chosen.map((d) => d.id)]);
        });
    }
    async unsubscribed(emails) {
        if (emails.length === 0)
            return new Set();
        const rows = await this.db.query(`SELECT DISTINCT p.workspace_id || ' ' || lower(p.email) AS key
         FROM people p JOIN unnest($1::uuid[], $2::text[]) AS r(workspace_id, email)
           ON p.workspace_id = r.workspace_id AND lower(p.email) = lower(r.email)
        WHERE p.email_unsubscribed_at IS NOT NULL`, [emails.map((d) => d.workspace_id), emails.map((d) => d.recipient)]);
        return new Set(rows.map((row) => row.key));
    }
    async withinQuota(wanted) {
        const byWorkspace = new Map();
        for (const s of wanted)
            byWorkspace.set(s.delivery.workspace_id, [...(byWorkspace.get(s.delivery.workspace_id) ?? []), s]);
        if (byWorkspace.size === 0)
            return [];
        const go = [];
        for (const [workspaceId, all] of byWorkspace) {
            let sendable = all;
            const emails = all.filter((s) => s.kind === 'email');
            if (emails.length > 0) {
                const allowed = await this.quota.reserveEmails(workspaceId, emails.length);
                const held = emails.slice(allowed);
                await this.recorder.defer(held.map((s) => s.delivery), nextHour());
                sendable = all.filter((s) => !held.includes(s));
            }
            const granted = await this.quota.reserveAttempts(workspaceId, all[0].delivery.plan, sendable.length);
            for (const s of sendable.slice(granted))
                await this.recorder.finish(s.delivery, 'failed', 'quota_exceeded');
            go.push(...sendable.slice(0, granted));
        }
        return go;
    }
};
exports.Scheduler = Scheduler;
exports.Scheduler = Scheduler = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, Object, lease_1.Lease,
        endpoints_service_1.EndpointsService,
        quota_1.Quota,
        recorder_1.Recorder])
], Scheduler);
const nextHour = () => {
    const at = new Date();
    at.setUTCMinutes(60, 0, 0);
    return at;
};
//# sourceMappingURL=scheduler.js.map