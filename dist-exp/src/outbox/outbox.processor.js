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
exports.OutboxProcessor = void 0;
const common_1 = require("@nestjs/common");
const schedule_1 = require("@nestjs/schedule");
const typeorm_1 = require("@nestjs/typeorm");
const pg_1 = require("pg");
const typeorm_2 = require("typeorm");
const app_config_1 = require("../config/app-config");
const database_1 = require("../database/database");
const metrics_service_1 = require("../metrics/metrics.service");
const mailer_1 = require("../notifications/mailer");
const events_service_1 = require("../webhooks/events.service");
const channel_1 = require("./channel");
const fan_out_1 = require("./fan-out");
const recorder_1 = require("./recorder");
const scheduler_1 = require("./scheduler");
let OutboxProcessor = class OutboxProcessor {
    db;
    config;
    database;
    fanOut;
    scheduler;
    recorder;
    registry;
    mailer;
    metrics;
    logger = new common_1.Logger('Outbox');
    inFlight = new Set();
    channels;
    running = null;
    again = false;
    eventsMayWait = true;
    stopping = false;
    listener = null;
    retryTimer;
    constructor(db, config, database, channels, fanOut, scheduler, recorder, registry, mailer, metrics) {
        this.db = db;
        this.config = config;
        this.database = database;
        this.fanOut = fanOut;
        this.scheduler = scheduler;
        this.recorder = recorder;
        this.registry = registry;
        this.mailer = mailer;
        this.metrics = metrics;
        this.channels = new Map(channels.map((channel) => [channel.kind, channel]));
    }
    get slots() {
        return this.config.outboxConcurrency;
    }
    async onApplicationBootstrap() {
        const pollMs = this.database.embedded ? 200 : 1_000;
        this.registry.addInterval('outbox-poll', setInterval(() => this.wakeForEvents(), pollMs));
        if (!this.database.embedded)
            await this.listen();
        this.wake();
    }
    stopClaiming() {
        this.stopping = true;
    }
    async beforeApplicationShutdown() {
        this.stopping = true;
        clearTimeout(this.retryTimer);
        if (this.registry.doesExist('interval', 'outbox-poll'))
            this.registry.deleteInterval('outbox-poll');
        await this.listener?.end().catch(() => { });
        this.listener = null;
        await this.running;
        await Promise.allSettled([...this.inFlight]);
        this.mailer.close();
    }
    wakeForEvents() {
        this.eventsMayWait = true;
        this.wake();
    }
    wake() {
        if (this.stopping)
            return;
        if (this.running) {
            this.again = true;
            return;
        }
        this.running = this.pass().finally(() => {
            this.running = null;
            if (this.again)
                this.wake();
        });
    }
    async pass() {
        try {
            do {
                this.again = false;
                let fanned = 0;
                if (this.eventsMayWait) {
                    this.eventsMayWait = false;
                    fanned = await this.fanOut.run();
                    if (fanned === fan_out_1.FAN_OUT_BATCH)
                        this.eventsMayWait = true;
                }
                const started = await this.claimAndSend();
                if (this.eventsMayWait || started > 0)
                    this.again = true;
            } while (this.again && !this.stopping);
            await this.wakeAtNextRetry();
        }
        catch (error) {
            this.eventsMayWait = true;
            this.logger.warn(`Outbox pass failed: ${error.message}`);
        }
    }
    async wakeAtNextRetry() {
        if (this.inFlight.size >= this.slots)
            return;
        const [next] = await this.db.query(`SELECT (extract(epoch FROM min(next_attempt_at) - now()) * 1000)::integer AS due_in_ms
         FROM webhook_deliveries WHERE status = 'pending' AND locked_by IS NULL`);
        if (next?.due_in_ms === null || next === undefined || this.stopping)
            return;
        let dueInMs = next.due_in_ms;
        if (dueInMs <= 0) {
            const [held] = await this.db.query(`SELECT (extract(epoch FROM min(e.next_send_at) - now()) * 1000)::integer AS due_in_ms
           FROM webhook_endpoints e
          WHERE e.kind <> 'webhook' AND e.next_send_at > now()
            AND EXISTS (SELECT 1 FROM webhook_deliveries d
                         WHERE d.workspace_id = e.workspace_id AND d.endpoint_id = e.id AND d.status = 'pending'
                           AND d.locked_by IS NULL AND d.next_attempt_at <= now())`);
            if (held?.due_in_ms === null || held === undefined || this.stopping)
                return;
            dueInMs = held.due_in_ms;
        }
        clearTimeout(this.retryTimer);
        this.retryTimer = setTimeout(() => this.wake(), Math.max(0, dueInMs) + 5);
        this.retryTimer.unref();
    }
    async listen() {
        const client = new pg_1.Client({ connectionString: this.database.url });
        client.on('notification', () => this.wakeForEvents());
        client.on('error', (error) => {
            this.logger.warn(`LISTEN connection lost (${error.message}); polling until it is back.`);
            if (this.listener === client)
                this.listener = null;
            setTimeout(() => !this.stopping && this.listen().catch(() => { }), 1_000).unref();
        });
        try {
            await client.connect();
            await client.query(`LISTEN ${events_service_1.OUTBOX_CHANNEL}`);
            this.listener = client;
        }
        catch (error) {
            this.logger.warn(`Could not LISTEN (${error.message}); polling, and trying again.`);
            await client.end().catch(() => { });
            setTimeout(() => !this.stopping && this.listen().catch(() => { }), 1_000).unref();
        }
    }
    async claimAndSend() {
        const free = this.slots - this.inFlight.size;
        if (free <= 0 || this.stopping)
            return 0;
        const claimed = await this.scheduler.claim(free);
        for (const sendable of claimed)
            this.start(sendable);
        return claimed.length;
    }
    start(sendable) {
        const task = this.attempt(sendable)
            .catch(async (error) => {
            this.logger.error(`Delivery ${sendable.delivery.id}: its attempt could not be recorded: ${error.message}`);
            await this.recorder.release(sendable.delivery).catch(() => { });
        })
            .finally(() => {
            this.inFlight.delete(task);
            this.wake();
        });
        this.inFlight.add(task);
    }
    async attempt(sendable) {
        const at = new Date();
        const outcome = await this.channels.get(sendable.kind).send(sendable.delivery, sendable.endpoint);
        await this.recorder.record(sendable, at, outcome);
        this.report(sendable, outcome);
    }
    report({ delivery, kind }, outcome) {
        this.metrics.deliveryAttempts.inc({ kind, outcome: outcome.ok ? 'success' : 'failure' });
        if (outcome.ok) {
            this.metrics.deliveryLatency.observe({ kind }, (Date.now() - new Date(delivery.event_created_at).getTime()) / 1000);
        }
        const line = {
            msg: 'delivery attempt',
            delivery_id: delivery.id,
            workspace_id: delivery.workspace_id,
            endpoint_id: delivery.endpoint_id,
            kind,
            event_type: delivery.event_type,
            attempt: delivery.attempt_count + 1,
            outcome: outcome.ok ? 'success' : 'failure',
            status_code: outcome.statusCode,
            error: outcome.error,
            duration_ms: outcome.durationMs,
        };
        if (outcome.ok)
            this.logger.log(line);
        else
            this.logger.warn(line);
    }
};
exports.OutboxProcessor = OutboxProcessor;
exports.OutboxProcessor = OutboxProcessor = __decorate([
    (0, common_1.Injectable)(),
    __param(0, (0, typeorm_1.InjectDataSource)()),
    __param(1, (0, common_1.Inject)(app_config_1.APP_CONFIG)),
    __param(2, (0, common_1.Inject)(database_1.DATABASE_TARGET)),
    __param(3, (0, common_1.Inject)(channel_1.OUTBOX_CHANNELS)),
    __metadata("design:paramtypes", [typeorm_2.DataSource, Object, Object, Array, fan_out_1.FanOut,
        scheduler_1.Scheduler,
        recorder_1.Recorder,
        schedule_1.SchedulerRegistry,
        mailer_1.Mailer,
        metrics_service_1.MetricsService])
], OutboxProcessor);
//# sourceMappingURL=outbox.processor.js.map