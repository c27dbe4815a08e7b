import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { Pool, QueryResult } from 'pg';
import { DatabaseError, escapeLiteral } from 'pg';

const poolOf = (db: DataSource) => (db.driver as unknown as { master: Pool }).master;

/**
 * Runs one statement outside any transaction on a connection of the pool, and gives its rows;
 * a statement PostgreSQL refused (or cancelled) is TypeORM's QueryFailedError, as from
 * `DataSource.query`. For the hot reads (a page of posts): TypeORM's `query` builds a query
 * runner around every statement, which cost a list request about a fifth of its CPU under
 * load, much of it in garbage collection (twice as many full collections).
 */
export async function readRows<T>(db: DataSource, sql: string, params: unknown[]): Promise<T[]> {
  try {
    return (await poolOf(db).query(sql, params)).rows as T[];
  } catch (error) {
    throw error instanceof DatabaseError ? new QueryFailedError(sql, params, error) : error;
  }
}

/**
 * Runs an UPDATE … RETURNING and gives its rows. (TypeORM's `query` answers an UPDATE with
 * `[rows, rowCount]` on PostgreSQL, unlike SELECT and INSERT.)
 */
export async function updateReturning<T>(manager: Pick<EntityManager, 'query'>, sql: string, params: unknown[]): Promise<T[]> {
  const [rows] = (await manager.query(sql, params)) as [T[], number];
  return rows;
}

/**
 * Runs statements separated by `;` in one round trip (PostgreSQL's simple query protocol) and
 * answers the last one's rows. They run as one transaction: all commit at its end, or none does;
 * and each statement sees what other sessions committed before it began (a snapshot per
 * statement), e.g. while a lock taken by the statement before it was held. No parameters: every
 * value is written in with `sqlInt` or `sqlText`.
 */
export async function runStatements<T>(db: DataSource, sql: string): Promise<T[]> {
  const results = (await poolOf(db).query(sql)) as QueryResult | QueryResult[];
  return (Array.isArray(results) ? results[results.length - 1] : results).rows as T[];
}

/** An integer written into SQL; anything else is a bug, refused before it reaches the database. */
export function sqlInt(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`Not an integer for SQL: ${value}`);
  return String(value);
}

/** A string written into SQL as a quoted literal. */
export const sqlText = (value: string): string => escapeLiteral(value);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid[] written into SQL; anything but uuids is a bug, refused before it reaches the database. */
export function sqlUuids(values: string[]): string {
  for (const value of values) if (!UUID.test(value)) throw new Error(`Not a uuid for SQL: ${value}`);
  return `'{${values.join(',')}}'::uuid[]`;
}
