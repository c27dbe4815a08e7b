"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.WebhookDeliveries1763750000000 = void 0;
class WebhookDeliveries1763750000000 {
    name = 'WebhookDeliveries1763750000000';
    async up(q) {
        await q.query(`
      CREATE TABLE webhook_endpoints (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('webhook', 'slack', 'discord')),
        url_sealed text NOT NULL,
        url_shown text NOT NULL,
        events text[] NOT NULL CHECK (cardinality(events) > 0),
        secret_sealed text,
        previous_secret_sealed text,
        previous_secret_expires_at timestamptz(3),
        next_send_at timestamptz(3) NOT NULL DEFAULT now(),
        enabled boolean NOT NULL DEFAULT true,
        disabled_reason text CHECK (disabled_reason IN ('user', 'consecutive_failures', 'gone')),
        consecutive_failures integer NOT NULL DEFAULT 0,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        updated_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id)
      )`);
        await q.query(`CREATE UNIQUE INDEX webhook_endpoints_id_key ON webhook_endpoints (id)`);
        await q.query(`
      CREATE TABLE webhook_deliveries (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL,
        endpoint_id uuid,
        recipient text,
        event_id uuid NOT NULL,
        event_type text NOT NULL,
        event_created_at timestamptz(3) NOT NULL,
        body text NOT NULL,
        status text NOT NULL DEFAULT 'pending'
          CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
        reason text CHECK (reason IN ('quota_exceeded', 'endpoint_disabled', 'retries_exhausted')),
        attempt_count integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz(3),
        locked_by text,
        locked_until timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        delivered_at timestamptz(3),
        PRIMARY KEY (workspace_id, id),
        CHECK ((endpoint_id IS NULL) <> (recipient IS NULL)),
        UNIQUE (workspace_id, endpoint_id, event_id),
        UNIQUE (workspace_id, recipient, event_id),
        FOREIGN KEY (workspace_id, endpoint_id) REFERENCES webhook_endpoints (workspace_id, id) ON DELETE CASCADE
      )`);
        await q.query(`CREATE UNIQUE INDEX webhook_deliveries_id_key ON webhook_deliveries (id)`);
        await q.query(`CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`);
        await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (workspace_id, endpoint_id, created_at DESC, id DESC)`);
        await q.query(`
      CREATE TABLE delivery_attempts (
        workspace_id uuid NOT NULL,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        delivery_id uuid NOT NULL,
        at timestamptz(3) NOT NULL,
        duration_ms integer NOT NULL,
        status_code integer,
        error text,
        response_body text,
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, delivery_id) REFERENCES webhook_deliveries (workspace_id, id) ON DELETE CASCADE
      )`);
        await q.query(`CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (workspace_id, delivery_id, at)`);
        await q.query(`
      CREATE TABLE delivery_usage (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        month date NOT NULL,
        attempts integer NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, month)
      )`);
    }
    async down(q) {
        for (const table of ['delivery_usage', 'delivery_attempts', 'webhook_deliveries', 'webhook_endpoints']) {
            await q.query(`DROP TABLE IF EXISTS ${table}`);
        }
    }
}
exports.WebhookDeliveries1763750000000 = WebhookDeliveries1763750000000;
//# sourceMappingURL=1763750000000-WebhookDeliveries.js.map