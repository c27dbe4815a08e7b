import { ApiKeysService } from '../src/auth/api-keys.service';
import { PostsService } from '../src/posts/posts.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** The fields of a Post in the spec's table: exactly these, no more, no less. */
const POST_FIELDS = [
  'admin_url', 'author', 'board', 'body', 'category', 'comments', 'created_at', 'id', 'merged_into', 'moderation',
  'pinned', 'status', 'title', 'updated_at', 'url', 'votes',
];
const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const BASE_URL = 'https://chorus.test';
const PUBLIC_BASE_URL = 'https://boards.chorus.test';
const STATUSES = ['open', 'planned', 'in_progress', 'done', 'closed'];

const EMOJI = '😀'; // one code point, two UTF-16 units, four UTF-8 bytes
const E_ACUTE = 'é'; // one code point (U+00E9), two UTF-8 bytes
const times = (text: string, n: number) => text.repeat(n);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An error answer: the status, the envelope and nothing else, and a Request-Id. */

/** 400 invalid_request; `message` exact (string) or matched (RegExp). */
const expectInvalid = (answer: Answer, message: string | RegExp) => expectError(answer, 400, 'invalid_request', message);

/** The field names of an invalid_request message: `a: x; b.c: y` gives ['a', 'b.c']. */
const fieldsOf = (message: string) => message.split('; ').map((part) => part.slice(0, part.indexOf(':')));

const sortedKeys = (value: object) => Object.keys(value).sort();

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const clientFor = (ws: TestWorkspace) => new Client(t.baseUrl, ws.key);

/** A workspace for one describe; business, so that its many requests stay far below the rate limit. */
const newWorkspace = () => createWorkspace(t.app, { plan: 'business' });

/** Creates a post and checks it answered 201; returns the post. */
async function createPost(api: Client, fields: Record<string, unknown> = {}): Promise<any> {
  const answer = await api.post('/api/v1/posts', { board: 'ideas', title: 'A post to work with', ...fields });
  expect(answer.status).toBe(201);
  return answer.body.data;
}

/** Event data of one type for one post of a workspace, straight from the outbox. */
async function eventsFor(workspaceId: string, type: string, postId: number): Promise<any[]> {
  const rows: { data: any }[] = await t.db.query(
    `SELECT data FROM outbox_events
      WHERE workspace_id = $1 AND type = $2 AND data->'post'->>'id' = $3
      ORDER BY created_at`,
    [workspaceId, type, String(postId)],
  );
  return rows.map((row) => row.data);
}

async function statusChangesFor(workspaceId: string, postId: number) {
  const rows: { from_status: string; to_status: string; changed_by: string }[] = await t.db.query(
    `SELECT from_status, to_status, changed_by FROM status_changes
      WHERE workspace_id = $1 AND post_id = $2 ORDER BY created_at`,
    [workspaceId, postId],
  );
  return rows;
}

const countRows = async (sql: string, params: unknown[]): Promise<number> =>
  Number((await t.db.query(sql, params))[0].count);
const postCount = (workspaceId: string) =>
  countRows('SELECT count(*) FROM posts WHERE workspace_id = $1', [workspaceId]);
const peopleCount = (workspaceId: string) =>
  countRows('SELECT count(*) FROM people WHERE workspace_id = $1', [workspaceId]);

/** The url a post must have, given the expected title slug ('' for none). */
const postUrl = (ws: TestWorkspace, board: string, id: number, slug: string) =>
  `${PUBLIC_BASE_URL}/${ws.slug}/${board}/p/${slug ? `${id}-${slug}` : id}`;

// ---------------------------------------------------------------------------------------------
// POST /api/v1/posts
// ---------------------------------------------------------------------------------------------

