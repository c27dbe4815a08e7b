import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The widget's allowed origins: the sites that may frame a workspace's `/embed/…` pages
 * (`frame-ancestors`), and whose messages the embed acts on. A column of `workspaces` (a
 * reference table on Citus, where this DDL reaches every node).
 */
export class WidgetOrigins1763870000000 implements MigrationInterface {
  name = 'WidgetOrigins1763870000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces ADD COLUMN widget_origins text[] NOT NULL DEFAULT '{}'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE workspaces DROP COLUMN widget_origins`);
  }
}
