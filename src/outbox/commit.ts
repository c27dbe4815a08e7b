import type { Database, Tx } from '../database/sql';

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
    if (last) await last; // its own error, when it is the statement that failed
    throw error;
  }
  return last ? await last : null;
}
