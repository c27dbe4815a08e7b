"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DeliveriesByEventTime1763770000000 = void 0;
class DeliveriesByEventTime1763770000000 {
    name = 'DeliveriesByEventTime1763770000000';
    async up(q) {
        await q.query(`DROP INDEX IF EXISTS webhook_deliveries_endpoint_idx`);
        await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx
          ON webhook_deliveries (workspace_id, endpoint_id, event_created_at DESC, event_id DESC)`);
    }
    async down(q) {
        await q.query(`DROP INDEX IF EXISTS webhook_deliveries_endpoint_idx`);
        await q.query(`CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (workspace_id, endpoint_id, created_at DESC, id DESC)`);
    }
}
exports.DeliveriesByEventTime1763770000000 = DeliveriesByEventTime1763770000000;
//# sourceMappingURL=1763770000000-DeliveriesByEventTime.js.map