import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

/** The votes API: votes on behalf of people, as the support team adds them. */
describe('votes', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    // Business: this file makes more requests than pro's 60 a minute.
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  async function newPost(title = 'Export to CSV') {
    const answer = await api.post('/api/v1/posts', { board: 'ideas', title });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  const voteRows = (postId: number) =>
    t.db.query(`SELECT person_id FROM votes WHERE workspace_id = $1 AND post_id = $2`, [ws.id, postId]);
  const votedEvents = (postId: number) =>
    t.db.query(
      `SELECT data::text AS data FROM outbox_events WHERE workspace_id = $1 AND type = 'post.voted' AND (data->'post'->>'id')::bigint = $2
        ORDER BY created_at`,
      [ws.id, postId],
    );

  it('adds a vote for a new guest (201 with the post), and voting twice is one vote (200, unchanged, no second event)', async () => {
    const post = await newPost();
    const voter = { name: 'Gus Guest', email: 'gus@customer.example' };

    const first = await api.post(`/api/v1/posts/${post.id}/votes`, { voter });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ id: post.id, votes: 2, updated_at: post.updated_at });
    expect(first.text).not.toContain('gus@customer.example');

    const again = await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Another Name', email: 'GUS@customer.example' } });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(2);
    expect(await voteRows(post.id)).toHaveLength(2);

    const events = await votedEvents(post.id);
    expect(events).toHaveLength(1);
    const data = JSON.parse(events[0].data);
    expect(data).toEqual({ post: first.body.data, voter: { name: 'Gus Guest' } });
    expect(events[0].data).not.toContain('@');
  });

  it('votes as a known person when the email is known (any case), ignoring the name given', async () => {
    const known = await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name: 'Kim Known', email: 'kim@customer.example' });
    const post = await newPost('Dark mode for reports');
    const answer = await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Not Kim', email: 'KIM@Customer.example' } });
    expect(answer.status).toBe(201);
    expect(await voteRows(post.id)).toContainEqual({ person_id: known.id });
    const voters = await api.get(`/api/v1/posts/${post.id}/votes`);
    expect(voters.body.data).toEqual([{ name: 'Kim Known' }, { name: 'Olive Owner' }]);
    const [people] = await t.db.query(`SELECT count(*)::int AS n FROM people WHERE workspace_id = $1 AND lower(email) = 'kim@customer.example'`, [ws.id]);
    expect(people.n).toBe(1);
  });

  it('lists voters with names only, never an email, newest first, with the posts list\'s paging', async () => {
    const post = await newPost('Paging through voters');
    for (const [i, name] of ['Ann', 'Ben', 'Cid'].entries()) {
      expect((await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name, email: `${name.toLowerCase()}${i}@mail.example` } })).status).toBe(201);
    }
    const page1 = await api.get(`/api/v1/posts/${post.id}/votes?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body).toEqual({ data: [{ name: 'Cid' }, { name: 'Ben' }], has_more: true, next_offset: 2 });
    const page2 = await api.get(`/api/v1/posts/${post.id}/votes?limit=2&offset=2`);
    expect(page2.body).toEqual({ data: [{ name: 'Ann' }, { name: 'Olive Owner' }], has_more: false, next_offset: null });
    for (const answer of [page1, page2]) {
      expect(answer.text).not.toContain('@');
      for (const voter of answer.body.data) expect(Object.keys(voter)).toEqual(['name']);
    }
    expectError(await api.get(`/api/v1/posts/${post.id}/votes?limit=0`), 400, 'invalid_request', 'limit: must be an integer from 1 to 100');
    expectError(await api.get('/api/v1/posts/999999999/votes'), 404, 'not_found');
  });

  it('without a voter votes as the key\'s creator; a name alone is a new guest each time', async () => {
    const post = await newPost('Keyboard shortcuts');
    // The author (the key's creator) has voted by posting.
    expect((await api.post(`/api/v1/posts/${post.id}/votes`, {})).status).toBe(200);
    expect((await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Walk-in' } })).status).toBe(201);
    expect((await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Walk-in' } })).body.data.votes).toBe(3);
  });

  it('removes a vote (204) by email, recounting the post; a vote that is not there is removed already', async () => {
    const post = await newPost('Remove me later');
    await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Rae', email: 'rae@mail.example' } });
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(2);

    const removed = await api.request('DELETE', `/api/v1/posts/${post.id}/votes`, { body: { voter: { email: 'RAE@mail.example' } } });
    expect(removed.status).toBe(204);
    expect(removed.text).toBe('');
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(1);
    expect(await api.get(`/api/v1/posts/${post.id}/votes`).then((a) => a.body.data)).toEqual([{ name: 'Olive Owner' }]);

    expect((await api.request('DELETE', `/api/v1/posts/${post.id}/votes`, { body: { voter: { email: 'rae@mail.example' } } })).status).toBe(204);
    expect((await api.request('DELETE', `/api/v1/posts/${post.id}/votes`, { body: { voter: { email: 'nobody@mail.example' } } })).status).toBe(204);
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(1);

    // Without a voter: the key's creator, whose vote came with the post.
    expect((await api.request('DELETE', `/api/v1/posts/${post.id}/votes`)).status).toBe(204);
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(0);
  });

  it('refuses what names no voter or no post', async () => {
    const post = await newPost('Validation of voters');
    expectError(await api.post(`/api/v1/posts/${post.id}/votes`, { voter: {} }), 400, 'invalid_request', 'voter.name: is required');
    expectError(
      await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'X', email: 'not-an-email' } }),
      400,
      'invalid_request',
      'voter.email: must be a valid email address',
    );
    expectError(await api.post(`/api/v1/posts/${post.id}/votes`, { voter: 'someone' }), 400, 'invalid_request', 'voter: must be an object');
    expectError(await api.post(`/api/v1/posts/${post.id}/votes`, { voters: [] }), 400, 'invalid_request', 'voters: is not allowed');
    expectError(
      await api.request('DELETE', `/api/v1/posts/${post.id}/votes`, { body: { voter: { name: 'Only A Name' } } }),
      400,
      'invalid_request',
      'voter.email: is required to remove a vote',
    );
    expectError(await api.post('/api/v1/posts/999999999/votes', { voter: { name: 'Lost' } }), 404, 'not_found');
    expectError(await api.post('/api/v1/posts/abc/votes', { voter: { name: 'Lost' } }), 404, 'not_found');
    const other = await createWorkspace(t.app);
    expectError(await new Client(t.baseUrl, other.key).post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Outsider' } }), 404, 'not_found');
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(1);
  });

  it('sends a vote on a merged post to the post it was merged into, and removes it from both', async () => {
    const source = await newPost('Duplicate idea');
    const target = await newPost('Original idea');
    expect((await api.post(`/api/v1/posts/${source.id}/merge`, { into: target.id })).status).toBe(200);

    const voted = await api.post(`/api/v1/posts/${source.id}/votes`, { voter: { name: 'Mo', email: 'mo@mail.example' } });
    expect(voted.status).toBe(201);
    expect(voted.body.data).toMatchObject({ id: target.id, votes: 2 });
    expect((await api.get(`/api/v1/posts/${source.id}`)).body.data.votes).toBe(1);
    expect((await votedEvents(target.id)).map((e: any) => JSON.parse(e.data).voter)).toEqual([{ name: 'Mo' }]);

    // Voting on the target directly is the same vote.
    expect((await api.post(`/api/v1/posts/${target.id}/votes`, { voter: { email: 'mo@mail.example' } })).status).toBe(200);

    expect((await api.request('DELETE', `/api/v1/posts/${source.id}/votes`, { body: { voter: { email: 'mo@mail.example' } } })).status).toBe(204);
    expect((await api.get(`/api/v1/posts/${target.id}`)).body.data.votes).toBe(1);
  });

  it('counts concurrent votes by one person once, and by several people each', async () => {
    const post = await newPost('Busy post');
    const same = await Promise.all(
      Array.from({ length: 5 }, () => api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Sam', email: 'sam@mail.example' } })),
    );
    expect(same.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const many = await Promise.all(
      Array.from({ length: 5 }, (_, i) => api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: `P${i}`, email: `p${i}@mail.example` } })),
    );
    expect(many.every((a) => a.status === 201)).toBe(true);
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.votes).toBe(7);
    expect(await voteRows(post.id)).toHaveLength(7);
  });
});
