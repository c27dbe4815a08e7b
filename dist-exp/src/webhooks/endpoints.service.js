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
exports.EndpointsService = exports.secretContext = exports.urlContext = exports.ROTATION_OVERLAP_MS = exports.SECRET_PREFIX = void 0;
const node_crypto_1 = require("node:crypto");
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const random_1 = require("../common/random");
const secret_box_1 = require("../common/secret-box");
const app_config_1 = require("../config/app-config");
const plans_1 = require("../workspaces/plans");
const chat_messages_1 = require("../notifications/chat-messages");
const address_guard_1 = require("./address-guard");
const name_resolver_1 = require("./name-resolver");
const webhook_endpoint_entity_1 = require("./webhook-endpoint.entity");
exports.SECRET_PREFIX = 'whsec_';
exports.ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const newSecret = () => exports.SECRET_PREFIX + (0, random_1.randomBase62)(40);
const urlContext = (id) => `webhook_endpoints.url:${id}`;
exports.urlContext = urlContext;
const secretContext = (id) => `webhook_endpoints.secret:${id}`;
exports.secretContext = secretContext;
let EndpointsService = class EndpointsService {
    db;
    config;
    box;
    resolver;
    logger = new common_1.Logger('Endpoints');
    constructor(db, config, box, resolver) {
        this.db = db;
        this.config = config;
        this.box = box;
        this.resolver = resolver;
    }
    list(workspaceId) {
        return this.db.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).find({ where: { workspaceId }, order: { createdAt: 'ASC', id: 'ASC' } });
    }
    async get(workspaceId, id, manager = this.db.manager, options = {}) {
        const endpoint = UUID.test(id)
            ? await manager.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).findOne({
                where: { workspaceId, id },
                lock: options.lock ? { mode: 'pessimistic_write' } : undefined,
            })
            : null;
        if (!endpoint)
            throw app_error_1.AppError.notFound('webhook endpoint');
        return endpoint;
    }
    async workspaceOf(id) {
        const endpoint = UUID.test(id) ? await this.db.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).findOneBy({ id }) : null;
        if (!endpoint)
            throw new app_error_1.AppError('not_found', `No webhook endpoint with id ${id}.`);
        return endpoint.workspaceId;
    }
    async create(owner, input) {
        const kind = input.kind ?? 'webhook';
        await this.checkPlanCount(this.db.manager, owner);
        await this.checkUrl(owner.workspaceId, kind, input.url);
        return this.db.transaction(async (manager) => {
            await manager.query(`SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE`, [owner.workspaceId]);
            await this.checkPlanCount(manager, owner);
            const id = (0, node_crypto_1.randomUUID)();
            const secret = kind === 'webhook' ? newSecret() : null;
            const repo = manager.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity);
            const endpoint = await repo.save(repo.create({
                workspaceId: owner.workspaceId,
                id,
                kind,
                ...this.sealUrl(id, kind, input.url),
                events: input.events,
                secretSealed: secret ? this.box.seal(secret, (0, exports.secretContext)(id)) : null,
            }));
            return { endpoint, secret };
        });
    }
    async update(workspaceId, id, change) {
        if (change.url !== undefined)
            await this.checkUrl(workspaceId, (await this.get(workspaceId, id)).kind, change.url);
        return this.db.transaction(async (manager) => {
            const endpoint = await this.get(workspaceId, id, manager);
            if (change.url !== undefined)
                Object.assign(endpoint, this.sealUrl(endpoint.id, endpoint.kind, change.url));
            if (change.events !== undefined)
                endpoint.events = change.events;
            if (change.enabled === true && !endpoint.enabled) {
                endpoint.enabled = true;
                endpoint.disabledReason = null;
                endpoint.consecutiveFailures = 0;
            }
            else if (change.enabled === false && endpoint.enabled) {
                await this.disable(manager, endpoint, 'user');
            }
            endpoint.updatedAt = new Date();
            return manager.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).save(endpoint);
        });
    }
    async remove(workspaceId, id) {
        const endpoint = await this.get(workspaceId, id);
        await this.db.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).delete({ workspaceId, id: endpoint.id });
    }
    async rotateSecret(workspaceId, id) {
        return this.db.transaction(async (manager) => {
            const endpoint = await this.get(workspaceId, id, manager, { lock: true });
            if (endpoint.kind !== 'webhook') {
                throw app_error_1.AppError.invalid('path', `endpoint ${endpoint.id} is a ${endpoint.kind} endpoint; only webhook endpoints have a signing secret`);
            }
            const secret = newSecret();
            const now = new Date();
            endpoint.rotatedSecrets = [
                { sealed: endpoint.secretSealed, expires_at: new Date(now.getTime() + exports.ROTATION_OVERLAP_MS).toISOString() },
                ...endpoint.rotatedSecrets.filter((rotated) => new Date(rotated.expires_at) > now),
            ];
            endpoint.secretSealed = this.box.seal(secret, (0, exports.secretContext)(endpoint.id));
            endpoint.updatedAt = now;
            return { endpoint: await manager.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).save(endpoint), secret };
        });
    }
    signingSecrets(endpoint, now = new Date()) {
        const sealed = [
            endpoint.secretSealed,
            ...endpoint.rotatedSecrets.filter((rotated) => new Date(rotated.expires_at) > now).map((rotated) => rotated.sealed),
        ];
        return sealed.filter((s) => !!s).map((s) => this.box.open(s, (0, exports.secretContext)(endpoint.id)));
    }
    async disable(manager, endpoint, reason) {
        await manager.query(`UPDATE webhook_endpoints SET enabled = false, disabled_reason = $3, updated_at = now()
        WHERE workspace_id = $1 AND id = $2`, [endpoint.workspaceId, endpoint.id, reason]);
        await manager.query(`UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL,
              locked_by = NULL, locked_until = NULL
        WHERE workspace_id = $1 AND endpoint_id = $2 AND status = 'pending'
          AND (locked_by IS NULL OR locked_until < now())`, [endpoint.workspaceId, endpoint.id]);
        Object.assign(endpoint, { enabled: false, disabledReason: reason });
    }
    async targets(refs) {
        if (refs.length === 0)
            return new Map();
        const rows = await this.db.query(`SELECT e.id, e.kind, e.url_sealed, e.enabled, e.secret_sealed, e.rotated_secrets
         FROM webhook_endpoints e
        WHERE (e.workspace_id, e.id) IN (SELECT * FROM unnest($1::uuid[], $2::uuid[]))`, [refs.map((r) => r.workspace_id), refs.map((r) => r.endpoint_id)]);
        const now = new Date();
        return new Map(rows.map((row) => {
            const target = { id: row.id, kind: row.kind, url: '', secrets: [], enabled: row.enabled, unreadable: false };
            try {
                target.secrets = this.signingSecrets({ id: row.id, secretSealed: row.secret_sealed, rotatedSecrets: row.rotated_secrets }, now);
                target.url = this.box.open(row.url_sealed, (0, exports.urlContext)(row.id));
            }
            catch {
                this.logger.error(`Endpoint ${row.id}: its URL or signing secret does not open with this ENCRYPTION_KEY.`);
                target.unreadable = true;
            }
            return [row.id, target];
        }));
    }
    sealUrl(id, kind, url) {
        return { urlSealed: this.box.seal(url, (0, exports.urlContext)(id)), urlShown: kind === 'webhook' ? url : (0, chat_messages_1.maskChatUrl)(url) };
    }
    async checkPlanCount(manager, owner) {
        const allowed = (0, plans_1.isPlan)(owner.plan) ? plans_1.PLANS[owner.plan].webhookEndpoints : 0;
        const existing = await manager.getRepository(webhook_endpoint_entity_1.WebhookEndpointEntity).countBy({ workspaceId: owner.workspaceId });
        if (existing >= allowed) {
            throw new app_error_1.AppError('plan_required', allowed === 0
                ? 'Webhook endpoints are available on the Pro plan and above.'
                : `This workspace's plan allows ${allowed} webhook endpoints; delete one or upgrade the plan.`);
        }
    }
    checkUrl(workspaceId, kind, url) {
        return (0, address_guard_1.checkTargetUrl)(kind, url, { allowPrivate: this.config.webhookAllowPrivateTargets, resolver: this.resolver, workspaceId });
    }
};
exports.EndpointsService = EndpointsService;
exports.EndpointsService = EndpointsService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, Object, secret_box_1.SecretBox,
        name_resolver_1.NameResolver])
], EndpointsService);
//# sourceMappingURL=endpoints.service.js.map