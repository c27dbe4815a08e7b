import { QueryRunner } from 'typeorm';

/**
 * `CREATE [UNIQUE] INDEX CONCURRENTLY` of `name` (`definition`: what follows the name, from `ON`), outside
 * a transaction, so that the table keeps being written while it is read; an invalid leftover of
 * an interrupted build is dropped and built again, so the step can run again.
 */
export async function createIndexConcurrently(q: QueryRunner, name: string, definition: string, unique = false): Promise<void> {
  const [invalid] = await q.query(`SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid`, [name]);
  if (invalid) await q.query(`DROP INDEX CONCURRENTLY ${name}`);
  await q.query(`CREATE ${unique ? 'UNIQUE ' : ''}INDEX CONCURRENTLY IF NOT EXISTS ${name} ${definition}`);
}
