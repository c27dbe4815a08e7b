"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.MIGRATIONS = exports.ENTITIES = void 0;
exports.dataSourceOptions = dataSourceOptions;
const _1763740000000_Initial_1 = require("../../migrations/1763740000000-Initial");
const _1763750000000_WebhookDeliveries_1 = require("../../migrations/1763750000000-WebhookDeliveries");
const _1763760000000_FairOutbox_1 = require("../../migrations/1763760000000-FairOutbox");
const _1763770000000_DeliveriesByEventTime_1 = require("../../migrations/1763770000000-DeliveriesByEventTime");
const _1763770001000_RotatedSecrets_1 = require("../../migrations/1763770001000-RotatedSecrets");
const _1763780000000_IdempotencyKeys_1 = require("../../migrations/1763780000000-IdempotencyKeys");
const _1763790000000_CallerChanges_1 = require("../../migrations/1763790000000-CallerChanges");
const _1763790000001_WorkspaceSearch_1 = require("../../migrations/1763790000001-WorkspaceSearch");
const api_key_entity_1 = require("../auth/api-key.entity");
const board_entity_1 = require("../boards/board.entity");
const comment_entity_1 = require("../comments/comment.entity");
const post_entity_1 = require("../posts/post.entity");
const status_change_entity_1 = require("../posts/status-change.entity");
const vote_entity_1 = require("../posts/vote.entity");
const delivery_attempt_entity_1 = require("../webhooks/delivery-attempt.entity");
const outbox_event_entity_1 = require("../webhooks/outbox-event.entity");
const webhook_delivery_entity_1 = require("../webhooks/webhook-delivery.entity");
const webhook_endpoint_entity_1 = require("../webhooks/webhook-endpoint.entity");
const person_entity_1 = require("../workspaces/person.entity");
const workspace_entity_1 = require("../workspaces/workspace.entity");
exports.ENTITIES = [
    workspace_entity_1.WorkspaceEntity,
    person_entity_1.PersonEntity,
    api_key_entity_1.ApiKeyEntity,
    board_entity_1.BoardEntity,
    post_entity_1.PostEntity,
    vote_entity_1.VoteEntity,
    status_change_entity_1.StatusChangeEntity,
    comment_entity_1.CommentEntity,
    outbox_event_entity_1.OutboxEventEntity,
    webhook_endpoint_entity_1.WebhookEndpointEntity,
    webhook_delivery_entity_1.WebhookDeliveryEntity,
    delivery_attempt_entity_1.DeliveryAttemptEntity,
];
exports.MIGRATIONS = [
    _1763740000000_Initial_1.Initial1763740000000,
    _1763750000000_WebhookDeliveries_1.WebhookDeliveries1763750000000,
    _1763760000000_FairOutbox_1.FairOutbox1763760000000,
    _1763770000000_DeliveriesByEventTime_1.DeliveriesByEventTime1763770000000,
    _1763770001000_RotatedSecrets_1.RotatedSecrets1763770001000,
    _1763780000000_IdempotencyKeys_1.IdempotencyKeys1763780000000,
    _1763790000000_CallerChanges_1.CallerChanges1763790000000,
    _1763790000001_WorkspaceSearch_1.WorkspaceSearch1763790000001,
];
function dataSourceOptions(url, embedded, statementTimeoutMs = 0) {
    return {
        type: 'postgres',
        url,
        entities: exports.ENTITIES,
        migrations: exports.MIGRATIONS,
        migrationsTableName: 'migrations',
        migrationsTransactionMode: 'all',
        synchronize: false,
        poolSize: embedded ? 1 : 10,
        extra: embedded
            ? { connectionTimeoutMillis: 10_000, idleTimeoutMillis: 0 }
            : { connectionTimeoutMillis: 10_000, ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}) },
    };
}
//# sourceMappingURL=data-source-options.js.map