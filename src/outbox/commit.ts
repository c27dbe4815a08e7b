import type { Database, Tx } from '../database/sql';

/** PostgreSQL's answer to a statement sent after one that failed in the same transaction. */
const IN_FAILED_TRANSACTION = '25P02';

/** What a transaction reads last: sent with its COMMIT, answered once it committed. */
export interface ReadAtCommit<T> {
  last: Promise<T>;
}

/**
 * A transaction whose last read travels with its COMMIT, in one round trip (awaited inside
 * `work`, it would take one of its own while the transaction's locks are held): `work` sends
 * its statements and answers the last one's promise, not awaited, or null when there is
 * nothing to read. A statement that failed throws its own error.
 */
export async function readAtCommit<T>(db: Database, work: (tx: Tx) => Promise<ReadAtCommit<T> | null>): Promise<T | null> {
  let last: Promise<T> | undefined;
  try {
    await db.transaction(async (tx) => {
      const read = await work(tx);
      if (read) {
        last = read.last;
        last.catch(() => {}); // awaited below
      }
    });
  } catch (error) {
    // The last read's own error when it is the statement that failed (the COMMIT then only says
    // that the transaction rolled back); the transaction's when a statement before it failed.
    const own = last && (await last.then(() => undefined, (e: unknown) => e));
    throw own && (own as { code?: string }).code !== IN_FAILED_TRANSACTION ? own : error;
  }
  return last ? await last : null;
}
