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
Object.defineProperty(exports, "__esModule", { value: true });
exports.RecoveredResponse = exports.DeliveryResponse = exports.AttemptResponse = exports.DELIVERY_SELECT = exports.CHANNELS = void 0;
exports.toDeliveryResponse = toDeliveryResponse;
const swagger_1 = require("@nestjs/swagger");
const outbox_event_entity_1 = require("./outbox-event.entity");
const attempt_errors_1 = require("./attempt-errors");
exports.CHANNELS = ['webhook', 'slack', 'discord', 'email'];
exports.DELIVERY_SELECT = `
  SELECT d.id, d.endpoint_id, coalesce(e.kind, 'email') AS channel, d.event_type, d.status, d.reason, d.created_at, d.next_attempt_at,
         COALESCE((SELECT json_agg(json_build_object(
                     'at', to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                     'duration_ms', a.duration_ms, 'status_code', a.status_code, 'error', a.error)
                   ORDER BY a.at, a.id)
                     FROM delivery_attempts a
                    WHERE a.workspace_id = d.workspace_id AND a.delivery_id = d.id), '[]') AS attempts
    FROM webhook_deliveries d
    LEFT JOIN webhook_endpoints e ON e.workspace_id = d.workspace_id AND e.id = d.endpoint_id`;
let AttemptResponse = class AttemptResponse {
    at;
    duration_ms;
    status_code;
    error;
};
exports.AttemptResponse = AttemptResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time' }),
    __metadata("design:type", String)
], AttemptResponse.prototype, "at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 0 }),
    __metadata("design:type", Number)
], AttemptResponse.prototype, "duration_ms", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', nullable: true, description: 'The HTTP status (or SMTP reply code), if there was an answer.' }),
    __metadata("design:type", Object)
], AttemptResponse.prototype, "status_code", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({
        enum: attempt_errors_1.ATTEMPT_ERRORS,
        type: String,
        nullable: true,
        description: 'What happened when there was no usable answer: `timeout`, `connection_refused`, `connection_reset`, `dns_error`, ' +
            '`tls_error`, `unsafe_target` (the address is not public), `network_error` (any other), `smtp_error` (voter email), ' +
            '`secret_unreadable` (the stored secret does not open with `ENCRYPTION_KEY`); null when there was an answer.',
    }),
    __metadata("design:type", Object)
], AttemptResponse.prototype, "error", void 0);
exports.AttemptResponse = AttemptResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'DeliveryAttempt' })
], AttemptResponse);
let DeliveryResponse = class DeliveryResponse {
    id;
    channel;
    endpoint_id;
    event_type;
    status;
    reason;
    created_at;
    next_attempt_at;
    attempts;
};
exports.DeliveryResponse = DeliveryResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'uuid', description: 'The `Chorus-Delivery` header and the body\'s `id`.' }),
    __metadata("design:type", String)
], DeliveryResponse.prototype, "id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: exports.CHANNELS, description: 'Where it goes: an own server, Slack, Discord, or a voter\'s email (whose address is never shown).' }),
    __metadata("design:type", String)
], DeliveryResponse.prototype, "channel", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: String, format: 'uuid', nullable: true, description: 'The endpoint; null for a voter email.' }),
    __metadata("design:type", Object)
], DeliveryResponse.prototype, "endpoint_id", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: [...outbox_event_entity_1.EVENT_TYPES, 'ping'], description: '`ping` for an endpoint test.' }),
    __metadata("design:type", String)
], DeliveryResponse.prototype, "event_type", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['pending', 'delivered', 'failed', 'cancelled'] }),
    __metadata("design:type", String)
], DeliveryResponse.prototype, "status", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ enum: ['quota_exceeded', 'endpoint_disabled', 'retries_exhausted', 'unsubscribed'], nullable: true, type: String }),
    __metadata("design:type", Object)
], DeliveryResponse.prototype, "reason", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ format: 'date-time' }),
    __metadata("design:type", String)
], DeliveryResponse.prototype, "created_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: String, format: 'date-time', nullable: true, description: 'Null unless pending.' }),
    __metadata("design:type", Object)
], DeliveryResponse.prototype, "next_attempt_at", void 0);
__decorate([
    (0, swagger_1.ApiProperty)({ type: AttemptResponse, isArray: true }),
    __metadata("design:type", Array)
], DeliveryResponse.prototype, "attempts", void 0);
exports.DeliveryResponse = DeliveryResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Delivery' })
], DeliveryResponse);
function toDeliveryResponse(row) {
    return {
        id: row.id,
        channel: row.channel,
        endpoint_id: row.endpoint_id,
        event_type: row.event_type,
        status: row.status,
        reason: row.reason,
        created_at: row.created_at.toISOString(),
        next_attempt_at: row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
        attempts: row.attempts,
    };
}
let RecoveredResponse = class RecoveredResponse {
    scheduled;
};
exports.RecoveredResponse = RecoveredResponse;
__decorate([
    (0, swagger_1.ApiProperty)({ type: 'integer', minimum: 0, description: 'How many failed deliveries were scheduled again.' }),
    __metadata("design:type", Number)
], RecoveredResponse.prototype, "scheduled", void 0);
exports.RecoveredResponse = RecoveredResponse = __decorate([
    (0, swagger_1.ApiSchema)({ name: 'Recovered' })
], RecoveredResponse);
//# sourceMappingURL=delivery.mapper.js.map