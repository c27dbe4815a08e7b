import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the dashboard shows beside what the API keeps: when each API key was last used (a table
 * of its own, written at most every few minutes per key, so that using a key neither rewrites
 * api_keys nor wakes every instance's callers cache through its trigger).
 */
export class DashboardSupport1763800001000 implements MigrationInterface {
  name = 'DashboardSupport1763800001000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE api_key_uses (
        workspace_id uuid NOT NULL,
        key_id uuid NOT NULL,
        last_used_at timestamptz(3) NOT NULL,
        PRIMARY KEY (workspace_id, key_id),
        FOREIGN KEY (workspace_id, key_id) REFERENCES api_keys (workspace_id, id) ON DELETE CASCADE
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS api_key_uses`);
  }
}
