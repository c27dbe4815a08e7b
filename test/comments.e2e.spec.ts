import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

// ---------------------------------------------------------------------------------------------
// Helpers

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;


/** A post made through the API; its `data`. */
async function createPost(api: Client, title = 'A post to comment on', board = 'ideas') {
  const answer = await api.post('/api/v1/posts', { board, title, body: 'Some details' });
  expect(answer.status).toBe(201);
  return answer.body.data;
}

const getPost = async (api: Client, id: number) => {
  const answer = await api.get(`/api/v1/posts/${id}`);
  expect(answer.status).toBe(200);
  return answer.body.data;
};

/** Rows written for a post: its comments, and the comment.created events naming it. */
async function writtenFor(t: TestApp, ws: TestWorkspace, postId: number) {
  const comments: unknown[] = await t.db.query('SELECT id FROM comments WHERE workspace_id = $1 AND post_id = $2', [
    ws.id,
    postId,
  ]);
  const events: { data: any }[] = await t.db.query(
    `SELECT data FROM outbox_events WHERE workspace_id = $1 AND type = 'comment.created'
        AND (data->'post'->>'id')::bigint = $2
      ORDER BY (data->'comment'->>'id')::bigint`,
    [ws.id, postId],
  );
  const [{ comments_count }] = await t.db.query(
    'SELECT comments_count FROM posts WHERE workspace_id = $1 AND id = $2',
    [ws.id, postId],
  );
  return { comments: comments.length, events: events.map((e) => e.data), count: comments_count as number };
}

const COMMENT_KEYS = ['author', 'body', 'created_at', 'id', 'moderation', 'official', 'post_id'];

// ---------------------------------------------------------------------------------------------

