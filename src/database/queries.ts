import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, QueryFailedError } from 'typeorm';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { DatabaseError } from 'pg';

const poolOf = (db: DataSource) => (db.driver as unknown as { master: Pool }).master;

const asQueryFailed = (error: unknown, sql: string, params: unknown[]) =>
  error instanceof DatabaseError ? new QueryFailedError(sql, params, error) : error;

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
    throw asQueryFailed(error, sql, params);
  }
}

/**
 * Runs `work` on a connection of the pool, given back after it (and dropped if `work` failed,
 * as `Pool.query` does: the connection may be the reason).
 */
export async function onConnection<T>(db: DataSource, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await poolOf(db).connect();
  try {
    const result = await work(client);
    client.release();
    return result;
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
}

/**
 * Prepared statements, per connection: their names by text. A name is unique to this process
 * and connection, because the embedded database is one session, shared by every connection
 * and process that talks to it, and refuses a name given twice.
 */
const prepared = new WeakMap<PoolClient, Map<string, { name: string; ready: boolean }>>();
const processToken = randomBytes(4).toString('hex');
let statements = 0;

/**
 * Statements that `preparedRows` prepares on one connection at most: past them, a new text is run
 * unnamed (a list's texts vary with its filters and page size). The few fixed statements of
 * `runStatementsPrepared` and `inPreparedTransaction` are always prepared.
 */
const MAX_PREPARED = 100;

function preparedOn(client: PoolClient, label: string, sql: string, capped: true): { name: string; ready: boolean } | null;
function preparedOn(client: PoolClient, label: string, sql: string): { name: string; ready: boolean };
function preparedOn(client: PoolClient, label: string, sql: string, capped = false): { name: string; ready: boolean } | null {
  let names = prepared.get(client);
  if (!names) prepared.set(client, (names = new Map()));
  let statement = names.get(sql);
  if (!statement) {
    if (capped && names.size >= MAX_PREPARED) return null;
    names.set(sql, (statement = { name: `chorus_${label}_${processToken}_${++statements}`, ready: false }));
  }
  return statement;
}

/**
 * Runs a hot statement (the outbox's, a first page of posts) as a prepared statement: parsed
 * once per connection, and planned once when PostgreSQL finds its generic plan as good as one
 * made for the values (planning the larger ones costs more than running them).
 * `label` only makes its name readable (in pg_prepared_statements, say).
 */
export function preparedRows<T>(db: DataSource, label: string, sql: string, params: unknown[]): Promise<T[]> {
  return onConnection(db, async (client) => {
    try {
      const name = preparedOn(client, label, sql, true)?.name;
      return (await client.query(name ? { name, text: sql, values: params } : { text: sql, values: params })).rows as T[];
    } catch (error) {
      throw asQueryFailed(error, sql, params);
    }
  });
}

/**
 * `runStatements` ending in a prepared statement: `before` (statements with no parameters, a
 * lock say), then `sql` run with `args` (SQL literals, see `sqlInt`), in one round trip and one
 * transaction; answers the prepared statement's rows. `sql` is prepared on a connection the
 * first time it runs there, with parameters $1… of `types`.
 */
export function runStatementsPrepared<T>(
  db: DataSource,
  label: string,
  statement: { sql: string; types: string[] },
  before: string,
  args: string[],
): Promise<T[]> {
  return onConnection(db, async (client) => {
    const ready = preparedOn(client, label, statement.sql);
    if (!ready.ready) {
      await client.query(`PREPARE ${ready.name} (${statement.types.join(', ')}) AS ${statement.sql}`);
      ready.ready = true;
    }
    const sql = `${before}; EXECUTE ${ready.name} (${args.join(', ')})`;
    try {
      const results = (await client.query(sql)) as unknown as QueryResult[];
      return results[results.length - 1].rows as T[];
    } catch (error) {
      throw asQueryFailed(error, sql, []);
    }
  });
}

/** A statement prepared on a connection the first time it runs there, with parameters $1… of `types`. */
export interface PreparedSql {
  /** Only makes its name readable (in pg_prepared_statements, say). */
  label: string;
  sql: string;
  types: string[];
}

/** What `inPreparedTransaction` gives its work: prepared statements run with SQL literals (`sqlText`…). */
export interface PreparedTransaction {
  /** Runs a statement and answers its rows; the first one begins the transaction in its round trip. */
  run<T>(statement: PreparedSql, args: string[]): Promise<T[]>;
  /** Runs a statement and commits, in one round trip, and answers its rows. */
  runAndCommit<T>(statement: PreparedSql, args: string[]): Promise<T[]>;
  /**
   * Runs several statements in one round trip, in order, and answers each one's rows: SQL texts
   * with no parameters (values written in with `sqlInt`, `sqlText`…) or prepared statements with
   * their arguments; with `commit`, the transaction commits in the same round trip.
   */
  batch(statements: (string | { statement: PreparedSql; args: string[] })[], commit?: boolean): Promise<unknown[][]>;
}

const prepare = async (client: PoolClient, statement: PreparedSql): Promise<string> => {
  const ready = preparedOn(client, statement.label, statement.sql);
  if (!ready.ready) {
    // Prepared statements outlive the transaction they were made in, rolled back or not.
    await client.query(`PREPARE ${ready.name} (${statement.types.join(', ')}) AS ${statement.sql}`);
    ready.ready = true;
  }
  return ready.name;
};

/**
 * A transaction of prepared statements with no round trip of its own: `BEGIN` travels with the
 * first statement and `COMMIT` with the one run by `runAndCommit` (PostgreSQL's simple query
 * protocol, several statements in one message). Work that ends without committing, or throws,
 * is rolled back; the connection goes back to the pool unless even the rollback failed. A
 * create is then two round trips where TypeORM's `transaction` took four, each statement
 * planned once per connection rather than at every call.
 */
export async function inPreparedTransaction<T>(db: DataSource, work: (tx: PreparedTransaction) => Promise<T>): Promise<T> {
  const client = await poolOf(db).connect();
  let state = 'idle' as 'idle' | 'open' | 'committed';
  const batch = async (statements: (string | { statement: PreparedSql; args: string[] })[], commit = false): Promise<unknown[][]> => {
    if (state === 'committed') throw new Error('The transaction is committed already');
    const texts: string[] = [];
    for (const s of statements) texts.push(typeof s === 'string' ? s : `EXECUTE ${await prepare(client, s.statement)} (${s.args.join(', ')})`);
    const begin = state === 'idle';
    const sql = [...(begin ? ['BEGIN'] : []), ...texts, ...(commit ? ['COMMIT'] : [])].join('; ');
    state = 'open';
    try {
      const results = (await client.query(sql)) as unknown as QueryResult[] | QueryResult;
      if (commit) state = 'committed';
      const all = Array.isArray(results) ? results : [results];
      return all.slice(begin ? 1 : 0, (begin ? 1 : 0) + texts.length).map((r) => r.rows);
    } catch (error) {
      throw asQueryFailed(error, sql, []);
    }
  };
  /** One prepared statement: a batch of one. */
  const run = async <R>(statement: PreparedSql, args: string[], commit: boolean): Promise<R[]> =>
    (await batch([{ statement, args }], commit))[0] as R[];
  try {
    const result = await work({
      run: (statement, args) => run(statement, args, false),
      runAndCommit: (statement, args) => run(statement, args, true),
      batch,
    });
    if (state === 'open') await client.query('ROLLBACK');
    client.release();
    return result;
  } catch (error) {
    let broken: Error | undefined;
    if (state === 'open') await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError));
    client.release(broken);
    throw error;
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
  try {
    const results = (await poolOf(db).query(sql)) as QueryResult | QueryResult[];
    return (Array.isArray(results) ? results[results.length - 1] : results).rows as T[];
  } catch (error) {
    throw asQueryFailed(error, sql, []);
  }
}

/** An integer written into SQL; anything else is a bug, refused before it reaches the database. */
export function sqlInt(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`Not an integer for SQL: ${value}`);
  return String(value);
}

const QUOTE_OR_BACKSLASH = /['\\]/g;

/**
 * A string written into SQL as a quoted literal, as pg's `escapeLiteral` writes it: quotes and
 * backslashes doubled, and an `E` before a literal with a backslash. (`escapeLiteral` builds
 * its answer a character at a time: for an event's JSON, a create's largest value, that was a
 * fifth of everything a create allocated.)
 */
export function sqlText(value: string): string {
  if (typeof value !== 'string') throw new Error(`Not a string for SQL: ${typeof value}`);
  const escaped = `'${value.replace(QUOTE_OR_BACKSLASH, (c) => c + c)}'`;
  return value.includes('\\') ? ` E${escaped}` : escaped;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A uuid[] written into SQL; anything but uuids is a bug, refused before it reaches the database. */
export function sqlUuids(values: string[]): string {
  for (const value of values) if (!UUID.test(value)) throw new Error(`Not a uuid for SQL: ${value}`);
  return `'{${values.join(',')}}'::uuid[]`;
}
