import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in for the public site and the dashboard: sessions (a visitor's or a member's, in one
 * workspace), emailed codes and one-time links, and each workspace's SSO secret. Secrets are
 * kept only as hashes (sessions, codes, links) or sealed (the SSO secret, which must be read to
 * check a token's signature). Every table leads its key with workspace_id, as every tenant
 * table does. Codes go out as email through the outbox (a delivery with a recipient and the
 * event type `sign_in`), whose deliveries gain the reason `expired`.
 */
export class SiteSessions1763800000000 implements MigrationInterface {
  name = 'SiteSessions1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sessions (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('visitor', 'member')),
        person_id uuid NOT NULL,
        secret_hash bytea NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        last_used_at timestamptz(3) NOT NULL DEFAULT now(),
        expires_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, id),
        FOREIGN KEY (workspace_id, person_id) REFERENCES people (workspace_id, id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX sessions_person_idx ON sessions (workspace_id, person_id)`);
    await q.query(`CREATE INDEX sessions_expires_idx ON sessions (expires_at)`);

    await q.query(`
      CREATE TABLE sign_in_codes (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('visitor', 'member')),
        email text NOT NULL,
        name text,
        code_hash bytea,
        link_hash bytea NOT NULL,
        flow_hash bytea,
        failed_attempts integer NOT NULL DEFAULT 0,
        expires_at timestamptz(3) NOT NULL,
        used_at timestamptz(3),
        created_at timestamptz(3) NOT NULL DEFAULT now(),
        PRIMARY KEY (workspace_id, id)
      )`);
    await q.query(`CREATE INDEX sign_in_codes_flow_idx ON sign_in_codes (workspace_id, flow_hash) WHERE flow_hash IS NOT NULL`);
    await q.query(`CREATE INDEX sign_in_codes_expires_idx ON sign_in_codes (expires_at)`);

    await q.query(`
      CREATE TABLE sso_secrets (
        workspace_id uuid PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
        secret_sealed text NOT NULL,
        previous_sealed text,
        previous_expires_at timestamptz(3),
        rotated_at timestamptz(3) NOT NULL DEFAULT now()
      )`);

    // A sign-in email whose code expired before it could be sent is not sent.
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_reason_check`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_reason_check
         CHECK (reason IN ('quota_exceeded', 'endpoint_disabled', 'retries_exhausted', 'unsubscribed', 'expired'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DELETE FROM webhook_deliveries WHERE reason = 'expired'`);
    await q.query(`ALTER TABLE webhook_deliveries DROP CONSTRAINT IF EXISTS webhook_deliveries_reason_check`);
    await q.query(
      `ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_reason_check
         CHECK (reason IN ('quota_exceeded', 'endpoint_disabled', 'retries_exhausted', 'unsubscribed'))`,
    );
    for (const table of ['sso_secrets', 'sign_in_codes', 'sessions']) await q.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
