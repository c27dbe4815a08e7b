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
exports.DeliveriesService = void 0;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const typeorm_2 = require("typeorm");
const app_error_1 = require("../common/app-error");
const page_query_1 = require("../common/page.query");
const delivery_mapper_1 = require("./delivery.mapper");
const endpoints_service_1 = require("./endpoints.service");
const events_service_1 = require("./events.service");
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
let DeliveriesService = class DeliveriesService {
    db;
    endpoints;
    constructor(db, endpoints) {
        this.db = db;
        this.endpoints = endpoints;
    }
    async listForEndpoint(workspaceId, endpointId, page) {
        const endpoint = await this.endpoints.get(workspaceId, endpointId);
        const rows = await this.db.query(`${delivery_mapper_1.DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.endpoint_id = $2
        ORDER BY d.event_created_at DESC, d.event_id DESC LIMIT $3 OFFSET $4`, [workspaceId, endpoint.id, page.limit + 1, page.offset]);
        return (0, page_query_1.pageOf)(rows.map(delivery_mapper_1.toDeliveryResponse), page);
    }
    async list(workspaceId, filter, page) {
        if (filter.endpointId !== undefined)
            await this.endpoints.get(workspaceId, filter.endpointId);
        const rows = await this.db.query(`${delivery_mapper_1.DELIVERY_SELECT} WHERE d.workspace_id = $1
          AND ($2::text IS NULL OR coalesce(e.kind, 'email') = $2) AND ($3::uuid IS NULL OR d.endpoint_id = $3)
        ORDER BY d.event_created_at DESC, d.created_at DESC, d.id DESC LIMIT $4 OFFSET $5`, [workspaceId, filter.channel ?? null, filter.endpointId ?? null, page.limit + 1, page.offset]);
        return (0, page_query_1.pageOf)(rows.map(delivery_mapper_1.toDeliveryResponse), page);
    }
    async get(workspaceId, id) {
        const rows = UUID.test(id)
            ? await this.db.query(`${delivery_mapper_1.DELIVERY_SELECT} WHERE d.workspace_id = $1 AND d.id = $2`, [workspaceId, id])
            : [];
        if (rows.length === 0)
            throw app_error_1.AppError.notFound('delivery');
        return (0, delivery_mapper_1.toDeliveryResponse)(rows[0]);
    }
    async retry(workspaceId, id) {
        await this.get(workspaceId, id);
        await this.db.transaction(async (manager) => {
            const [row] = await manager.query(`SELECT e.enabled FROM webhook_deliveries d
           LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
          WHERE d.workspace_id = $1 AND d.id = $2 FOR UPDATE OF d`, [workspaceId, id]);
            if (!row)
                throw app_error_1.AppError.notFound('delivery');
            if (row.enabled === false) {
                throw new app_error_1.AppError('conflict', 'The endpoint is turned off; turn it on before retrying its deliveries.');
            }
            await manager.query(`UPDATE webhook_deliveries SET status = 'pending', reason = NULL, next_attempt_at = now()
          WHERE workspace_id = $1 AND id = $2 AND (status <> 'pending' OR locked_by IS NULL)`, [workspaceId, id]);
            await manager.query(`SELECT pg_notify($1, '')`, [events_service_1.OUTBOX_CHANNEL]);
        });
        return this.get(workspaceId, id);
    }
};
exports.DeliveriesService = DeliveriesService;
exports.DeliveriesService = DeliveriesService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource,
        endpoints_service_1.EndpointsService])
], DeliveriesService);
//# sourceMappingURL=deliveries.service.js.map