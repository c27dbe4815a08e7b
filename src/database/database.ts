import { setTimeout as sleep } from 'node:timers/promises';
import { Client, DatabaseError } from 'pg';
import type { DataSource, QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { runningInstanceUrl, startEmbeddedPostgres } from './embedded-postgres';
import { dataSourceOptions, migrationName, MIGRATIONS } from './data-source-options';
import type { Queryable, Sql } from './sql';

/** TypeORM, loaded only to run migrations: a process with none pending never carries it (about 6 MB of heap). */
const typeorm = (): typeof import('typeorm') => require('typeorm') as typeof import('typeorm');

export const DATABASE_TARGET = Symbol('DATABASE_TARGET');

/** Where the data lives: the configured PostgreSQL, or PGlite in DATA_DIR. */
export interface DatabaseTarget {
  url: string;
  embedded: boolean;
  /** Stops the embedded server, if this process started one. */
  close(): Promise<void>;
}

/**
 * With `joinRunning` (the CLI), an embedded database that a running service holds is reached
 * through that service instead of being refused as in use.
 */
export async function openDatabaseTarget(config: AppConfig, options: { joinRunning?: boolean } = {}): Promise<DatabaseTarget> {
  if (config.databaseUrl) {
    return { url: config.databaseUrl, embedded: false, close: async () => {} };
  }
  const running = options.joinRunning ? runningInstanceUrl(config.dataDir) : null;
  if (running) return { url: running, embedded: true, close: async () => {} };
  const server = await startEmbeddedPostgres(config.dataDir);
  return { url: server.url, embedded: true, close: () => server.stop() };
}

/** The migrations not yet applied, by name (all of them on an empty database). */
export async function pendingMigrations(db: Queryable): Promise<string[]> {
  let applied: Set<string>;
  try {
    applied = new Set((await db.rows<{ name: string }>(`SELECT name FROM migrations`)).map((row) => row.name));
  } catch (error) {
    if (error instanceof DatabaseError && error.code === '42P01') applied = new Set(); // no migrations table yet
    else throw error;
  }
  return MIGRATIONS.map(migrationName).filter((name) => !applied.has(name));
}

/**
 * Brings the database up to date before the application opens its pool: what is pending is read
 * on a connection of its own, and only then is TypeORM's runner loaded, on a data source closed
 * once done (the embedded database takes one connection at a time). Answers what was applied.
 */
export async function migrateDatabase(target: DatabaseTarget): Promise<string[]> {
  const client = new Client({ connectionString: target.url });
  await client.connect();
  let pending: string[];
  try {
    pending = await pendingMigrations({
      rows: async <T>(text: Sql) => (await client.query(text as string)).rows as T[],
      count: async (text: Sql) => (await client.query(text as string)).rowCount ?? 0,
    });
  } finally {
    await client.end();
  }
  if (pending.length === 0) return [];
  const dataSource = await newDataSource(target).initialize();
  try {
    return await runMigrations(dataSource, target.embedded);
  } finally {
    await dataSource.destroy();
  }
}

/** Applies pending migrations; on a shared server, one process at a time. */
export async function runMigrations(dataSource: DataSource, embedded: boolean): Promise<string[]> {
  if (embedded) return migrate(dataSource);
  // Session-level advisory lock on a connection of its own; the migrations use another.
  // Neither is bound by DATABASE_STATEMENT_TIMEOUT_MS: waiting for another process's migrations,
  // or building an index on a large table, may rightly take long.
  const lock = dataSource.createQueryRunner();
  try {
    await lock.query(`SET statement_timeout = 0`);
    // Polled, not waited for: a session blocked in pg_advisory_lock holds a snapshot, and
    // CREATE INDEX CONCURRENTLY (WorkspaceSearchKeys) waits for every older snapshot, so a
    // process waiting here would hold back, for good, the migrations it waits for.
    while (!(await lock.query(`SELECT pg_try_advisory_lock(hashtext('chorus:migrations')) AS locked`))[0].locked) {
      await sleep(500);
    }
    return await migrate(dataSource, async (runner) => void (await runner.query(`SET statement_timeout = 0`)));
  } finally {
    await lock.query(`SELECT pg_advisory_unlock(hashtext('chorus:migrations'))`).catch(() => {});
    await lock.query(`RESET statement_timeout`).catch(() => {});
    await lock.release();
  }
}

async function migrate(dataSource: DataSource, prepare?: (runner: QueryRunner) => Promise<void>): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  try {
    await prepare?.(runner);
    const executor = new (typeorm().MigrationExecutor)(dataSource, runner);
    // A transaction per migration, as data-source-options.ts says.
    executor.transaction = 'each';
    return (await executor.executePendingMigrations()).map((m) => m.name);
  } finally {
    if (prepare) await runner.query(`RESET statement_timeout`).catch(() => {});
    await runner.release();
  }
}

/** TypeORM's data source for the migrations (ormconfig.ts, tests), loading TypeORM. */
export function newDataSource(target: DatabaseTarget): DataSource {
  return new (typeorm().DataSource)(dataSourceOptions(target.url, target.embedded));
}
