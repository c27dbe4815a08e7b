import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The dashboard's sign-ins, one row each: asked for by a browser (its sign-in cookie, hashed,
 * is the row's only key there: the cookie holds no workspace or person id) with an address
 * that may or may not be a member's, or made by the CLI as a one-time link. The row keeps the
 * code and link (hashed), the tries, whether its code or link was right (`verified_at`) and
 * whether a session was made from it (`used_at`): a member of several workspaces chooses one
 * once, and no request of a used sign-in signs anyone in again. `handled_at` is when its email
 * was looked after (sent to a member, or nothing for anyone else), just after the answer.
 *
 * Not a workspace's row until it is known to be one, so on Citus a reference table, like
 * `workspaces` (read before the workspace is known).
 */
export class DashboardSignIns1763820002000 implements MigrationInterface {
  name = 'DashboardSignIns1763820002000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE dashboard_sign_ins (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        flow_hash bytea UNIQUE,
        email text NOT NULL,
        workspace_id uuid REFERENCES workspaces (id) ON DELETE CASCADE,
        code_hash bytea,
        link_hash bytea,
        failed_attempts integer NOT NULL DEFAULT 0,
        handled_at timestamptz(3),
        verified_at timestamptz(3),
        used_at timestamptz(3),
        expires_at timestamptz(3) NOT NULL,
        created_at timestamptz(3) NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX dashboard_sign_ins_expires_idx ON dashboard_sign_ins (expires_at)`);
    const [citus]: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus) await q.query(`SELECT create_reference_table('dashboard_sign_ins')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS dashboard_sign_ins`);
  }
}
