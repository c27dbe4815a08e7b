"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.FairOutbox1763760000000 = void 0;
class FairOutbox1763760000000 {
    name = 'FairOutbox1763760000000';
    async up(q) {
        await q.query(`ALTER TABLE outbox_events ADD COLUMN endpoint_ids uuid[]`);
        await q.query(`CREATE INDEX webhook_deliveries_queue_idx ON webhook_deliveries
         (workspace_id, (coalesce(endpoint_id, '00000000-0000-0000-0000-000000000000'::uuid)), next_attempt_at)
       WHERE status = 'pending'`);
        await q.query(`CREATE INDEX webhook_deliveries_leased_idx ON webhook_deliveries (workspace_id, endpoint_id)
       WHERE status = 'pending' AND locked_by IS NOT NULL`);
        await q.query(`CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (workspace_id, event_created_at DESC, created_at DESC, id DESC)`);
        await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_reason_check`);
        await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_reason_check
         CHECK (reason IN ('quota_exceeded', 'endpoint_disabled', 'retries_exhausted', 'unsubscribed'))`);
        await q.query(`ALTER TABLE people ADD COLUMN email_unsubscribed_at timestamptz(3)`);
        await q.query(`
      CREATE TABLE email_usage (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        hour timestamptz(3) NOT NULL,
        sent integer NOT NULL DEFAULT 0,
        PRIMARY KEY (workspace_id, hour)
      )`);
    }
    async down(q) {
        await q.query(`DROP TABLE IF EXISTS email_usage`);
        await q.query(`ALTER TABLE people DROP COLUMN IF EXISTS email_unsubscribed_at`);
        await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_reason_check`);
        await q.query(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_reason_check
         CHECK (reason IN ('quota_exceeded', 'endpoint_disabled', 'retries_exhausted'))`);
        await q.query(`DROP INDEX IF EXISTS webhook_deliveries_log_idx`);
        await q.query(`DROP INDEX IF EXISTS webhook_deliveries_leased_idx`);
        await q.query(`DROP INDEX IF EXISTS webhook_deliveries_queue_idx`);
        await q.query(`ALTER TABLE outbox_events DROP COLUMN IF EXISTS endpoint_ids`);
    }
}
exports.FairOutbox1763760000000 = FairOutbox1763760000000;
//# sourceMappingURL=1763760000000-FairOutbox.js.map