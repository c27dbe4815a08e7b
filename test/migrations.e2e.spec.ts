import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { MIGRATIONS } from '../src/database/data-source-options';
import { newDataSource, runMigrations } from '../src/database/database';
import { onEmbeddedDatabase } from './support/test-app';

// Several processes sharing one server is a PostgreSQL matter; PGlite has one session.
const onPostgres = onEmbeddedDatabase() ? describe.skip : describe;

const withDatabase = (serverUrl: string, name: string) =>
  Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();

onPostgres('migrations on a shared PostgreSQL', () => {
  const serverUrl: string = onEmbeddedDatabase() ? '' : JSON.parse(process.env.CHORUS_TEST_DATABASE!).serverUrl;
  const dbName = `chorus_test_migrations_${Date.now()}_${process.pid}`;
  const dbUrl = onEmbeddedDatabase() ? '' : withDatabase(serverUrl, dbName);
  const sources: DataSource[] = [];
  let sql: Client;

  const open = async () => {
    const source = newDataSource({ url: dbUrl, embedded: false, close: async () => {} });
    sources.push(source);
    return source.initialize();
  };
  /** The search index: whether it is valid, and what it indexes. */
  const searchIndex = async (name: string) =>
    (
      await sql.query(
        `SELECT i.indisvalid AS valid, pg_get_indexdef(i.indexrelid) AS definition
           FROM pg_index i WHERE i.indexrelid = to_regclass($1)`,
        [name],
      )
    ).rows[0] as { valid: boolean; definition: string } | undefined;

  beforeAll(async () => {
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    sql = new Client({ connectionString: dbUrl });
    await sql.connect();
  });

  afterAll(async () => {
    await sql?.end();
    await Promise.all(sources.filter((s) => s.isInitialized).map((s) => s.destroy()));
    const admin = new Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });

  it('applies every migration once when two processes start together, the search index built CONCURRENTLY while the other waits', async () => {
    // The second process waits for the first's lock while the first builds the search index
    // CONCURRENTLY, which waits for every older snapshot: the wait must not hold one.
    const [a, b] = await Promise.all([open(), open()]);
    const applied = await Promise.all([runMigrations(a, false), runMigrations(b, false)]);
    expect(applied.map((names) => names.length).sort((x, y) => x - y)).toEqual([0, MIGRATIONS.length]);
    const { rows } = await sql.query(`SELECT name FROM migrations ORDER BY id`);
    expect(rows.map((r) => r.name)).toEqual(MIGRATIONS.map((m) => new m().name));

    const index = await searchIndex('posts_search_idx');
    expect(index?.valid).toBe(true);
    expect(index?.definition).toContain('chorus_search_keys(workspace_id');
    expect(await searchIndex('posts_search_trgm_idx')).toBeUndefined();
    expect(await searchIndex('posts_search_short_idx')).toBeUndefined();
  });

  it('rebuilds the search index when an interrupted build left it invalid', async () => {
    // What an interrupted CREATE INDEX CONCURRENTLY leaves: an index of that name, not valid
    // (here a unique build that fails on a duplicate), and the migration not recorded.
    await sql.query(`DROP INDEX posts_search_idx`);
    await sql.query(`CREATE TABLE leftover (x int); INSERT INTO leftover VALUES (1), (1)`);
    await expect(sql.query(`CREATE UNIQUE INDEX CONCURRENTLY posts_search_idx ON leftover (x)`)).rejects.toThrow(/could not create unique index/);
    expect((await searchIndex('posts_search_idx'))?.valid).toBe(false);
    await sql.query(`DELETE FROM migrations WHERE name = 'WorkspaceSearchKeys1763790000002'`);

    expect(await runMigrations(await open(), false)).toEqual(['WorkspaceSearchKeys1763790000002']);
    const index = await searchIndex('posts_search_idx');
    expect(index?.valid).toBe(true);
    expect(index?.definition).toContain('ON public.posts USING gin (chorus_search_keys(workspace_id');
  });
});
