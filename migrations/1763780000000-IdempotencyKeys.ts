import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Idempotency keys of POST requests, per workspace: the request they were first used with (a
 * hash), whether it is still running, and the answer to replay. In the database, so that a
 * retry reaching another API instance finds them.
 */
export class IdempotencyKeys1763780000000 implements MigrationInterface {
  name = 'IdempotencyKeys1763780000000';

  async up(q: QueryRunner): Promise<void> {
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

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS idempotency_keys`);
  }
}
