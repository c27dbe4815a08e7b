import { setTimeout as sleep } from 'node:timers/promises';
import { DataSource, MigrationExecutor, QueryRunner } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { runningInstanceUrl, startEmbeddedPostgres } from './embedded-postgres';
import { dataSourceOptions } from './data-source-options';

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
    const executor = new MigrationExecutor(dataSource, runner);
    // A transaction per migration, as data-source-options.ts says.
    executor.transaction = 'each';
    return (await executor.executePendingMigrations()).map((m) => m.name);
  } finally {
    if (prepare) await runner.query(`RESET statement_timeout`).catch(() => {});
    await runner.release();
  }
}

export function newDataSource(target: DatabaseTarget, statementTimeoutMs = 0): DataSource {
  return new DataSource(dataSourceOptions(target.url, target.embedded, statementTimeoutMs));
}
