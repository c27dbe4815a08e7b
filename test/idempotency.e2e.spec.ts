import { Client as PgClient } from 'pg';
import { IdempotencyStore } from '../src/idempotency/idempotency.store';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { onEmbeddedDatabase, startTestApp, testDatabaseUrl, TestApp } from './support/test-app';
import { until } from './support/wait';

/** `Idempotency-Key` on POST: Stripe's semantics, kept in PostgreSQL. */
describe('Idempotency-Key', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    // Silent: one test makes a 500 on purpose, and its logged stack is expected.
    t = await startTestApp({ LOG_LEVEL: 'silent' });
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  let counter = 0;
  const newKey = () => `key-${process.pid}-${Date.now()}-${counter++}`;
  const withKey = (key: string) => ({ headers: { 'idempotency-key': key } });
  const postsTitled = async (title: string) =>
    (await t.db.query(`SELECT id FROM posts WHERE workspace_id = $1 AND title = $2`, [ws.id, title])).length;

  it('replays the first answer (status, body, Idempotent-Replayed) for the same key and body, and creates once', async () => {
    const key = newKey();
    const body = { board: 'ideas', title: 'Retried create', author: { name: 'Ria', email: 'ria@mail.example' } };
    const first = await api.post('/api/v1/posts', body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    // The same fields in another order are the same request.
    const reordered = { author: { email: 'ria@mail.example', name: 'Ria' }, title: 'Retried create', board: 'ideas' };
    const second = await api.post('/api/v1/posts', reordered, withKey(key));
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('request-id')).not.toBe(first.headers.get('request-id'));
    expect(second.headers.get('x-ratelimit-limit')).toBe('300');
    expect(await postsTitled('Retried create')).toBe(1);

    // Another workspace's key of the same name is its own.
    const other = await createWorkspace(t.app);
    const theirs = await new Client(t.baseUrl, other.key).post('/api/v1/posts', body, withKey(key));
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.data.id).not.toBe(first.body.data.id);
  });

  it('holds across API instances: a retry that reaches another instance is replayed there', async () => {
    if (onEmbeddedDatabase()) return; // the embedded database serves one process
    const other = await startTestApp({ LOG_LEVEL: 'silent' });
    try {
      const key = newKey();
      const body = { board: 'ideas', title: 'Two instances' };
      const first = await api.post('/api/v1/posts', body, withKey(key));
      expect(first.status).toBe(201);
      const elsewhere = await new Client(other.baseUrl, ws.key).post('/api/v1/posts', body, withKey(key));
      expect(elsewhere.status).toBe(201);
      expect(elsewhere.headers.get('idempotent-replayed')).toBe('true');
      expect(elsewhere.body).toEqual(first.body);
      expect(await postsTitled('Two instances')).toBe(1);
    } finally {
      await other.close();
    }
  });

  it('makes a concurrent create with the same key once: one runs, the others replay it or are told it is in progress', async () => {
    const key = newKey();
    const body = { board: 'ideas', title: 'Concurrent create' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.post('/api/v1/posts', body, withKey(key))));
    const ran = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(ran).toHaveLength(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.body).toEqual(ran[0].body);
      else expectError(answer, 409, 'conflict', 'A request with this Idempotency-Key is still in progress; retry it later.');
    }
    expect(await postsTitled('Concurrent create')).toBe(1);
    const later = await api.post('/api/v1/posts', body, withKey(key));
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body).toEqual(ran[0].body);
  });

  it('refuses the same key with a different body, or on another route', async () => {
    const key = newKey();
    expect((await api.post('/api/v1/posts', { board: 'ideas', title: 'First body' }, withKey(key))).status).toBe(201);
    expectError(
      await api.post('/api/v1/posts', { board: 'ideas', title: 'Second body' }, withKey(key)),
      400,
      'invalid_request',
      'idempotency-key: was used with a different request',
    );
    const post = (await api.get('/api/v1/posts?limit=1')).body.data[0];
    expectError(
      await api.post(`/api/v1/posts/${post.id}/comments`, { board: 'ideas', title: 'First body' }, withKey(key)),
      400,
      'invalid_request',
      'idempotency-key: was used with a different request',
    );
    expect(await postsTitled('Second body')).toBe(0);
  });

  it('does not store a 5xx: a retry with the same key runs again', async () => {
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Comments fail for a while' })).body.data;
    const key = newKey();
    // A real failure of the database, for this workspace's comments only.
    const constraint = `test_fail_${ws.id.replaceAll('-', '')}`;
    await t.db.query(`ALTER TABLE comments ADD CONSTRAINT ${constraint} CHECK (workspace_id <> '${ws.id}') NOT VALID`);
    try {
      const failed = await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Are you there?' }, withKey(key));
      expectError(failed, 500, 'server_error');
    } finally {
      await t.db.query(`ALTER TABLE comments DROP CONSTRAINT ${constraint}`);
    }
    const retried = await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Are you there?' }, withKey(key));
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    const replayed = await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Are you there?' }, withKey(key));
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toEqual(retried.body);
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.comments).toBe(1);
  });

  it('replays a 4xx answer of a request that ran, but not a request refused as invalid, which may be corrected', async () => {
    const missing = newKey();
    expectError(await api.post('/api/v1/posts', { board: 'nope', title: 'Unknown board' }, withKey(missing)), 404, 'not_found');
    const replay = await api.post('/api/v1/posts', { board: 'nope', title: 'Unknown board' }, withKey(missing));
    expectError(replay, 404, 'not_found');
    expect(replay.headers.get('idempotent-replayed')).toBe('true');

    const invalid = newKey();
    expectError(await api.post('/api/v1/posts', { board: 'ideas', title: 'x' }, withKey(invalid)), 400, 'invalid_request');
    const corrected = await api.post('/api/v1/posts', { board: 'ideas', title: 'Corrected title' }, withKey(invalid));
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();

    const badJson = newKey();
    const broken = await api.request('POST', '/api/v1/posts', { raw: '{', headers: { 'content-type': 'application/json', 'idempotency-key': badJson } });
    expectError(broken, 400, 'invalid_json');
    expect((await api.post('/api/v1/posts', { board: 'ideas', title: 'After bad JSON' }, withKey(badJson))).status).toBe(201);
  });

  it('checks keys after authentication, takes up to 255 characters, and ignores keys on other methods', async () => {
    expectError(await api.post('/api/v1/posts', { board: 'ideas', title: 'Long key' }, withKey('k'.repeat(256))), 400, 'invalid_request', 'idempotency-key: must be 1 to 255 characters');
    expect((await api.post('/api/v1/posts', { board: 'ideas', title: 'Longest key' }, withKey('k'.repeat(255)))).status).toBe(201);
    expectError(await api.post('/api/v1/posts', { board: 'ideas', title: 'No auth' }, { key: null, ...withKey(newKey()) }), 401, 'unauthorized');
    const key = newKey();
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Patched with a key' }, withKey(key))).body.data;
    const patched = await api.patch(`/api/v1/posts/${post.id}`, { status: 'planned' }, withKey(key));
    expect(patched.status).toBe(200);
    expect(patched.headers.get('idempotent-replayed')).toBeNull();
  });

  it('forgets stored answers once they expire', async () => {
    const key = newKey();
    const body = { board: 'ideas', title: 'Expiring key' };
    expect((await api.post('/api/v1/posts', body, withKey(key))).status).toBe(201);
    const [row] = await t.db.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
      [ws.id, key],
    );
    expect(row.ttl).toBe(24 * 60 * 60);
    await t.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND key = $2`, [ws.id, key]);
    const again = await api.post('/api/v1/posts', body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(await postsTitled('Expiring key')).toBe(2);

    // Expired rows are also purged, so that the table stays small.
    await t.db.query(`UPDATE idempotency_keys SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND key = $2`, [ws.id, key]);
    expect(await t.app.get(IdempotencyStore).purgeExpired()).toBeGreaterThanOrEqual(1);
    expect(await t.db.query(`SELECT 1 FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`, [ws.id, key])).toEqual([]);
  });

  it('answers 409 while the first request with the key is still running, then replays it', async () => {
    if (onEmbeddedDatabase()) return; // needs a second connection to hold a row lock
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Held by a lock' })).body.data;
    const holder = new PgClient({ connectionString: testDatabaseUrl() });
    await holder.connect();
    const key = newKey();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM posts WHERE workspace_id = $1 AND id = $2 FOR UPDATE`, [ws.id, post.id]);
      const running = api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Lou', email: 'lou@mail.example' } }, withKey(key));
      await until('the first request to take the key', async () => {
        const rows = await t.db.query(`SELECT state FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`, [ws.id, key]);
        return rows[0]?.state === 'in_flight';
      });
      const meanwhile = await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Lou', email: 'lou@mail.example' } }, withKey(key));
      expectError(meanwhile, 409, 'conflict');
      await holder.query('COMMIT');
      const first = await running;
      expect(first.status).toBe(201);
      const replay = await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Lou', email: 'lou@mail.example' } }, withKey(key));
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body).toEqual(first.body);
    } finally {
      await holder.end();
    }
  });
  it('is taken by every POST that needs a key, and by no other method: the document lists them, each checks the key first', async () => {
    const document = (await api.get('/api/v1/openapi.json', { key: null })).body;
    const keyed: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, { security?: unknown[] }>>(document.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (operation.security?.length === 0 || !operation.security && !document.security) continue; // public
        // A path parameter of any value: the key is checked before the route's own checks.
        const concrete = path.replace(/\{[^}]+\}/g, '1');
        const answer = await api.request(method.toUpperCase(), concrete, { body: method === 'get' ? undefined : {}, headers: { 'idempotency-key': 'k'.repeat(256) } });
        if (method === 'post') {
          expectError(answer, 400, 'invalid_request', 'idempotency-key: must be 1 to 255 characters');
          keyed.push(path);
        } else {
          expect(answer.body?.error?.message ?? '').not.toContain('idempotency-key');
        }
      }
    }
    expect(keyed).toEqual(expect.arrayContaining(['/api/v1/posts', '/api/v1/posts/{id}/comments', '/api/v1/webhook_endpoints']));
    expect(keyed.length).toBeGreaterThanOrEqual(9);
  });
});
