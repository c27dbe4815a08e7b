import { Client as PgClient, DatabaseError } from 'pg';
import { Database } from '../src/database/sql';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { onEmbeddedDatabase, startTestApp, TestApp, testDatabaseUrl } from './support/test-app';

// PGlite does not enforce statement_timeout (docs/operating.md, "Configuration"), so this runs on PostgreSQL only.
const onPostgres = onEmbeddedDatabase() ? describe.skip : describe;

onPostgres('DATABASE_STATEMENT_TIMEOUT_MS', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp({ DATABASE_STATEMENT_TIMEOUT_MS: '300' });
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  it('answers 503 query_timeout past the timeout, gives the connection back, and the next request succeeds', async () => {
    const post = await api.post('/api/v1/posts', { board: 'ideas', title: 'A post someone holds' });
    expect(post.status).toBe(201);
    const id = post.body.data.id;

    // Another session holds the post's row lock, which a status change waits for.
    const holder = new PgClient({ connectionString: testDatabaseUrl() });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM posts WHERE workspace_id = $1 AND id = $2 FOR UPDATE', [ws.id, id]);
      // More requests than the pool has connections (10): each one's connection came back.
      for (let i = 0; i < 12; i++) {
        const started = Date.now();
        const answer = await api.patch(`/api/v1/posts/${id}`, { status: 'planned' });
        expectError(answer, 503, 'query_timeout', /^The request took longer than the database allows \(300 ms\) and was cancelled\./);
        expect(Date.now() - started).toBeLessThan(5_000);
      }
      // Reads that do not wait on the lock are served meanwhile.
      expect((await api.get(`/api/v1/posts/${id}`)).body.data.status).toBe('open');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }

    const changed = await api.patch(`/api/v1/posts/${id}`, { status: 'planned' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.status).toBe('planned');
    expect((await api.get('/api/v1/posts')).status).toBe(200);
  });

  it('cancels a read on the pool (a page of posts) with the database’s error, and the pool serves the next', async () => {
    const db = t.app.get(Database);
    const failure = await db.rows('SELECT pg_sleep(2)').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DatabaseError);
    expect((failure as DatabaseError).code).toBe('57014');
    const refused = await db.rows('SELECT nope FROM posts').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DatabaseError);
    expect((refused as DatabaseError).code).toBe('42703');
    expect(await db.rows('SELECT $1::int AS n', [7])).toEqual([{ n: 7 }]);
  });

  it('cancels a statement in a transaction, rolls it back, and gives the connection back', async () => {
    const db = t.app.get(Database);
    const failure = await db
      .transaction(async (tx) => {
        tx.send('CREATE TEMP TABLE chorus_timeout_probe (n int)');
        await tx.rows('SELECT pg_sleep(2)');
      })
      .catch((error: unknown) => error);
    expect((failure as DatabaseError).code).toBe('57014');
    expect(await db.rows(`SELECT to_regclass('pg_temp.chorus_timeout_probe') AS t`)).toEqual([{ t: null }]);
    expect(await db.rows('SELECT $1::int AS n', [8])).toEqual([{ n: 8 }]);
  });
});
