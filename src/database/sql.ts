import { randomBytes } from 'node:crypto';
import type { CustomTypesConfig, Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import { DatabaseError } from 'pg';

/**
 * A statement a store runs often: sent by name, so that each connection parses it once and
 * PostgreSQL may plan it once (its generic plan, when that is as good as one made for the
 * values). Values always travel apart from the text, as parameters $1…
 */
export interface Statement {
  /** Readable in pg_prepared_statements; unique per text (two texts under one name are a bug). */
  readonly name: string;
  readonly text: string;
  /** How its columns are read, when not as pg reads them (see ISO_TIMESTAMPS). */
  readonly types?: CustomTypesConfig;
}

export const statement = (name: string, text: string, types?: CustomTypesConfig): Statement => (types ? { name, text, types } : { name, text });

const namedTexts = new Map<string, Statement>();
/** Texts `named` names at most: past them, a new text is sent unnamed. */
const MAX_NAMED = 200;

/**
 * A text built from a few parts (a list's filters) as a Statement, one per distinct text, so
 * that each variant is parsed once per connection; past MAX_NAMED texts, the text itself
 * (parsed and planned at each call).
 */
export function named(label: string, text: string, types?: CustomTypesConfig): Sql {
  let found = namedTexts.get(text);
  if (!found) {
    if (namedTexts.size >= MAX_NAMED) return types ? { text, types } : text;
    namedTexts.set(text, (found = statement(`${label}_${namedTexts.size + 1}`, text, types)));
  }
  return found;
}

/**
 * SQL as a Statement (sent by name), or as text (parsed and planned for its values at each
 * call), alone or with how its columns are read.
 */
export type Sql = Statement | string | { readonly name?: undefined; readonly text: string; readonly types: CustomTypesConfig };

/** What stores read and write through: the pool outside a transaction, or one transaction. */
export interface Queryable {
  /** Runs a statement and answers its rows. */
  rows<T>(sql: Sql, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a statement and answers how many rows it wrote (or read). */
  count(sql: Sql, params?: readonly unknown[]): Promise<number>;
}

/**
 * One transaction on one connection, pipelined: `BEGIN` travels with the first statement, and
 * every statement is written to the connection without waiting for the answers before it, so
 * statements that do not await each other share one round trip.
 */
export interface Tx extends Queryable {
  /**
   * Sends a statement whose answer nobody needs (an event's row, a NOTIFY): it travels with the
   * next statement awaited or with the COMMIT, whose success it then takes part in.
   */
  send(sql: Sql, params?: readonly unknown[]): void;
}

const processToken = randomBytes(3).toString('hex');
let clients = 0;

/**
 * Statement names are made unique to a connection: the embedded database is one session,
 * shared by every connection and process that talks to it, and refuses a name given twice.
 * Each connection keeps the names it made, so that a statement's name is one string on every
 * call (pg looks prepared statements up by it).
 */
const namesOn = new WeakMap<PoolClient, { suffix: string; names: Map<Statement, string> }>();
const nameOn = (client: PoolClient, sql: Statement): string => {
  let mine = namesOn.get(client);
  if (mine === undefined) namesOn.set(client, (mine = { suffix: `_${processToken}${(++clients).toString(36)}`, names: new Map() }));
  let name = mine.names.get(sql);
  if (name === undefined) mine.names.set(sql, (name = sql.name + mine.suffix));
  return name;
};

/**
 * A connection's own failure (the server gone mid-statement: EPIPE, a reset) is an 'error' event
 * on the client as well as a rejection of its statements. The pool listens only while the client
 * is idle; a client in use with no listener would end the process. The statements' rejections
 * carry the failure, and `broken` keeps such a client out of the pool.
 */
const heard = new WeakSet<PoolClient>();
const listened = (client: PoolClient): PoolClient => {
  if (!heard.has(client)) {
    heard.add(client);
    client.on('error', () => {});
  }
  return client;
};

const queryConfig = (client: PoolClient, sql: Sql, params: readonly unknown[]): QueryConfig =>
  typeof sql === 'string'
    ? { text: sql, values: params as unknown[] }
    : { name: sql.name === undefined ? undefined : nameOn(client, sql), text: sql.text, values: params as unknown[], types: sql.types };

/**
 * Runs one statement on `client`, answered through pg's callback. pg's own promise form
 * (`client.query(config)` without a callback) kept every result reachable long enough for its
 * rows to outlive two young collections: under `bench:floor`'s list load each page's rows,
 * their strings and `Date`s were promoted to the old generation, about 0.9 MB a young collection
 * against 0.1 MB through the callback (`--trace-gc-nvp`), and the old generation then had to be
 * collected for them (docs/performance.md, issue 30). A failure's stack is taken again here, as
 * pg's promise form does, so that it leads back to the statement's caller, not to the socket.
 */
const ask = (client: PoolClient, config: QueryConfig | string): Promise<QueryResult> =>
  new Promise<QueryResult>((resolve, reject) =>
    client.query(config as QueryConfig, (error: Error, result: QueryResult) => (error ? reject(error) : resolve(result))),
  ).catch((error: Error) => {
    Error.captureStackTrace(error);
    throw error;
  });

/** A connection is given back to the pool unless it failed for a reason other than the statement. */
const broken = (error: unknown): Error | undefined => (error instanceof DatabaseError ? undefined : (error as Error));

/**
 * The one way to the database: statements with bound parameters, on a connection of the pool
 * (outside a transaction) or in a pipelined transaction. The pool is the application's one pool
 * (TypeORM's, made in pipeline mode), so the embedded database's single connection is shared.
 */
export class Database implements Queryable {
  /** The pool itself: for tests and benchmarks that watch what reaches it. */
  constructor(readonly pool: Pool) {}

  async rows<T>(sql: Sql, params: readonly unknown[] = []): Promise<T[]> {
    const client = listened(await this.pool.connect());
    try {
      const result = await ask(client, queryConfig(client, sql, params));
      client.release();
      return result.rows as T[];
    } catch (error) {
      client.release(broken(error));
      throw error;
    }
  }

  async count(sql: Sql, params: readonly unknown[] = []): Promise<number> {
    const client = listened(await this.pool.connect());
    try {
      const result = await ask(client, queryConfig(client, sql, params));
      client.release();
      return result.rowCount ?? 0;
    } catch (error) {
      client.release(broken(error));
      throw error;
    }
  }

  /**
   * Runs `work` in a transaction and commits when it returns; rolls back when it throws. Any
   * statement sent and not awaited (`Tx.send`) travels with the COMMIT, in one round trip, and a
   * failure of one of them fails the transaction. A create that reads its row back and then
   * writes its event is two round trips: BEGIN and the insert; the event, its NOTIFY and COMMIT.
   */
  async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    const client = listened(await this.pool.connect());
    const tx = new PipelinedTx(client);
    try {
      const result = await work(tx);
      await tx.commit();
      client.release();
      return result;
    } catch (error) {
      const rollback = await tx.rollback();
      client.release(rollback ?? broken(error));
      throw error;
    }
  }

  /**
   * Runs `work` on a connection of the pool taken for itself (a session-level lock, a cursor),
   * given back after it.
   */
  async onConnection<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = listened(await this.pool.connect());
    try {
      const result = await work(client);
      client.release();
      return result;
    } catch (error) {
      client.release(broken(error));
      throw error;
    }
  }

  private ended?: Promise<void>;

  /** Ends the pool's connections (the CLI and tests, when they are done); again, it waits for the first end (pg's pool throws on a second). */
  end(): Promise<void> {
    this.ended ??= this.pool.end();
    return this.ended;
  }
}

