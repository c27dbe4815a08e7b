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
exports.EndpointToolsService = exports.RECOVER_WINDOW_MS = void 0;
const node_crypto_1 = require("node:crypto");
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const queries_1 = require("../database/queries");
const chat_channels_1 = require("../notifications/chat.channels");
const chat_messages_1 = require("../notifications/chat-messages");
const quota_1 = require("../outbox/quota");
const plans_1 = require("../workspaces/plans");
const deliveries_service_1 = require("./deliveries.service");
const endpoints_service_1 = require("./endpoints.service");
const events_service_1 = require("./events.service");
const webhook_channel_1 = require("./webhook.channel");
exports.RECOVER_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
const CHAT_PACE_MS = 1_000;
let EndpointToolsService = class EndpointToolsService {
    db;
    endpoints;
    deliveries;
    quota;
    channels;
    constructor(db, endpoints, deliveries, quota, webhook, slack, discord) {
        this.db = db;
        this.endpoints = endpoints;
        this.deliveries = deliveries;
        this.quota = quota;
        this.channels = { webhook, slack, discord };
    }
    async test(owner, id) {
        const endpoint = await this.endpoints.get(owner.workspaceId, id);
        if ((await this.quota.reserveAttempts(owner.workspaceId, owner.plan, 1)) === 0) {
            const quota = (0, plans_1.isPlan)(owner.plan) ? plans_1.PLANS[owner.plan].deliveriesPerMonth : 0;
            throw new app_error_1.AppError('plan_required', `This month's ${quota} delivery attempts are spent; they start again on the 1st (UTC).`);
        }
        const createdAt = new Date();
        const delivery = {
            workspace_id: owner.workspaceId,
            id: (0, node_crypto_1.randomUUID)(),
            endpoint_id: endpoint.id,
            recipient: null,
            event_type: 'ping',
            event_created_at: createdAt,
            body: '',
            attempt_count: 0,
            plan: owner.plan,
        };
        delivery.body =
            endpoint.kind === 'webhook'
                ? JSON.stringify({ id: delivery.id, type: 'ping', created_at: createdAt.toISOString(), data: { endpoint_id: endpoint.id } })
                : JSON.stringify((0, chat_messages_1.chatPingMessage)(endpoint.kind));
        const at = new Date();
        const target = (await this.endpoints.targets([{ workspace_id: owner.workspaceId, endpoint_id: endpoint.id }])).get(endpoint.id);
        const outcome = !target || target.unreadable
            ? { ok: false, statusCode: null, error: 'secret_unreadable', durationMs: 0, responseBody: null, retryAfterMs: null }
            : await this.channels[endpoint.kind].send(delivery, target);
        await this.db.transaction(async (manager) => {
            await manager.query(`INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, event_created_at, body,
                                         status, attempt_count, created_at, delivered_at)
         VALUES ($1, $2, $3, $2, 'ping', $4, $5, $6, 1, $4, $7)`, [owner.workspaceId, delivery.id, endpoint.id, createdAt, delivery.body, outcome.ok ? 'delivered' : 'failed', outcome.ok ? new Date() : null]);
            await manager.query(`INSERT INTO delivery_attempts (workspace_id, delivery_id, at, duration_ms, status_code, error, response_body)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`, [owner.workspaceId, delivery.id, at, outcome.durationMs, outcome.statusCode, outcome.error, outcome.responseBody]);
            if (endpoint.kind !== 'webhook') {
                await manager.query(`UPDATE webhook_endpoints SET next_send_at = GREATEST(next_send_at, $3::timestamptz + $4 * interval '1 millisecond')
            WHERE workspace_id = $1 AND id = $2`, [owner.workspaceId, endpoint.id, new Date(at.getTime() + outcome.durationMs), CHAT_PACE_MS]);
            }
        });
        return this.deliveries.get(owner.workspaceId, delivery.id);
    }
    async recover(workspaceId, id, since) {
        if (Date.now() - since.getTime() > exports.RECOVER_WINDOW_MS)
            throw app_error_1.AppError.invalid('since', 'must be within the last 7 days');
        const endpoint = await this.endpoints.get(workspaceId, id);
        return this.db.transaction(async (manager) => {
            const [row] = await manager.query(`SELECT enabled FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2 FOR SHARE`, [workspaceId, endpoint.id]);
            if (!row?.enabled)
                throw new app_error_1.AppError('conflict', 'The endpoint is turned off; turn it on before recovering its deliveries.');
            const scheduled = await (0, queries_1.updateReturning)(manager, `UPDATE webhook_deliveries SET status = 'pending', reason = NULL, next_attempt_at = now()
          WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'failed' AND event_type <> 'ping' AND created_at >= $3
          RETURNING id`, [workspaceId, endpoint.id, since]);
            if (scheduled.length > 0)
                await manager.query(`SELECT pg_notify($1, '')`, [events_service_1.OUTBOX_CHANNEL]);
            return scheduled.length;
        });
    }
};
exports.EndpointToolsService = EndpointToolsService;
exports.EndpointToolsService = EndpointToolsService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource,
        endpoints_service_1.EndpointsService,
        deliveries_service_1.DeliveriesService,
        quota_1.Quota,
        webhook_channel_1.WebhookChannel,
        chat_channels_1.SlackChannel,
        chat_channels_1.DiscordChannel])
], EndpointToolsService);
//# sourceMappingURL=endpoint-tools.service.js.map