"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.IdempotencyKeys1763780000000 = void 0;
class IdempotencyKeys1763780000000 {
    name = 'IdempotencyKeys1763780000000';
    async up(q) {
        await q.query(`
      CREATE TABLE idempotency_keys (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        key text NOT NULL CHECK (char_length(key) BETWEEN 1 AND 255),
        request_hash text NOT NULL,
        state text NOT NULL CHECK (state IN ('in_flight', 'completed')),
        owner text NOT NULL,
        locked_until timestamptz(3),
        status_code integer,
        response_body text,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, key),
        CHECK ((state = 'completed') = (status_code IS NOT NULL))
      )`);
        await q.query(`CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at)`);
    }
    async down(q) {
        await q.query(`DROP TABLE IF EXISTS idempotency_keys`);
    }
}
exports.IdempotencyKeys1763780000000 = IdempotencyKeys1763780000000;
//# sourceMappingURL=1763780000000-IdempotencyKeys.js.map