describe('POST /api/v1/posts/{id}/comments', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  it('answers 201 with exactly the Comment, an official reply by the key creator', async () => {
    const post = await createPost(api);
    expect(post.comments).toBe(0);
    const before = Date.now();
    const answer = await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Thanks, this is on our roadmap.' });
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.body)).toEqual(['data']);
    const comment = answer.body.data;
    expect(Object.keys(comment).sort()).toEqual(COMMENT_KEYS);
    expect(comment).toEqual({
      id: expect.any(Number),
      post_id: post.id,
      body: 'Thanks, this is on our roadmap.',
      official: true,
      moderation: 'approved',
      author: { name: 'Olive Owner' },
      created_at: expect.stringMatching(ISO_MS),
    });
    expect(Number.isInteger(comment.id) && comment.id > 0).toBe(true);
    expect(Math.abs(Date.parse(comment.created_at) - before)).toBeLessThan(60_000);
  });

  it("adds one to the post's comments count", async () => {
    const post = await createPost(api);
    await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'First' });
    expect((await getPost(api, post.id)).comments).toBe(1);
    await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Second' });
    expect((await getPost(api, post.id)).comments).toBe(2);
  });

  it('records comment.created with data.post and data.comment equal to the API objects', async () => {
    const post = await createPost(api);
    const answer = await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Event check' });
    expect(answer.status).toBe(201);
    const written = await writtenFor(t, ws, post.id);
    expect(written.events).toHaveLength(1);
    expect(Object.keys(written.events[0]).sort()).toEqual(['comment', 'post']);
    expect(written.events[0].comment).toEqual(answer.body.data);
    expect(written.events[0].post).toEqual(await getPost(api, post.id));
    expect(written.events[0].post.comments).toBe(1);
  });

  it('trims the body and counts its length in code points: 1 to 2,000', async () => {
    const post = await createPost(api);
    const create = (body: unknown) => api.post(`/api/v1/posts/${post.id}/comments`, { body });

    let answer = await create('  padded  \n');
    expect(answer.status).toBe(201);
    expect(answer.body.data.body).toBe('padded');

    answer = await create('x');
    expect(answer.status).toBe(201);
    expect(answer.body.data.body).toBe('x');

    const emoji = '😀'.repeat(2000); // 2,000 code points, 4,000 UTF-16 units, 8,000 bytes
    answer = await create(emoji);
    expect(answer.status).toBe(201);
    expect(answer.body.data.body).toBe(emoji);
    answer = await create(`  ${'é'.repeat(2000)}  `);
    expect(answer.status).toBe(201);
    expect(answer.body.data.body).toBe('é'.repeat(2000));

    const before = await writtenFor(t, ws, post.id);
    expect(before).toMatchObject({ comments: 4, count: 4 });
    for (const body of ['', '   ', '\n\t ', '😀'.repeat(2001), 'a'.repeat(2001)]) {
      expectError(await create(body), 400, 'invalid_request', /^body: /);
    }
    expectError(await create(''), 400, 'invalid_request', 'body: must be 1 to 2000 characters');
    expect(await writtenFor(t, ws, post.id)).toEqual(before);
  });

  it('refuses a missing, non-string or null body, unknown fields, invalid JSON and other bodies', async () => {
    const post = await createPost(api);
    const path = `/api/v1/posts/${post.id}/comments`;
    expectError(await api.post(path, {}), 400, 'invalid_request', 'body: is required');
    expectError(await api.post(path, { body: null }), 400, 'invalid_request', 'body: is required');
    expectError(await api.post(path, { body: 42 }), 400, 'invalid_request', /^body: /);
    expectError(await api.post(path, { body: ['hi'] }), 400, 'invalid_request', /^body: /);
    expectError(await api.post(path, { body: 'hi', x: 1 }), 400, 'invalid_request', 'x: is not allowed');
    expectError(await api.post(path, { body: 'hi', official: false }), 400, 'invalid_request', 'official: is not allowed');
    const json = { 'content-type': 'application/json' };
    expectError(await api.request('POST', path, { raw: '{"body": "hi"', headers: json }), 400, 'invalid_json');
    expectError(await api.request('POST', path, { raw: '"hi"', headers: json }), 400, 'invalid_request', 'body: must be a JSON object');
    expectError(await api.request('POST', path, { raw: '[]', headers: json }), 400, 'invalid_request', 'body: must be a JSON object');
    expectError(
      await api.request('POST', path, { raw: '{"body":"hi"}', headers: { 'content-type': 'text/plain' } }),
      400,
      'invalid_request',
      'content-type: must be application/json',
    );
    expect(await writtenFor(t, ws, post.id)).toEqual({ comments: 0, events: [], count: 0 });
  });
});

