import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change to api_keys or workspaces (a revocation, a plan change) is announced on
 * `chorus_callers`, from whichever process makes it, so that every API instance drops its
 * cached callers at commit (src/auth/caller-cache.ts).
 */
export class CallerChanges1763790000000 implements MigrationInterface {
  name = 'CallerChanges1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION chorus_callers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('chorus_callers', '');
        RETURN NULL;
      END $$`);
    for (const table of ['api_keys', 'workspaces']) {
      await q.query(
        `CREATE TRIGGER ${table}_callers_changed AFTER UPDATE OR DELETE ON ${table}
         FOR EACH STATEMENT EXECUTE FUNCTION chorus_callers_changed()`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['api_keys', 'workspaces']) await q.query(`DROP TRIGGER ${table}_callers_changed ON ${table}`);
    await q.query(`DROP FUNCTION chorus_callers_changed()`);
  }
}
