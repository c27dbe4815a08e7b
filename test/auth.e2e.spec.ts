import { ApiKeysService } from '../src/auth/api-keys.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { startTestApp, TestApp, testDatabaseUrl } from './support/test-app';
import { Client as PgClient } from 'pg';
import { onCitus } from './support/citus';

describe('authentication and plans', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());


  it('answers 401 without a key, with a wrong key, a malformed header and another scheme', async () => {
    expectError(await api.get('/api/v1/boards', { key: null }), 401, 'unauthorized');
    expectError(await api.get('/api/v1/boards', { key: 'chorus_key_nottherightone000000000000000000' }), 401, 'unauthorized');
    for (const authorization of [`Basic ${ws.key}`, ws.key, 'Bearer', `Bearer ${ws.key} extra`]) {
      expectError(
        await api.get('/api/v1/boards', { key: null, headers: { authorization } }),
        401,
        'unauthorized',
      );
    }
  });

  it('takes the scheme in any case', async () => {
    const answer = await api.get('/api/v1/boards', { key: null, headers: { authorization: `bEaReR ${ws.key}` } });
    expect(answer.status).toBe(200);
  });

  it('answers 401 for a revoked key and keeps other keys working', async () => {
    const other = await t.app.get(ApiKeysService).create(ws.slug, ws.member.email);
    await t.app.get(ApiKeysService).revoke(other.id);
    expectError(await api.get('/api/v1/boards', { key: other.key }), 401, 'unauthorized');
    expect((await api.get('/api/v1/boards')).status).toBe(200);
  });

  it('applies a revocation or plan change made by another process at once, although keys are cached', async () => {
    const other = await createWorkspace(t.app);
    expect((await api.get('/api/v1/boards', { key: other.key })).status).toBe(200); // now cached
    // Another process (the CLI, or SQL by hand) changes the database; this instance is not told directly.
    // On Citus no trigger announces it (reference tables take none): SQL by hand follows the
    // change with NOTIFY chorus_callers, in its transaction, as docs/citus.md says.
    const elsewhere = new PgClient({ connectionString: testDatabaseUrl() });
    const change = (sql: string) =>
      elsewhere.query(onCitus() ? `BEGIN; ${sql}; NOTIFY chorus_callers; COMMIT` : sql);
    await elsewhere.connect();
    try {
      await change(`UPDATE workspaces SET plan = 'free' WHERE id = '${other.id}'`);
      expect(await statusWithin(500, other.key, 403)).toBe(403);
      await change(`UPDATE workspaces SET plan = 'pro' WHERE id = '${other.id}'`);
      expect(await statusWithin(500, other.key, 200)).toBe(200);
      await change(`UPDATE api_keys SET revoked_at = now() WHERE workspace_id = '${other.id}'`);
      expect(await statusWithin(500, other.key, 401)).toBe(401);
    } finally {
      await elsewhere.end();
    }
  });

  /** The status of GET /boards once it is `wanted`, or the last one after `ms` (the cache lives 30 s). */
  async function statusWithin(ms: number, key: string, wanted: number): Promise<number> {
    const until = Date.now() + ms;
    for (;;) {
      const { status } = await api.get('/api/v1/boards', { key });
      if (status === wanted || Date.now() > until) return status;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('answers 403 plan_required for a free workspace, and 200 once it is on pro', async () => {
    const free = await createWorkspace(t.app, { plan: 'free' });
    expectError(await api.get('/api/v1/boards', { key: free.key }), 403, 'plan_required');
    expectError(await api.post('/api/v1/posts', { board: 'ideas', title: 'Free plan post' }, { key: free.key }), 403, 'plan_required');
    await t.app.get(WorkspacesService).setPlan(free.slug, 'pro');
    expect((await api.get('/api/v1/boards', { key: free.key })).status).toBe(200);
  });

  it('checks the key before the body: 401 beats invalid JSON, 403 beats it too', async () => {
    const raw = '{not json';
    const headers = { 'content-type': 'application/json' };
    expectError(await api.request('POST', '/api/v1/posts', { key: null, raw, headers }), 401, 'unauthorized');
    const free = await createWorkspace(t.app, { plan: 'free' });
    expectError(await api.request('POST', '/api/v1/posts', { key: free.key, raw, headers }), 403, 'plan_required');
    expectError(await api.request('POST', '/api/v1/posts', { raw, headers }), 400, 'invalid_json');
  });

  it('answers unknown API routes with 401 before a key, and 404 not_found after', async () => {
    expectError(await api.get('/api/v1/nothing-here', { key: null }), 401, 'unauthorized');
    expectError(await api.get('/api/v1/nothing-here'), 404, 'not_found');
    expectError(await api.request('DELETE', '/api/v1/boards'), 404, 'not_found');
    expectError(await api.request('PUT', '/api/v1/posts/1'), 404, 'not_found');
  });

  it('puts a Request-Id on every answer, errors included', async () => {
    const ok = await api.get('/api/v1/boards');
    const bad = await api.get('/api/v1/boards', { key: null });
    const outside = await api.get('/nowhere', { key: null });
    const ids = [ok, bad, outside].map((a) => a.headers.get('request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(3);
    // Outside /api the root is the public site's: a path there that names nothing is its 404 page.
    expect(outside.status).toBe(404);
    expect(outside.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(outside.text).toContain('<h1>Page not found</h1>');
  });
});