describe('GET /api/v1/posts/{id}/comments', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  it('answers an empty list for a post without comments', async () => {
    const post = await createPost(api);
    const answer = await api.get(`/api/v1/posts/${post.id}/comments`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: [] });
  });

  it('lists every comment, oldest first (created_at, then id), in the exact shape', async () => {
    const post = await createPost(api);
    const made: any[] = [];
    for (const body of ['one', 'two', 'three']) {
      const answer = await api.post(`/api/v1/posts/${post.id}/comments`, { body });
      expect(answer.status).toBe(201);
      made.push(answer.body.data);
    }
    // Comments written elsewhere (an end user's, and a burst sharing one timestamp), inserted
    // after the API ones but dated earlier, so created_at and id disagree on the order.
    const [guest] = await t.db.query(
      `INSERT INTO people (workspace_id, kind, name) VALUES ($1, 'guest', 'Gus Guest') RETURNING id`,
      [ws.id],
    );
    const early = '2024-01-01T00:00:00.000Z';
    const tied = '2024-06-01T00:00:00.000Z';
    const rows: { id: string }[] = await t.db.query(
      `INSERT INTO comments (workspace_id, post_id, author_id, body, official, created_at) VALUES
         ($1, $2, $3, 'tied a', false, $5), ($1, $2, $4, 'tied b', true, $5),
         ($1, $2, $3, 'tied c', false, $5), ($1, $2, $3, 'earliest', false, $6)
       RETURNING id`,
      [ws.id, post.id, guest.id, ws.member.id, tied, early],
    );
    const [a, b, c, earliest] = rows.map((r) => Number(r.id));
    const answer = await api.get(`/api/v1/posts/${post.id}/comments`);
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['data']);
    const guestComment = (id: number, body: string, created_at: string, official = false) => ({
      id,
      post_id: post.id,
      body,
      official,
      author: { name: official ? 'Olive Owner' : 'Gus Guest' },
      moderation: 'approved',
      created_at,
    });
    expect(answer.body.data).toEqual([
      guestComment(earliest, 'earliest', early),
      guestComment(a, 'tied a', tied),
      guestComment(b, 'tied b', tied, true),
      guestComment(c, 'tied c', tied),
      ...made,
    ]);
    for (const comment of answer.body.data) expect(Object.keys(comment).sort()).toEqual(COMMENT_KEYS);
  });

  it("lists only that post's comments", async () => {
    const one = await createPost(api, 'First post');
    const two = await createPost(api, 'Second post');
    const c1 = (await api.post(`/api/v1/posts/${one.id}/comments`, { body: 'on one' })).body.data;
    const c2 = (await api.post(`/api/v1/posts/${two.id}/comments`, { body: 'on two' })).body.data;
    expect((await api.get(`/api/v1/posts/${one.id}/comments`)).body).toEqual({ data: [c1] });
    expect((await api.get(`/api/v1/posts/${two.id}/comments`)).body).toEqual({ data: [c2] });
  });
});

describe('comments: unknown posts and other workspaces', () => {
  let t: TestApp;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let apiA: Client;
  let apiB: Client;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createWorkspace(t.app);
    b = await createWorkspace(t.app);
    apiA = new Client(t.baseUrl, a.key);
    apiB = new Client(t.baseUrl, b.key);
  });
  afterAll(() => t.close());

  it('answers 404 not_found for unknown and non-numeric post ids, on GET and POST', async () => {
    const [{ max }] = await t.db.query('SELECT COALESCE(MAX(id), 0) + 1000000 AS max FROM posts');
    for (const id of [String(max), 'abc', '0', '-1', '1.5', '1e3', '99999999999999999999']) {
      expectError(await apiA.get(`/api/v1/posts/${id}/comments`), 404, 'not_found');
      expectError(await apiA.post(`/api/v1/posts/${id}/comments`, { body: 'hello' }), 404, 'not_found');
    }
  });

  it("answers 404 for another workspace's post and writes nothing there", async () => {
    const theirs = await createPost(apiB, 'Post of workspace B');
    const mine = (await apiB.post(`/api/v1/posts/${theirs.id}/comments`, { body: 'B replies' })).body.data;
    const before = await writtenFor(t, b, theirs.id);
    expect(before).toMatchObject({ comments: 1, count: 1 });

    expectError(await apiA.get(`/api/v1/posts/${theirs.id}/comments`), 404, 'not_found');
    expectError(await apiA.post(`/api/v1/posts/${theirs.id}/comments`, { body: 'A intrudes' }), 404, 'not_found');
    // Even a body that would be refused answers 404 (or 400) but never writes.
    const bad = await apiA.post(`/api/v1/posts/${theirs.id}/comments`, { body: '' });
    expect([400, 404]).toContain(bad.status);

    expect(await writtenFor(t, b, theirs.id)).toEqual(before);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM comments WHERE post_id = $1 OR workspace_id = $2`,
      [theirs.id, a.id],
    );
    expect(n).toBe(1);
    const [{ events }] = await t.db.query(
      `SELECT count(*)::int AS events FROM outbox_events WHERE workspace_id = $1 AND type = 'comment.created'`,
      [a.id],
    );
    expect(events).toBe(0);
    expect((await apiB.get(`/api/v1/posts/${theirs.id}/comments`)).body).toEqual({ data: [mine] });
    expect((await getPost(apiB, theirs.id)).comments).toBe(1);
  });
});