describe('POST /api/v1/posts', () => {
  describe('validation', () => {
    let ws: TestWorkspace;
    let api: Client;

    beforeAll(async () => {
      ws = await newWorkspace();
      api = clientFor(ws);
    });

    const create = (fields: Record<string, unknown>) => api.post('/api/v1/posts', fields);
    const withTitle = (title: unknown) => create({ board: 'ideas', title });

    it('counts the title in code points: 3 is refused, 4 and 120 are taken, 121 is refused', async () => {
      // 3 emoji are 6 UTF-16 units: a UTF-16 count would take them.
      expectInvalid(await withTitle(times(EMOJI, 3)), /^title: \S/);
      expectInvalid(await withTitle(times(E_ACUTE, 3)), /^title: \S/);
      expectInvalid(await withTitle('ab' + EMOJI), /^title: \S/);

      const four = await withTitle(times(EMOJI, 4));
      expect(four.status).toBe(201);
      expect(four.body.data.title).toBe(times(EMOJI, 4));
      expect((await withTitle(times(E_ACUTE, 4))).status).toBe(201);

      // 120 emoji are 240 UTF-16 units and 480 bytes: only a code point count takes them.
      const max = await withTitle(times(EMOJI, 120));
      expect(max.status).toBe(201);
      expect(max.body.data.title).toBe(times(EMOJI, 120));
      expect((await withTitle(times(E_ACUTE, 120))).status).toBe(201);

      expectInvalid(await withTitle(times(E_ACUTE, 121)), /^title: \S/);
      expectInvalid(await withTitle(times(EMOJI, 121)), /^title: \S/);
      expectInvalid(await withTitle('a'.repeat(121)), /^title: \S/);
    });

    it('trims the title, stores it trimmed, and counts it after trimming', async () => {
      const trimmed = await withTitle('  \t Trim me please \n ');
      expect(trimmed.status).toBe(201);
      expect(trimmed.body.data.title).toBe('Trim me please');
      const stored = await api.get(`/api/v1/posts/${trimmed.body.data.id}`);
      expect(stored.body.data.title).toBe('Trim me please');

      // 7 characters with the spaces, 3 without.
      expectInvalid(await withTitle('  abc  '), /^title: \S/);
      expectInvalid(await withTitle('      '), /^title: \S/);
      // 122 characters with the spaces, 120 without.
      const padded = await withTitle(` ${times(EMOJI, 120)} `);
      expect(padded.status).toBe(201);
      expect(padded.body.data.title).toBe(times(EMOJI, 120));
    });

    it('counts the body in code points: 5,000 is taken, 5,001 is refused', async () => {
      // 5,000 emoji are 10,000 UTF-16 units and 20,000 bytes.
      const max = await create({ board: 'ideas', title: 'Long body', body: times(EMOJI, 5000) });
      expect(max.status).toBe(201);
      expect(max.body.data.body).toBe(times(EMOJI, 5000));
      const padded = await create({ board: 'ideas', title: 'Long body', body: `  ${times(E_ACUTE, 5000)}\n` });
      expect(padded.status).toBe(201);

      expectInvalid(await create({ board: 'ideas', title: 'Too long body', body: times(E_ACUTE, 5001) }), /^body: \S/);
      expectInvalid(await create({ board: 'ideas', title: 'Too long body', body: times(EMOJI, 5001) }), /^body: \S/);
    });

    it('makes an omitted body "" and never null', async () => {
      const omitted = await create({ board: 'ideas', title: 'No body here' });
      expect(omitted.status).toBe(201);
      expect(omitted.body.data.body).toBe('');
      const again = await api.get(`/api/v1/posts/${omitted.body.data.id}`);
      expect(again.body.data.body).toBe('');
      const empty = await create({ board: 'ideas', title: 'Empty body', body: '' });
      expect(empty.body.data.body).toBe('');
    });

    it('defaults the category to feature, takes each valid one, and refuses others', async () => {
      expect((await create({ board: 'ideas', title: 'Default category' })).body.data.category).toBe('feature');
      for (const category of ['feature', 'bug', 'improvement']) {
        const answer = await create({ board: 'ideas', title: `A ${category}`, category });
        expect(answer.status).toBe(201);
        expect(answer.body.data.category).toBe(category);
      }
      for (const category of ['Bug', 'enhancement', '', 3]) {
        expectInvalid(await create({ board: 'ideas', title: 'Bad category', category }), /^category: \S/);
      }
    });

    it('requires a board, and answers 404 for a board slug unknown in this workspace', async () => {
      expectInvalid(await create({ title: 'Where does it go' }), 'board: is required');
      expectInvalid(await create({ board: 7, title: 'Where does it go' }), /^board: \S/);
      expectError(await create({ board: 'no-such-board', title: 'Where does it go' }), 404, 'not_found');
    });

    it('requires a title', async () => {
      expectInvalid(await create({ board: 'ideas' }), /^title: \S/);
    });

    it('refuses wrong types with "<field>: <problem>"', async () => {
      expectInvalid(await withTitle(12345), /^title: \S/);
      expectInvalid(await withTitle(['Four words here']), /^title: \S/);
      expectInvalid(await create({ board: 'ideas', title: 'Number body', body: 12345 }), /^body: \S/);
      expectInvalid(await create({ board: 'ideas', title: 'String author', author: 'Ann Author' }), /^author: \S/);
      expectInvalid(await create({ board: 'ideas', title: 'Array author', author: [{ name: 'Ann' }] }), /^author: \S/);
      expectInvalid(await create({ board: 'ideas', title: 'Number name', author: { name: 42 } }), /^author\.name: \S/);
      expectInvalid(
        await create({ board: 'ideas', title: 'Number email', author: { name: 'Ann', email: 42 } }),
        /^author\.email: \S/,
      );
      for (const answer of [await withTitle(12345), await create({ board: 'ideas', title: 'x', author: 'y' })]) {
        expect(answer.body.error.message.split('; ').every((part: string) => /^[a-z_.]+: \S/.test(part))).toBe(true);
      }
    });

    it('joins several problems with "; " in the documented field order, unknown fields last', async () => {
      // Sent in reverse order: the answer still follows board, title, body, category, author.
      const answer = await create({ zzz: 1, author: 'nobody', category: 'nope', body: 99, title: 'ab' });
      expectInvalid(answer, /^board: is required; title: \S.*; body: \S.*; category: \S.*; author: \S.*; zzz: is not allowed$/);
      expect(fieldsOf(answer.body.error.message)).toEqual(['board', 'title', 'body', 'category', 'author', 'zzz']);

      const two = await create({ body: times(EMOJI, 5001), board: 'ideas', title: 123 });
      expect(fieldsOf(two.body.error.message)).toEqual(['title', 'body']);

      // Inside author, in its documented order { name, email }.
      const nested = await create({ board: 'ideas', title: 'Nested', author: { email: 'bad', name: times('n', 101) } });
      expectInvalid(nested, /^author\.name: \S.*; author\.email: \S/);
    });

    it('refuses unknown fields, top-level and nested', async () => {
      expectInvalid(await create({ board: 'ideas', title: 'Unknown field', color: 'red' }), 'color: is not allowed');
      expectInvalid(
        await create({ board: 'ideas', title: 'Unknown nested', author: { name: 'Ann', phone: '555' } }),
        'author.phone: is not allowed',
      );
      expectInvalid(
        await create({ board: 'ideas', title: 'Unknown both', votes: 10, author: { name: 'Ann', x: 1 } }),
        /^(votes: is not allowed; author\.x: is not allowed|author\.x: is not allowed; votes: is not allowed)$/,
      );
    });

    it('creates nothing when it refuses a request', async () => {
      const before = await postCount(ws.id);
      const people = await peopleCount(ws.id);
      await withTitle('abc');
      await create({ board: 'ideas', title: 'With unknown', pinned: true });
      await create({ board: 'ideas', title: 'Bad author email', author: { name: 'Eve', email: 'not-an-email' } });
      await create({ board: 'ideas', title: 'Bad author name', author: { name: times('n', 101), email: 'n@n.example' } });
      await create({ board: 'missing', title: 'Unknown board', author: { name: 'Ned', email: 'ned@n.example' } });
      expect(await postCount(ws.id)).toBe(before);
      expect(await peopleCount(ws.id)).toBe(people);
    });
  });

  describe('author', () => {
    let ws: TestWorkspace;
    let api: Client;

    const create = (fields: Record<string, unknown>) =>
      api.post('/api/v1/posts', { board: 'ideas', title: 'Post with an author', ...fields });
    const authorIdOf = async (postId: number): Promise<string> =>
      (await t.db.query('SELECT author_id FROM posts WHERE workspace_id = $1 AND id = $2', [ws.id, postId]))[0].author_id;

    beforeAll(async () => {
      ws = await newWorkspace();
      api = clientFor(ws);
    });

    it('is the key creator when omitted', async () => {
      const answer = await create({});
      expect(answer.status).toBe(201);
      expect(answer.body.data.author).toEqual({ name: ws.member.name });
      expect(await authorIdOf(answer.body.data.id)).toBe(ws.member.id);
    });

    it('is a new guest with the name given', async () => {
      const people = await peopleCount(ws.id);
      const answer = await create({ author: { name: '  Gina Guest ' } });
      expect(answer.status).toBe(201);
      expect(answer.body.data.author).toEqual({ name: 'Gina Guest' });
      const [person] = await t.db.query('SELECT id, kind, name, email FROM people WHERE workspace_id = $1 AND id = $2', [
        ws.id,
        await authorIdOf(answer.body.data.id),
      ]);
      expect(person).toMatchObject({ kind: 'guest', name: 'Gina Guest', email: null });
      expect(await peopleCount(ws.id)).toBe(people + 1);
    });

    it('makes a guest with a new email once: the same email in another case is the same person', async () => {
      const first = await create({ author: { name: 'Hank Hill', email: 'Hank.Hill@Example.com' } });
      expect(first.status).toBe(201);
      expect(first.body.data.author).toEqual({ name: 'Hank Hill' });
      const people = await peopleCount(ws.id);

      const second = await create({ author: { name: 'Somebody Else', email: 'hank.hill@EXAMPLE.COM' } });
      expect(second.status).toBe(201);
      expect(second.body.data.author).toEqual({ name: 'Hank Hill' });
      const third = await create({ author: { email: 'HANK.HILL@example.com' } });
      expect(third.status).toBe(201);
      expect(third.body.data.author).toEqual({ name: 'Hank Hill' });

      expect(await peopleCount(ws.id)).toBe(people);
      const ids = await Promise.all([first, second, third].map((a) => authorIdOf(a.body.data.id)));
      expect(new Set(ids).size).toBe(1);
      expect(ids[0]).not.toBe(ws.member.id);
    });

    it('posts as the member whose email is known, ignoring the name given', async () => {
      const mara = await t.app
        .get(WorkspacesService)
        .addPerson(ws.id, { kind: 'member', name: 'Mara Member', email: `mara@${ws.slug}.example` });
      const answer = await create({ author: { name: 'Not Mara', email: `MARA@${ws.slug.toUpperCase()}.example` } });
      expect(answer.status).toBe(201);
      expect(answer.body.data.author).toEqual({ name: 'Mara Member' });
      expect(await authorIdOf(answer.body.data.id)).toBe(mara.id);
      const noName = await create({ author: { email: `mara@${ws.slug}.example` } });
      expect(noName.body.data.author).toEqual({ name: 'Mara Member' });
    });

    it('refuses an invalid email with author.email', async () => {
      for (const email of ['not-an-email', 'a@', '@b.example', 'two@@b.example', '']) {
        expectInvalid(await create({ author: { name: 'Eve', email } }), /^author\.email: \S/);
      }
    });

    it('answers author.name: is required for neither a known email nor a name', async () => {
      const people = await peopleCount(ws.id);
      expectInvalid(await create({ author: {} }), 'author.name: is required');
      expectInvalid(await create({ author: { email: 'stranger@unknown.example' } }), 'author.name: is required');
      expect(await peopleCount(ws.id)).toBe(people);
    });

    it('takes a name of 100 code points and refuses 101', async () => {
      const hundred = await create({ author: { name: times(EMOJI, 100) } });
      expect(hundred.status).toBe(201);
      expect(hundred.body.data.author).toEqual({ name: times(EMOJI, 100) });
      expect((await create({ author: { name: times(E_ACUTE, 100) } })).status).toBe(201);
      expectInvalid(await create({ author: { name: times(E_ACUTE, 101) } }), /^author\.name: \S/);
      expectInvalid(await create({ author: { name: times(EMOJI, 101) } }), /^author\.name: \S/);
      expectInvalid(await create({ author: { name: '   ' } }), /^author\.name: \S/);
    });

    it('never shows an email, in answers, reads, lists or events', async () => {
      const member = `mia@${ws.slug}.example`;
      await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: 'Mia Member', email: member });
      const created = [
        await create({ author: { name: 'Gwen Guest', email: `gwen@${ws.slug}.example` } }),
        await create({ author: { name: 'Whoever', email: `GWEN@${ws.slug}.example` } }),
        await create({ author: { email: member } }),
        await create({ author: { name: 'Nameonly' } }),
        await create({ title: `Mail me at ${ws.slug} please` }),
      ];
      for (const answer of created) {
        expect(answer.status).toBe(201);
        expect(answer.text).not.toContain('@');
        expect(sortedKeys(answer.body.data.author)).toEqual(['name']);
      }
      for (const answer of created) {
        const read = await api.get(`/api/v1/posts/${answer.body.data.id}`);
        expect(read.status).toBe(200);
        expect(read.text).not.toContain('@');
      }
      const listed = await api.get('/api/v1/posts?limit=100');
      expect(listed.status).toBe(200);
      expect(listed.text).not.toContain('@');
      for (const answer of created) {
        const [event] = await eventsFor(ws.id, 'post.created', answer.body.data.id);
        expect(JSON.stringify(event)).not.toContain('@');
      }
    });
  });

  describe('answer', () => {
    let ws: TestWorkspace;
    let api: Client;

    beforeAll(async () => {
      ws = await newWorkspace();
      api = clientFor(ws);
    });

    it('answers 201 with exactly the fields of a Post, in their starting state', async () => {
      const answer = await api.post('/api/v1/posts', { board: 'ideas', title: 'Dark mode, please!' });
      expect(answer.status).toBe(201);
      expect(sortedKeys(answer.body)).toEqual(['data']);
      const post = answer.body.data;
      expect(sortedKeys(post)).toEqual(POST_FIELDS);
      expect(Number.isSafeInteger(post.id) && post.id > 0).toBe(true);
      expect(sortedKeys(post.board)).toEqual(['id', 'name', 'slug']);
      expect(post.board).toEqual({ id: expect.any(String), slug: 'ideas', name: 'Ideas' });
      expect(post.author).toEqual({ name: ws.member.name });
      expect(post).toMatchObject({
        title: 'Dark mode, please!',
        body: '',
        category: 'feature',
        status: 'open',
        votes: 1,
        comments: 0,
        pinned: false,
        merged_into: null,
      });
      expect(post.url).toBe(`${PUBLIC_BASE_URL}/${ws.slug}/ideas/p/${post.id}-dark-mode-please`);
      expect(post.admin_url).toBe(`${BASE_URL}/admin/p/${post.id}`);
      expect(post.created_at).toMatch(TIMESTAMP);
      expect(post.updated_at).toMatch(TIMESTAMP);
      expect(Date.parse(post.updated_at)).toBeGreaterThanOrEqual(Date.parse(post.created_at));
      expect(Math.abs(Date.parse(post.created_at) - Date.now())).toBeLessThan(60_000);
    });

    it('gives board ids that match GET /api/v1/boards, and posts to private boards too', async () => {
      const boards = (await api.get('/api/v1/boards')).body.data;
      const secret = boards.find((b: any) => b.slug === 'secret');
      const post = await createPost(api, { board: 'secret', title: 'Private thoughts' });
      expect(post.board).toEqual({ id: secret.id, slug: 'secret', name: 'Secret' });
      expect(post.url).toBe(postUrl(ws, 'secret', post.id, 'private-thoughts'));
    });

    it('gives each post its own increasing id', async () => {
      const a = await createPost(api, { title: 'First of two' });
      const b = await createPost(api, { title: 'Second of two' });
      expect(b.id).toBeGreaterThan(a.id);
    });

    it.each([
      ['Top 10 Ideas For 2025', 'top-10-ideas-for-2025'],
      ['  --Hello,   World!!--  ', 'hello-world'],
      ['Café au lait', 'caf-au-lait'],
      ['C++ & C# support?', 'c-c-support'],
      ['Emoji 😀 in the middle', 'emoji-in-the-middle'],
      ['ÀÉÎ 42 ÕÜ', '42'],
    ])('makes the title slug of %j: %s', async (title, slug) => {
      const post = await createPost(api, { title });
      expect(post.url).toBe(postUrl(ws, 'ideas', post.id, slug));
    });

    it('ends the url in /p/<id> when the title slug comes out empty', async () => {
      for (const title of [times(EMOJI, 4), '!!!! ????', times(E_ACUTE, 6)]) {
        const post = await createPost(api, { title });
        expect(post.url).toBe(`${PUBLIC_BASE_URL}/${ws.slug}/ideas/p/${post.id}`);
      }
    });

    it('cuts a long title slug to at most 60 characters with no trailing dash', async () => {
      // 'abcd-' twelve times is 60 characters: the cut ends on a dash, which must go.
      const dashed = await createPost(api, { title: Array(20).fill('Abcd').join(' ') });
      const expectedDashed = Array(12).fill('abcd').join('-');
      expect(dashed.url).toBe(postUrl(ws, 'ideas', dashed.id, expectedDashed));

      const long = await createPost(api, { title: 'x'.repeat(120) });
      expect(long.url).toBe(postUrl(ws, 'ideas', long.id, 'x'.repeat(60)));

      const mixed = await createPost(api, { title: `${'Word '.repeat(9)}Final-part of a long title here` });
      const slug = mixed.url.slice(mixed.url.indexOf(`/p/${mixed.id}-`) + `/p/${mixed.id}-`.length);
      expect(slug.length).toBeLessThanOrEqual(60);
      expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(slug).toBe('word-word-word-word-word-word-word-word-word-final-part-of-a');
    });

    it('writes one post.created event whose data.post is the answer', async () => {
      const answer = await api.post('/api/v1/posts', {
        board: 'ideas',
        title: 'Evented post',
        body: 'Body text',
        category: 'bug',
        author: { name: 'Evan Event', email: `evan@${ws.slug}.example` },
      });
      expect(answer.status).toBe(201);
      const events = await eventsFor(ws.id, 'post.created', answer.body.data.id);
      expect(events).toEqual([{ post: answer.body.data }]);
      expect(await eventsFor(ws.id, 'post.status_changed', answer.body.data.id)).toEqual([]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Request bodies and the error envelope
// ---------------------------------------------------------------------------------------------

describe('request bodies', () => {
  let ws: TestWorkspace;
  let api: Client;
  let post: any;

  beforeAll(async () => {
    ws = await newWorkspace();
    api = clientFor(ws);
    post = await createPost(api, { title: 'Body handling' });
  });

  const send = (method: string, path: string, raw: string | Buffer, contentType = 'application/json') =>
    api.request(method, path, { raw, headers: { 'content-type': contentType } });

  it('answers invalid_json for a body that is not JSON, and creates nothing', async () => {
    const before = await postCount(ws.id);
    for (const raw of ['{"board": "ideas", "title": "Broken"', '{board: ideas}', "{'a': 1}", 'undefined']) {
      expectError(await send('POST', '/api/v1/posts', raw), 400, 'invalid_json');
    }
    expectError(await send('PATCH', `/api/v1/posts/${post.id}`, '{"status": '), 400, 'invalid_json');
    expect(await postCount(ws.id)).toBe(before);
  });

  it('refuses a body that is not JSON by its Content-Type', async () => {
    const before = await postCount(ws.id);
    const raw = JSON.stringify({ board: 'ideas', title: 'Plain text post' });
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'text/json']) {
      expectInvalid(await send('POST', '/api/v1/posts', raw, contentType), 'content-type: must be application/json');
    }
    expectInvalid(
      await send('PATCH', `/api/v1/posts/${post.id}`, '{"status":"done"}', 'text/plain'),
      'content-type: must be application/json',
    );
    expect(await postCount(ws.id)).toBe(before);
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.status).toBe('open');
  });

  it('accepts application/json with a charset and any +json type', async () => {
    const charset = await send(
      'POST',
      '/api/v1/posts',
      JSON.stringify({ board: 'ideas', title: 'Charset post' }),
      'application/json; charset=utf-8',
    );
    expect(charset.status).toBe(201);
    const mergePatch = await send('PATCH', `/api/v1/posts/${post.id}`, '{"status":"planned"}', 'application/merge-patch+json');
    expect(mergePatch.status).toBe(200);
    expect(mergePatch.body.data.status).toBe('planned');
    const vendor = await send(
      'POST',
      '/api/v1/posts',
      JSON.stringify({ board: 'ideas', title: 'Vendor type post' }),
      'application/vnd.chorus+json',
    );
    expect(vendor.status).toBe(201);
  });

  it('answers "body: must be a JSON object" for an array, null, a number or a string', async () => {
    for (const raw of ['[]', '[{"board":"ideas","title":"In an array"}]', 'null', '42', '"text"', 'true']) {
      expectInvalid(await send('POST', '/api/v1/posts', raw), 'body: must be a JSON object');
      expectInvalid(await send('PATCH', `/api/v1/posts/${post.id}`, raw), 'body: must be a JSON object');
    }
  });

  it('answers 413 payload_too_large for a body over 256 KiB', async () => {
    const before = await postCount(ws.id);
    const big = JSON.stringify({ board: 'ideas', title: 'Huge body', body: 'x'.repeat(256 * 1024) });
    expectError(await send('POST', '/api/v1/posts', big), 413, 'payload_too_large');
    expectError(await send('PATCH', `/api/v1/posts/${post.id}`, big), 413, 'payload_too_large');
    expect(await postCount(ws.id)).toBe(before);
    // Just under the limit, the body is read and its fields judged.
    const large = JSON.stringify({ board: 'ideas', title: 'Large body', body: 'x'.repeat(250 * 1024) });
    expectInvalid(await send('POST', '/api/v1/posts', large), /^body: \S/);
  });

  it('gives each error its own Request-Id', async () => {
    const a = await send('POST', '/api/v1/posts', '{');
    const b = await send('POST', '/api/v1/posts', '{');
    expect(a.headers.get('request-id')).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(a.headers.get('request-id')).not.toBe(b.headers.get('request-id'));
  });
});

// ---------------------------------------------------------------------------------------------
// GET /api/v1/posts/{id}
// ---------------------------------------------------------------------------------------------

describe('GET /api/v1/posts/{id}', () => {
  let ws: TestWorkspace;
  let api: Client;
  let post: any;

  beforeAll(async () => {
    ws = await newWorkspace();
    api = clientFor(ws);
    post = await createPost(api, { title: 'Read me back', body: 'Some words', category: 'improvement' });
  });

  it('answers 200 with the same object POST answered', async () => {
    const answer = await api.get(`/api/v1/posts/${post.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: post });
    expect(sortedKeys(answer.body.data)).toEqual(POST_FIELDS);
  });

  it('answers 404 not_found for an unknown id', async () => {
    expectError(await api.get(`/api/v1/posts/${post.id + 1_000_000}`), 404, 'not_found');
  });

  it.each(['0', '-1', 'abc', '1.5', '99999999999999999999', '9007199254740993', '1e3', '0x10', '%20'])(
    'answers 404 not_found for the id %j, on GET, PATCH and merge',
    async (id) => {
      expectError(await api.get(`/api/v1/posts/${id}`), 404, 'not_found');
      expectError(await api.patch(`/api/v1/posts/${id}`, { status: 'done' }), 404, 'not_found');
      expectError(await api.post(`/api/v1/posts/${id}/merge`, { into: post.id }), 404, 'not_found');
    },
  );

  describe('across workspaces', () => {
    let other: TestWorkspace;
    let theirs: any;

    beforeAll(async () => {
      other = await newWorkspace();
      theirs = await createPost(clientFor(other), { title: 'Their post' });
    });

    it("answers 404 for another workspace's post, on every call, and changes nothing there", async () => {
      expectError(await api.get(`/api/v1/posts/${theirs.id}`), 404, 'not_found');
      expectError(await api.patch(`/api/v1/posts/${theirs.id}`, { status: 'closed' }), 404, 'not_found');
      expectError(await api.post(`/api/v1/posts/${theirs.id}/merge`, { into: post.id }), 404, 'not_found');
      expectError(await api.get(`/api/v1/posts/${theirs.id}/comments`), 404, 'not_found');
      expectError(await api.post(`/api/v1/posts/${theirs.id}/comments`, { body: 'Sneaky reply' }), 404, 'not_found');
      // Their post as a merge target is no post of this workspace either.
      expectInvalid(await api.post(`/api/v1/posts/${post.id}/merge`, { into: theirs.id }), /^into: \S/);

      const still = await clientFor(other).get(`/api/v1/posts/${theirs.id}`);
      expect(still.body).toEqual({ data: theirs });
      expect(await statusChangesFor(other.id, theirs.id)).toEqual([]);
      expect(await eventsFor(other.id, 'post.status_changed', theirs.id)).toEqual([]);
      expect(await eventsFor(other.id, 'comment.created', theirs.id)).toEqual([]);
      expect(await countRows('SELECT count(*) FROM comments WHERE post_id = $1', [theirs.id])).toBe(0);
      expect(await api.get(`/api/v1/posts/${post.id}`)).toMatchObject({ body: { data: post } });
    });
  });
});

// ---------------------------------------------------------------------------------------------
// PATCH /api/v1/posts/{id}
// ---------------------------------------------------------------------------------------------

describe('PATCH /api/v1/posts/{id}', () => {
  let ws: TestWorkspace;
  let api: Client;
  /** A second member with a key of their own: changes made with it are theirs. */
  let changer: { id: string; api: Client };

  beforeAll(async () => {
    ws = await newWorkspace();
    api = clientFor(ws);
    const email = `chris@${ws.slug}.example`;
    const person = await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: 'Chris Changer', email });
    const { key } = await t.app.get(ApiKeysService).create(ws.slug, email);
    changer = { id: person.id, api: new Client(t.baseUrl, key) };
  });

  it('changes the status: 200, the new status, a later updated_at, and the rest as it was', async () => {
    const post = await createPost(api, { title: 'Plan this' });
    await sleep(15);
    const answer = await changer.api.patch(`/api/v1/posts/${post.id}`, { status: 'planned' });
    expect(answer.status).toBe(200);
    expect(sortedKeys(answer.body)).toEqual(['data']);
    const changed = answer.body.data;
    expect(changed.status).toBe('planned');
    expect(changed.updated_at).toMatch(TIMESTAMP);
    expect(Date.parse(changed.updated_at)).toBeGreaterThan(Date.parse(post.updated_at));
    expect(changed).toEqual({ ...post, status: 'planned', updated_at: changed.updated_at });
    expect((await api.get(`/api/v1/posts/${post.id}`)).body).toEqual({ data: changed });
  });

  it("records from, to and the key creator's person, and writes post.status_changed", async () => {
    const post = await createPost(api, { title: 'Track this change' });
    const answer = await changer.api.patch(`/api/v1/posts/${post.id}`, { status: 'in_progress' });
    expect(answer.status).toBe(200);
    expect(await statusChangesFor(ws.id, post.id)).toEqual([
      { from_status: 'open', to_status: 'in_progress', changed_by: changer.id },
    ]);
    expect(await eventsFor(ws.id, 'post.status_changed', post.id)).toEqual([
      { post: answer.body.data, previous_status: 'open' },
    ]);

    const byOwner = await api.patch(`/api/v1/posts/${post.id}`, { status: 'done' });
    expect(await statusChangesFor(ws.id, post.id)).toContainEqual({
      from_status: 'in_progress',
      to_status: 'done',
      changed_by: ws.member.id,
    });
    expect(await eventsFor(ws.id, 'post.status_changed', post.id)).toContainEqual({
      post: byOwner.body.data,
      previous_status: 'in_progress',
    });
  });

  it('answers 200 for the same status again, with nothing changed, recorded or sent', async () => {
    const post = await createPost(api, { title: 'Same again' });
    const first = (await api.patch(`/api/v1/posts/${post.id}`, { status: 'done' })).body.data;
    const events = await eventsFor(ws.id, 'post.status_changed', post.id);
    const changes = await statusChangesFor(ws.id, post.id);
    expect(events).toHaveLength(1);
    expect(changes).toHaveLength(1);
    await sleep(15);

    const again = await api.patch(`/api/v1/posts/${post.id}`, { status: 'done' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: first });
    expect(again.body.data.updated_at).toBe(first.updated_at);
    expect(await eventsFor(ws.id, 'post.status_changed', post.id)).toHaveLength(1);
    expect(await statusChangesFor(ws.id, post.id)).toHaveLength(1);

    // A fresh post that is already open: PATCH open changes nothing either.
    const open = await createPost(api, { title: 'Already open' });
    await sleep(15);
    const same = await api.patch(`/api/v1/posts/${open.id}`, { status: 'open' });
    expect(same.status).toBe(200);
    expect(same.body).toEqual({ data: open });
    expect(await eventsFor(ws.id, 'post.status_changed', open.id)).toEqual([]);
  });

  it('lets any status follow any status', async () => {
    const post = await createPost(api, { title: 'Round trip' });
    const path = ['done', 'open', 'closed', 'in_progress', 'planned', 'closed', 'open'];
    let previous = 'open';
    for (const status of path) {
      const answer = await api.patch(`/api/v1/posts/${post.id}`, { status });
      expect(answer.status).toBe(200);
      expect(answer.body.data.status).toBe(status);
      previous = status;
    }
    expect(previous).toBe('open');
    const changes = await statusChangesFor(ws.id, post.id);
    expect(changes.map((c) => `${c.from_status}>${c.to_status}`)).toEqual(
      ['open', ...path].slice(0, -1).map((from, i) => `${from}>${path[i]}`),
    );
    expect(await eventsFor(ws.id, 'post.status_changed', post.id)).toHaveLength(path.length);
    for (const status of STATUSES) expect(path.concat('open')).toContain(status);
  });

  it('refuses an invalid or missing status and unknown fields, and changes nothing', async () => {
    const post = await createPost(api, { title: 'Stay open' });
    for (const status of ['Done', 'archived', 'in progress', '', 5, null, ['done'], { value: 'done' }]) {
      expectInvalid(await api.patch(`/api/v1/posts/${post.id}`, { status }), /^status: \S/);
    }
    expectInvalid(await api.patch(`/api/v1/posts/${post.id}`, {}), 'status: is required');
    expectInvalid(await api.request('PATCH', `/api/v1/posts/${post.id}`), 'status: is required');
    expectInvalid(await api.patch(`/api/v1/posts/${post.id}`, { status: 'done', pinned: true }), 'pinned: is not allowed');
    expectInvalid(await api.patch(`/api/v1/posts/${post.id}`, { title: 'New title' }), /^status: is required; title: is not allowed$/);

    expect((await api.get(`/api/v1/posts/${post.id}`)).body).toEqual({ data: post });
    expect(await statusChangesFor(ws.id, post.id)).toEqual([]);
    expect(await eventsFor(ws.id, 'post.status_changed', post.id)).toEqual([]);
  });

  it('answers 404 for an unknown post', async () => {
    const post = await createPost(api, { title: 'Exists' });
    expectError(await api.patch(`/api/v1/posts/${post.id + 1_000_000}`, { status: 'done' }), 404, 'not_found');
  });
});

// ---------------------------------------------------------------------------------------------
// POST /api/v1/posts/{id}/merge
// ---------------------------------------------------------------------------------------------

describe('posts as the services read them', () => {
  // The API's JSON would look the same with a Date in place of the text (JSON.stringify writes
  // it with toISOString), but the pages and feeds print the text as it is: every read of posts
  // takes ISO_TIMESTAMPS.
  it('carries created_at and updated_at as ISO 8601 text from every read: get, list, similar, and the answer to a create', async () => {
    const ws = await newWorkspace();
    const posts = t.app.get(PostsService);
    const made = await createPost(clientFor(ws), { title: 'Timestamps as text please' });
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
    const read = [
      made,
      await posts.get(ws.actor, made.id),
      ...(await posts.list(ws.actor, { sort: 'new', includeMerged: false, limit: 5, offset: 0 })).data,
      ...(await posts.similar(ws.actor, { board: 'ideas', title: 'Timestamps as text please' })),
    ];
    expect(read.length).toBeGreaterThanOrEqual(4);
    for (const post of read) {
      expect(typeof post.created_at).toBe('string');
      expect(post.created_at).toMatch(iso);
      expect(post.updated_at).toMatch(iso);
    }
  });
});

describe('POST /api/v1/posts/{id}/merge', () => {
  let ws: TestWorkspace;
  let api: Client;
  let posts: PostsService;

  beforeAll(async () => {
    ws = await newWorkspace();
    api = clientFor(ws);
    posts = t.app.get(PostsService);
  });

  const person = (name: string) => t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name });
  const merge = (id: number, body: unknown) => api.post(`/api/v1/posts/${id}/merge`, body);
  const votersOf = async (postId: number): Promise<string[]> =>
    (
      await t.db.query('SELECT person_id FROM votes WHERE workspace_id = $1 AND post_id = $2 ORDER BY person_id', [
        ws.id,
        postId,
      ])
    ).map((row: { person_id: string }) => row.person_id);
  const listedIds = async (query = '') => {
    const answer = await api.get(`/api/v1/posts?limit=100${query}`);
    expect(answer.status).toBe(200);
    return answer.body.data.map((p: any) => p.id);
  };

  describe('a merge', () => {
    let source: any;
    let target: any;
    let answer: Answer;
    let voters: { shared: string; onlySource: string; targetAuthor: string };

    beforeAll(async () => {
      // Source on the public board, by the key creator; target on the private board, by a guest.
      source = await createPost(api, { title: 'Duplicate: export to CSV', body: 'Please' });
      target = await createPost(api, { board: 'secret', title: 'CSV export', author: { name: 'Tara Target' } });
      const shared = await person('Sam Shared');
      const onlySource = await person('Ola Onlysource');
      await posts.vote(ws.actor, source.id, shared.id);
      await posts.vote(ws.actor, source.id, onlySource.id);
      await posts.vote(ws.actor, target.id, shared.id);
      voters = {
        shared: shared.id,
        onlySource: onlySource.id,
        targetAuthor: (await votersOf(target.id)).find((id) => id !== shared.id)!,
      };
      expect((await api.get(`/api/v1/posts/${source.id}`)).body.data.votes).toBe(3);
      target = (await api.get(`/api/v1/posts/${target.id}`)).body.data;
      expect(target.votes).toBe(2);
      await sleep(15);
      answer = await merge(source.id, { into: target.id });
    });

    it('answers 200 with the merged post: closed, merged_into { id, title, url } of the target', async () => {
      expect(answer.status).toBe(200);
      expect(sortedKeys(answer.body)).toEqual(['data']);
      const merged = answer.body.data;
      expect(sortedKeys(merged)).toEqual(POST_FIELDS);
      expect(merged.id).toBe(source.id);
      expect(merged.status).toBe('closed');
      expect(merged.merged_into).toEqual({ id: target.id, title: 'CSV export', url: target.url });
      expect(merged.merged_into.url).toBe(postUrl(ws, 'secret', target.id, 'csv-export'));
      expect(Date.parse(merged.updated_at)).toBeGreaterThan(Date.parse(source.updated_at));
      expect(merged).toMatchObject({ title: source.title, body: source.body, board: source.board, url: source.url });
    });

    it("adds the merged post's voters to the target once per person, and recounts it", async () => {
      const expected = [ws.member.id, voters.shared, voters.onlySource, voters.targetAuthor].sort();
      expect(await votersOf(target.id)).toEqual(expected);
      const now = (await api.get(`/api/v1/posts/${target.id}`)).body.data;
      expect(now.votes).toBe(4); // 2 + 3 would be 5: the shared voter counts once
      expect(now.status).toBe(target.status);
      expect(now.merged_into).toBeNull();
    });

    it('still finds the merged post by id, and hides it from lists unless include_merged=true', async () => {
      const read = await api.get(`/api/v1/posts/${source.id}`);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data: answer.body.data });

      expect(await listedIds()).not.toContain(source.id);
      expect(await listedIds()).toContain(target.id);
      expect(await listedIds('&status=closed')).not.toContain(source.id);
      expect(await listedIds('&include_merged=false')).not.toContain(source.id);
      const all = await listedIds('&include_merged=true');
      expect(all).toContain(source.id);
      expect(all).toContain(target.id);
    });

    it('records the change and sends post.status_changed with previous_status and merged_into', async () => {
      expect(await eventsFor(ws.id, 'post.status_changed', source.id)).toEqual([
        { post: answer.body.data, previous_status: 'open', merged_into: answer.body.data.merged_into },
      ]);
      expect(await statusChangesFor(ws.id, source.id)).toEqual([
        { from_status: 'open', to_status: 'closed', changed_by: ws.member.id },
      ]);
    });

    it('refuses to merge the merged post again, or into it: 400, and changes nothing', async () => {
      const other = await createPost(api, { title: 'Another one' });
      const before = { source: await votersOf(source.id), target: await votersOf(target.id) };
      expectInvalid(await merge(source.id, { into: other.id }), /^\S+: \S/);
      expectInvalid(await merge(source.id, { into: target.id }), /^\S+: \S/);
      expectInvalid(await merge(other.id, { into: source.id }), /^into: \S/);

      expect((await api.get(`/api/v1/posts/${source.id}`)).body).toEqual({ data: answer.body.data });
      expect((await api.get(`/api/v1/posts/${other.id}`)).body).toEqual({ data: other });
      expect({ source: await votersOf(source.id), target: await votersOf(target.id) }).toEqual(before);
      expect(await eventsFor(ws.id, 'post.status_changed', source.id)).toHaveLength(1);
      expect(await eventsFor(ws.id, 'post.status_changed', other.id)).toEqual([]);
    });
  });

  it('sends post.status_changed even when the merged post was already closed', async () => {
    const target = await createPost(api, { title: 'Keep this one' });
    const closed = await createPost(api, { title: 'Closed duplicate' });
    expect((await api.patch(`/api/v1/posts/${closed.id}`, { status: 'closed' })).status).toBe(200);
    const answer = await merge(closed.id, { into: target.id });
    expect(answer.status).toBe(200);
    expect(answer.body.data.status).toBe('closed');
    expect(answer.body.data.merged_into).toEqual({ id: target.id, title: target.title, url: target.url });

    const events = await eventsFor(ws.id, 'post.status_changed', closed.id);
    expect(events).toHaveLength(2);
    expect(events).toContainEqual({
      post: answer.body.data,
      previous_status: 'closed',
      merged_into: { id: target.id, title: target.title, url: target.url },
    });
  });

  it('refuses a merge into itself, an unknown post, or a bad into: 400 invalid_request', async () => {
    const post = await createPost(api, { title: 'Lonely post' });
    expectInvalid(await merge(post.id, { into: post.id }), /^into: \S/);
    expectInvalid(await merge(post.id, { into: post.id + 1_000_000 }), /^into: \S/);
    expectInvalid(await merge(post.id, {}), 'into: is required');
    for (const into of ['abc', String(post.id), 0, -1, 1.5, null, [post.id]]) {
      expectInvalid(await merge(post.id, { into }), /^into: \S/);
    }
    expectInvalid(await merge(post.id, { into: post.id + 1, also: true }), /also: is not allowed/);

    expect((await api.get(`/api/v1/posts/${post.id}`)).body).toEqual({ data: post });
    expect(await eventsFor(ws.id, 'post.status_changed', post.id)).toEqual([]);
    expect(await statusChangesFor(ws.id, post.id)).toEqual([]);
  });

  it('answers 404 when the post to merge does not exist', async () => {
    const post = await createPost(api, { title: 'Real target' });
    expectError(await merge(post.id + 1_000_000, { into: post.id }), 404, 'not_found');
  });
});
