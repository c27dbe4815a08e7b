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
exports.FanOut = exports.FAN_OUT_BATCH = void 0;
const node_crypto_1 = require("node:crypto");
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const secret_box_1 = require("../common/secret-box");
const app_config_1 = require("../config/app-config");
const unsubscribe_token_1 = require("../notifications/unsubscribe-token");
const messages_1 = require("./messages");
exports.FAN_OUT_BATCH = 200;
let FanOut = class FanOut {
    db;
    config;
    box;
    logger = new common_1.Logger('Outbox');
    constructor(db, config, box) {
        this.db = db;
        this.config = config;
        this.box = box;
    }
    async run() {
        return this.db.transaction(async (manager) => {
            const events = await manager.query(`SELECT o.workspace_id, o.id, o.type, o.created_at, o.data::text AS data, o.actor_id, o.endpoint_ids, w.plan
           FROM outbox_events o JOIN workspaces w ON w.id = o.workspace_id
          WHERE o.dispatched_at IS NULL ORDER BY o.created_at LIMIT $1 FOR UPDATE OF o SKIP LOCKED`, [exports.FAN_OUT_BATCH]);
            if (events.length === 0)
                return 0;
            const endpoints = await this.endpointsOf(manager, events);
            const rows = [[], [], [], [], [], [], [], []];
            const add = (event, id, endpointId, recipient, body) => [event.workspace_id, id, endpointId, recipient, event.id, event.type, event.created_at.toISOString(), body].forEach((value, i) => rows[i].push(value));
            for (const event of events) {
                if (event.plan === 'free')
                    continue;
                try {
                    for (const endpoint of endpoints.get(event.id) ?? []) {
                        const id = (0, node_crypto_1.randomUUID)();
                        add(event, id, endpoint.id, null, (0, messages_1.endpointBody)(endpoint.kind, id, event));
                    }
                    const change = (0, messages_1.statusChangeForVoters)(event);
                    if (change) {
                        for (const to of await this.votersToEmail(manager, event, change.post.board.id, change.post.id)) {
                            add(event, (0, node_crypto_1.randomUUID)(), null, to, (0, messages_1.emailBody)(change, to, this.unsubscribeUrl(event.workspace_id, to)));
                        }
                    }
                }
                catch (error) {
                    this.logger.error(`Event ${event.id} (${event.type}) could not be fanned out: ${error.message}`);
                }
            }
            if (rows[0].length > 0) {
                await manager.query(`INSERT INTO webhook_deliveries
             (workspace_id, id, endpoint_id, recipient, event_id, event_type, event_created_at, body, next_attempt_at)
           SELECT w, i, e, r, ev, t, c, b, now()
             FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::text[], $7::timestamptz[], $8::text[])
                  AS d(w, i, e, r, ev, t, c, b)
           ON CONFLICT DO NOTHING`, rows);
            }
            await manager.query(`UPDATE outbox_events SET dispatched_at = now()
          WHERE (workspace_id, id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`, [events.map((e) => e.workspace_id), events.map((e) => e.id)]);
            return events.length;
        });
    }
    async endpointsOf(manager, events) {
        const rows = await manager.query(`SELECT ev.id AS event_id, e.id, e.kind
         FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[]) AS ev(workspace_id, id, type, endpoint_ids)
         JOIN webhook_endpoints e ON e.workspace_id = ev.workspace_id
        WHERE CASE WHEN ev.endpoint_ids IS NULL THEN e.enabled AND ev.type = ANY (e.events)
                   ELSE e.id = ANY (ev.endpoint_ids::uuid[]) END`, [
            events.map((e) => e.workspace_id),
            events.map((e) => e.id),
            events.map((e) => e.type),
            events.map((e) => (e.endpoint_ids ? `{${e.endpoint_ids.join(',')}}` : null)),
        ]);
        const byEvent = new Map();
        for (const row of rows)
            byEvent.set(row.event_id, [...(byEvent.get(row.event_id) ?? []), row]);
        return byEvent;
    }
    async votersToEmail(manager, event, boardId, postId) {
        const rows = await manager.query(`SELECT DISTINCT ON (lower(p.email)) p.email
         FROM votes v
         JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
         JOIN boards b ON b.workspace_id = v.workspace_id AND b.id = $3
        WHERE v.workspace_id = $1 AND v.post_id = $2 AND b.notify_voters
          AND p.email IS NOT NULL AND p.id IS DISTINCT FROM $4
          AND NOT EXISTS (SELECT 1 FROM people u WHERE u.workspace_id = v.workspace_id
                             AND lower(u.email) = lower(p.email) AND u.email_unsubscribed_at IS NOT NULL)
        ORDER BY lower(p.email)`, [event.workspace_id, postId, boardId, event.actor_id]);
        return rows.map((row) => row.email);
    }
    unsubscribeUrl(workspaceId, email) {
        return `${this.config.baseUrl}/email/unsubscribe/${(0, unsubscribe_token_1.unsubscribeToken)(this.box, { workspaceId, email })}`;
    }
};
exports.FanOut = FanOut;
exports.FanOut = FanOut = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, Object, secret_box_1.SecretBox])
], FanOut);
//# sourceMappingURL=fan-out.js.map