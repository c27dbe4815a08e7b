import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * On a Citus coordinator (the `citus` extension is installed in the database), every tenant
 * table is distributed by `workspace_id`, all in one colocation group, so that the rows of one
 * workspace live in one shard of each table, on one node, and every statement of one
 * workspace's request runs there whole (a "router" query). The two tables read by key hash or
 * by slug, before the workspace is known, are reference tables (a copy on every node):
 * `workspaces` and `api_keys`. On plain PostgreSQL and PGlite this migration does nothing.
 *
 * What Citus does not accept, and what takes its place:
 * - triggers on reference tables (they would fire on the shards, on the worker nodes, where no
 *   instance LISTENs): `chorus_callers` is announced by the code that changes api_keys or
 *   workspaces instead (src/auth/caller-cache.ts). A change made by hand in SQL must
 *   `NOTIFY chorus_callers` itself on Citus (docs/citus.md says so).
 * - a foreign key from a reference table to a distributed one: api_keys' creator
 *   (workspace_id, created_by) → people is dropped; keys are only ever made for a member read
 *   in the same request (ApiKeysService.createFor's callers) and people are never deleted.
 * - a unique index without the distribution column: webhook_endpoints (id) and
 *   webhook_deliveries (id) become unique per workspace only (their primary keys). Both ids
 *   are random (gen_random_uuid, randomUUID) and every statement names the workspace.
 * api_keys.key_hash stays unique across every workspace: api_keys is a reference table, whose
 * unique indexes hold for the whole table.
 *
 * In one transaction: all of it is done, or none of it (create_distributed_table moves each
 * table's rows into its shards; while it does, writes to that table wait).
 */
export class DistributeByWorkspace1763810000000 implements MigrationInterface {
  name = 'DistributeByWorkspace1763810000000';

  async up(q: QueryRunner): Promise<void> {
    if (!(await isCitus(q))) return;
    // Foreign keys to reference tables may be made in this transaction only if nothing in it
    // ran on several shards in parallel.
    await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    for (const table of REFERENCE_TABLES) {
      await q.query(`DROP TRIGGER IF EXISTS ${table}_callers_changed ON ${table}`);
    }
    await q.query(`ALTER TABLE api_keys DROP CONSTRAINT IF EXISTS api_keys_workspace_id_created_by_fkey`);
    await q.query(`DROP INDEX IF EXISTS webhook_endpoints_id_key`);
    await q.query(`DROP INDEX IF EXISTS webhook_deliveries_id_key`);
    // The tables are distributed one by one, and Citus refuses a foreign key between a table
    // already distributed and one not yet: the keys are set aside and made again at the end.
    const keys: { table: string; name: string; definition: string }[] = await q.query(
      `SELECT conrelid::regclass::text AS table, conname AS name, pg_get_constraintdef(oid) AS definition
         FROM pg_constraint WHERE contype = 'f' AND conrelid = ANY ($1::regclass[])`,
      [[...REFERENCE_TABLES, ...TENANT_TABLES]],
    );
    for (const key of keys) await q.query(`ALTER TABLE ${key.table} DROP CONSTRAINT ${key.name}`);
    for (const table of REFERENCE_TABLES) {
      if ((await placement(q, table)) !== 'reference') await q.query(`SELECT create_reference_table($1)`, [table]);
    }
    let colocateWith = 'none';
    for (const table of TENANT_TABLES) {
      if ((await placement(q, table)) !== 'distributed') {
        await q.query(`SELECT create_distributed_table($1, 'workspace_id', colocate_with => $2)`, [table, colocateWith]);
      }
      colocateWith = TENANT_TABLES[0];
    }
    for (const key of keys) await q.query(`ALTER TABLE ${key.table} ADD CONSTRAINT ${key.name} ${key.definition}`);
  }

  /** Back to local tables on the coordinator (undistribute_table keeps the rows). */
  async down(q: QueryRunner): Promise<void> {
    if (!(await isCitus(q))) return;
    await q.query(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
    for (const table of [...TENANT_TABLES].reverse()) {
      if ((await placement(q, table)) !== 'local') await q.query(`SELECT undistribute_table($1, cascade_via_foreign_keys => true)`, [table]);
    }
    for (const table of REFERENCE_TABLES) {
      if ((await placement(q, table)) !== 'local') await q.query(`SELECT undistribute_table($1, cascade_via_foreign_keys => true)`, [table]);
    }
  }
}

/** Read before the workspace is known (by slug, by key hash): a copy on every node. */
export const REFERENCE_TABLES = ['workspaces', 'api_keys'];

/**
 * Every table with rows of one workspace, distributed by workspace_id and colocated with the
 * first; parents before the tables whose foreign keys point at them.
 */
export const TENANT_TABLES = [
  'people',
  'boards',
  'posts',
  'votes',
  'comments',
  'status_changes',
  'outbox_events',
  'webhook_endpoints',
  'webhook_deliveries',
  'delivery_attempts',
  'delivery_usage',
  'email_usage',
  'idempotency_keys',
  'sessions',
  'sign_in_codes',
  'sso_secrets',
  'api_key_uses',
];

async function isCitus(q: QueryRunner): Promise<boolean> {
  const rows: unknown[] = await q.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
  return rows.length > 0;
}

/**
 * Where a table's rows are: on the coordinator alone ('local'; also a "Citus local table", which
 * Citus makes of a table with a foreign key to a reference table), on every node ('reference'),
 * or in shards by workspace ('distributed').
 */
async function placement(q: QueryRunner, table: string): Promise<'local' | 'reference' | 'distributed'> {
  const [row]: { partmethod: string; repmodel: string }[] = await q.query(
    `SELECT partmethod, repmodel FROM pg_dist_partition WHERE logicalrelid = to_regclass($1)`,
    [table],
  );
  if (row?.partmethod === 'h') return 'distributed';
  return row?.partmethod === 'n' && row.repmodel === 't' ? 'reference' : 'local';
}
