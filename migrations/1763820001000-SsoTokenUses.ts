import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The SSO tokens that have signed someone in, each kept until it expires, so that a token signs
 * in once on every instance: a captured link (in a browser's history, a proxy's log, a
 * shoulder-surfed screen) cannot sign anyone in again. Kept by a hash of the token's `jti`, or
 * of the whole token when it has none; never the token itself. On Citus the table is
 * distributed by workspace, with the other tenant tables.
 */
export class SsoTokenUses1763820001000 implements MigrationInterface {
  name = 'SsoTokenUses1763820001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE sso_token_uses (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        token_hash bytea NOT NULL,
        expires_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, token_hash)
      )`);
    await q.query(`CREATE INDEX sso_token_uses_expires_idx ON sso_token_uses (expires_at)`);
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) {
      await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
      await q.query(`SELECT create_distributed_table('sso_token_uses', 'workspace_id', colocate_with => 'people')`);
    }
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS sso_token_uses`);
  }
}
