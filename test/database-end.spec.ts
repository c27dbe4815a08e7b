import { Pool } from 'pg';
import { Database } from '../src/database/sql';

describe('Database.end', () => {
  it('ends the pool once: a second end waits for the first instead of throwing', async () => {
    const db = new Database(new Pool({ connectionString: process.env.CHORUS_TEST_DATABASE_URL, max: 1 }));
    expect(await db.rows<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    const first = db.end();
    await expect(db.end()).resolves.toBeUndefined();
    await expect(first).resolves.toBeUndefined();
    expect(db.pool.ended).toBe(true);
  });
});
