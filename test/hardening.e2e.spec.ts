import { PostsService } from '../src/posts/posts.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/** Inputs that once reached the database or a stack as they were: each is a clear 4xx now. */
describe('hostile input', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  const expectInvalid = (answer: { status: number; body: any }, message: string | RegExp) => {
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(answer.body.error.message).toMatch(message);
  };

  it('refuses NUL characters and lone surrogates in bodies and queries, writing nothing', async () => {
    const before = await t.db.query(`SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1`, [ws.id]);
    expectInvalid(await api.post('/api/v1/posts', { board: 'ideas', title: 'Nul \u0000 here' }), /^title: must not contain NUL/);
    expectInvalid(
      await api.post('/api/v1/posts', { board: 'ideas', title: 'Fine title', author: { name: 'a\u0000' } }),
      /^author\.name: must not contain NUL/,
    );
    expectInvalid(
      await api.request('POST', '/api/v1/posts', {
        raw: '{"board":"ideas","title":"Lone \\ud800 surrogate"}',
        headers: { 'content-type': 'application/json' },
      }),
      /^title: must be valid Unicode/,
    );
    expectInvalid(await api.get('/api/v1/posts?q=%00'), /^q: must not contain NUL/);
    expectInvalid(await api.get('/api/v1/posts?board=a%00b'), /^board: must not contain NUL/);
    const after = await t.db.query(`SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1`, [ws.id]);
    expect(after[0].n).toBe(before[0].n);
  });

  it('refuses bodies nested deeper than 32 levels, and prototype keys', async () => {
    const deep = '{"board":' + '['.repeat(5000) + ']'.repeat(5000) + ',"title":"Deep post"}';
    expectInvalid(
      await api.request('POST', '/api/v1/posts', { raw: deep, headers: { 'content-type': 'application/json' } }),
      /^board(\.0)+: is nested more than 32 levels deep$/,
    );
    expectInvalid(
      await api.request('POST', '/api/v1/posts', {
        raw: '{"board":"ideas","title":"Proto post","__proto__":{"admin":true}}',
        headers: { 'content-type': 'application/json' },
      }),
      /^__proto__: is not allowed$/,
    );
  });

  it('answers 400 for a merge target beyond any id, and 404 for a path that is not valid percent-encoding', async () => {
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Merge source' })).body.data;
    expectInvalid(await api.post(`/api/v1/posts/${post.id}/merge`, { into: 1e20 }), /^into: must be a post id$/);
    const badPath = await api.get('/api/v1/posts/%E0%A4%A');
    expect(badPath.status).toBe(404);
    expect(badPath.body.error.code).toBe('not_found');
  });

  it('counts requests to unknown API routes against the workspace, with the headers', async () => {
    const small = await createWorkspace(t.app);
    const client = new Client(t.baseUrl, small.key);
    const first = await client.get('/api/v1/nope');
    expect(first.status).toBe(404);
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    for (let i = 0; i < 59; i++) await client.get('/api/v1/boards');
    const limited = await client.get('/api/v1/nope');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
  });

  it('names the wrong type, not a length, when a field is not a string or a list', async () => {
    expectInvalid(await api.post('/api/v1/posts', { board: 'ideas', title: 123 }), /^title: must be a string$/);
    expectInvalid(await api.post('/api/v1/posts', { board: 'ideas', title: 'Typed', body: 42 }), /^body: must be a string$/);
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Typed post' })).body.data;
    expectInvalid(await api.post(`/api/v1/posts/${post.id}/comments`, { body: 5 }), /^body: must be a string$/);
    expectInvalid(
      await api.post('/api/v1/webhook_endpoints', { url: 'https://8.8.8.8/hook', events: 'post.created' }),
      /^events: must be a list of event types/,
    );
    expectInvalid(
      await api.post('/api/v1/webhook_endpoints', { url: 'https://8.8.8.8/hook', events: ['post.created', 'post.created'] }),
      /^events: must not repeat an event type$/,
    );
  });

  it('moves a vote for a merged post to the post it was merged into, and counts each person once', async () => {
    const [a, b] = [
      (await api.post('/api/v1/posts', { board: 'ideas', title: 'Vote source' })).body.data,
      (await api.post('/api/v1/posts', { board: 'ideas', title: 'Vote target' })).body.data,
    ];
    await api.post(`/api/v1/posts/${a.id}/merge`, { into: b.id });
    const voter = await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name: 'Vic Voter' });
    const posts = t.app.get(PostsService);
    await Promise.all([posts.vote(ws.actor, a.id, voter.id), posts.vote(ws.actor, b.id, voter.id), posts.vote(ws.actor, b.id, voter.id)]);
    expect((await api.get(`/api/v1/posts/${b.id}`)).body.data.votes).toBe(2);
    expect((await api.get(`/api/v1/posts/${a.id}`)).body.data.votes).toBe(1);
  });
});
