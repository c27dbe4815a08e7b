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
exports.MetricsService = void 0;
exports.oldestDue = oldestDue;
const common_1 = require("@nestjs/common");
const typeorm_1 = require("@nestjs/typeorm");
const prom_client_1 = require("prom-client");
const typeorm_2 = require("typeorm");
let MetricsService = class MetricsService {
    registry = new prom_client_1.Registry();
    httpDuration = new prom_client_1.Histogram({
        name: 'chorus_http_request_duration_seconds',
        help: 'HTTP requests by method, route and status, and how long they took.',
        labelNames: ['method', 'route', 'status'],
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [this.registry],
    });
    deliveryAttempts = new prom_client_1.Counter({
        name: 'chorus_delivery_attempts_total',
        help: 'Delivery attempts by kind (webhook, slack, discord, email) and outcome (success, failure).',
        labelNames: ['kind', 'outcome'],
        registers: [this.registry],
    });
    deliveryLatency = new prom_client_1.Histogram({
        name: 'chorus_delivery_latency_seconds',
        help: 'From the commit of the change to the successful delivery, by kind.',
        labelNames: ['kind'],
        buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600],
        registers: [this.registry],
    });
    constructor(db) {
        (0, prom_client_1.collectDefaultMetrics)({ register: this.registry, prefix: 'chorus_process_' });
        new prom_client_1.Gauge({
            name: 'chorus_outbox_backlog',
            help: 'Deliveries pending (due or waiting for a retry), and events not yet fanned out.',
            labelNames: ['what'],
            registers: [this.registry],
            async collect() {
                const [row] = await db.query(`SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending')::int AS deliveries,
                  (SELECT count(*) FROM outbox_events WHERE dispatched_at IS NULL)::int AS events`);
                this.set({ what: 'deliveries' }, row.deliveries);
                this.set({ what: 'events' }, row.events);
            },
        });
        new prom_client_1.Gauge({
            name: 'chorus_outbox_oldest_due_seconds',
            help: 'Age of the oldest delivery that is due and not being sent (0 when none).',
            registers: [this.registry],
            async collect() {
                this.set((await oldestDue(db)).seconds);
            },
        });
    }
    async scrape() {
        return { contentType: this.registry.contentType, body: await this.registry.metrics() };
    }
};
exports.MetricsService = MetricsService;
exports.MetricsService = MetricsService = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __metadata("design:paramtypes", [typeorm_2.DataSource])
], MetricsService);
async function oldestDue(db) {
    const [row] = await db.query(`SELECT extract(epoch FROM now() - min(d.next_attempt_at))::float AS age,
            EXISTS (SELECT 1 FROM webhook_deliveries WHERE status = 'pending' AND locked_until > now()) AS sending
       FROM webhook_deliveries d
       LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id
      WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND (e.next_send_at IS NULL OR e.kind = 'webhook' OR e.next_send_at <= now())`);
    return { seconds: Math.max(0, row.age ?? 0), sending: row.sending };
}
//# sourceMappingURL=metrics.service.js.map