/**
 * A transaction's statements go through pg's promise form, not `ask`: with `ask` here creates
 * were 10 to 20% slower in two bench:floor runs (0.72x against 0.85x the strong floor, then
 * 0.87x against 1.12x), and level with the build before once put back (0.95x both); a create's
 * one row is not what the list's promotion was about.
 */
class PipelinedTx implements Tx {
  private begun = false;
  private done = false;
  /** Statements sent and not awaited: the first failure among them fails the commit. */
  private readonly pending: Promise<unknown>[] = [];

  constructor(private readonly client: PoolClient) {}

  private query(sql: Sql, params: readonly unknown[]) {
    if (this.done) throw new Error('The transaction has ended');
    if (!this.begun) {
      this.begun = true;
      this.track(this.client.query('BEGIN'));
    }
    return this.client.query(queryConfig(this.client, sql, params));
  }

  private track(answer: Promise<unknown>): void {
    answer.catch(() => {}); // read at the commit
    this.pending.push(answer);
  }

  async rows<T>(sql: Sql, params: readonly unknown[] = []): Promise<T[]> {
    return (await this.query(sql, params)).rows as T[];
  }

  async count(sql: Sql, params: readonly unknown[] = []): Promise<number> {
    return (await this.query(sql, params)).rowCount ?? 0;
  }

  send(sql: Sql, params: readonly unknown[] = []): void {
    this.track(this.query(sql, params));
  }

  async commit(): Promise<void> {
    if (!this.begun) return void (this.done = true);
    const commit = this.client.query('COMMIT');
    this.done = true;
    const answers = await Promise.allSettled([...this.pending, commit]);
    const failed = answers.find((answer): answer is PromiseRejectedResult => answer.status === 'rejected');
    if (failed) throw failed.reason;
    // A COMMIT in a transaction that failed is answered ROLLBACK, not an error.
    const committed = (answers[answers.length - 1] as PromiseFulfilledResult<{ command: string }>).value;
    if (committed.command !== 'COMMIT') throw new Error(`The transaction was rolled back (${committed.command})`);
  }

  /** Answers the error that makes the connection unfit to go back to the pool, if any. */
  async rollback(): Promise<Error | undefined> {
    if (!this.begun) return undefined;
    this.done = true;
    await Promise.allSettled(this.pending);
    try {
      await this.client.query('ROLLBACK');
      return undefined;
    } catch (error) {
      return error as Error;
    }
  }
}
