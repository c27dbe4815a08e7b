import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { startTestApp, TestApp } from './support/test-app';
import { QueryValidation } from '../src/common/validation';
import { ListPostsQuery } from '../src/posts/dto/list-posts.query';

// ---------------------------------------------------------------------------------------------
// Helpers

const PUBLIC_BASE_URL = 'https://boards.chorus.test';
const BASE_URL = 'https://chorus.test';


/** The ids of a page, after checking it is a 200 with exactly the listing envelope. */
const ids = (answer: Answer): number[] => {
  expect(answer.status).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(['data', 'has_more', 'next_offset']);
  return answer.body.data.map((p: { id: number }) => p.id);
};

/** Board ids by slug, straight from the database. */
async function boardIds(t: TestApp, ws: TestWorkspace): Promise<Record<string, string>> {
  const rows: { id: string; slug: string }[] = await t.db.query(
    'SELECT id, slug FROM boards WHERE workspace_id = $1',
    [ws.id],
  );
  return Object.fromEntries(rows.map((r) => [r.slug, r.id]));
}

interface SeedPost {
  board: string; // board slug
  title: string;
  body?: string;
  status?: string;
  votes?: number;
  createdAt: Date;
}

interface SeededPost {
  id: number;
  board: string;
  title: string;
  body: string;
  status: string;
  votes: number;
  createdAt: string; // ISO, millisecond precision
}

/** Inserts posts in one multi-row INSERT, authored by the workspace's member. */
async function insertPosts(t: TestApp, ws: TestWorkspace, posts: SeedPost[]): Promise<SeededPost[]> {
  const boards = await boardIds(t, ws);
  const params: unknown[] = [ws.id, ws.member.id];
  const tuples = posts.map((p) => {
    const at = p.createdAt.toISOString();
    params.push(boards[p.board], p.title, p.body ?? '', p.status ?? 'open', p.votes ?? 0, at);
    const n = params.length;
    return `($1, $${n - 5}::uuid, $${n - 4}, $${n - 3}, 'feature', $${n - 2}, $${n - 1}::int, 0, $2::uuid, $${n}::timestamptz, $${n}::timestamptz)`;
  });
  const rows: { id: string }[] = await t.db.query(
    `INSERT INTO posts (workspace_id, board_id, title, body, category, status, votes, comments_count,
                        author_id, created_at, updated_at)
     VALUES ${tuples.join(',\n')} RETURNING id`,
    params,
  );
  // RETURNING gives rows in VALUES order for a plain multi-row INSERT.
  return rows.map((row, i) => ({
    id: Number(row.id),
    board: posts[i].board,
    title: posts[i].title,
    body: posts[i].body ?? '',
    status: posts[i].status ?? 'open',
    votes: posts[i].votes ?? 0,
    createdAt: posts[i].createdAt.toISOString(),
  }));
}

/** The documented total orders, computed independently of the service. */
const byNew = (a: SeededPost, b: SeededPost) =>
  b.createdAt.localeCompare(a.createdAt) || b.id - a.id;
const byTop = (a: SeededPost, b: SeededPost) => b.votes - a.votes || byNew(a, b);
const order = (posts: SeededPost[], sort: 'new' | 'top') =>
  [...posts].sort(sort === 'new' ? byNew : byTop).map((p) => p.id);

/** Walks every page of a listing; checks has_more / next_offset on each page. */
async function walk(api: Client, query: string, limit: number): Promise<number[]> {
  const seen: number[] = [];
  let offset: number | null = 0;
  let pages = 0;
  while (offset !== null) {
    const answer: Answer = await api.get(`/api/v1/posts?${query}&limit=${limit}&offset=${offset}`);
    const page = ids(answer);
    expect(page.length).toBeLessThanOrEqual(limit);
    if (answer.body.has_more) {
      expect(page.length).toBe(limit);
      expect(answer.body.next_offset).toBe(offset + page.length);
    } else {
      expect(answer.body.next_offset).toBeNull();
    }
    seen.push(...page);
    offset = answer.body.next_offset;
    if (++pages > 1000) throw new Error('paging does not end');
  }
  return seen;
}

const at = (base: number, seconds: number) => new Date(base + seconds * 1000);
const T0 = Date.parse('2025-03-01T12:00:00.000Z');

// ---------------------------------------------------------------------------------------------

describe('GET /api/v1/boards', () => {
  let t: TestApp;
  let a: TestWorkspace;
  let b: TestWorkspace;

  beforeAll(async () => {
    t = await startTestApp();
    a = await createWorkspace(t.app);
    b = await createWorkspace(t.app);
    await t.db.query(
      `INSERT INTO boards (workspace_id, slug, name, description, public) VALUES ($1, 'b-only', 'B only', NULL, false)`,
      [b.id],
    );
  });
  afterAll(() => t.close());

  it('lists every board of the workspace, private ones included, with exactly the Board fields', async () => {
    const api = new Client(t.baseUrl, a.key);
    const answer = await api.get('/api/v1/boards');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body)).toEqual(['data']);
    const ids = await boardIds(t, a);
    const boards = [...answer.body.data].sort((x, y) => x.slug.localeCompare(y.slug));
    expect(boards).toEqual([
      {
        id: ids.ideas,
        slug: 'ideas',
        name: 'Ideas',
        description: 'Public ideas',
        public: true,
        url: `${PUBLIC_BASE_URL}/${a.slug}/ideas`,
      },
      {
        id: ids.secret,
        slug: 'secret',
        name: 'Secret',
        description: null,
        public: false,
        url: `${PUBLIC_BASE_URL}/${a.slug}/secret`,
      },
    ]);
    for (const board of boards) expect(Object.keys(board).sort()).toEqual(['description', 'id', 'name', 'public', 'slug', 'url']);
  });

  it("never shows another workspace's boards", async () => {
    const fromA = await new Client(t.baseUrl, a.key).get('/api/v1/boards');
    const fromB = await new Client(t.baseUrl, b.key).get('/api/v1/boards');
    const bIds = Object.values(await boardIds(t, b));
    expect(fromB.body.data.map((x: any) => x.id).sort()).toEqual([...bIds].sort());
    expect(fromB.body.data.map((x: any) => x.slug).sort()).toEqual(['b-only', 'ideas', 'secret']);
    for (const board of fromA.body.data) expect(bIds).not.toContain(board.id);
    expect(fromA.body.data.map((x: any) => x.slug)).not.toContain('b-only');
    for (const board of fromB.body.data) expect(board.url).toBe(`${PUBLIC_BASE_URL}/${b.slug}/${board.slug}`);
  });
});

describe('GET /api/v1/posts: envelope, defaults and offsets', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let posts: SeededPost[];

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
    // 30 posts, each a second apart, inserted oldest last so that id order is not time order.
    posts = await insertPosts(
      t,
      ws,
      Array.from({ length: 30 }, (_, i) => ({
        board: i % 3 === 0 ? 'secret' : 'ideas',
        title: `Post number ${i}`,
        body: `Body ${i}`,
        votes: 30 - i,
        createdAt: at(T0, 100 - i),
      })),
    );
  });
  afterAll(() => t.close());

  it('defaults to limit 25 and sort new, with exactly {data, has_more, next_offset}', async () => {
    const answer = await api.get('/api/v1/posts');
    expect(ids(answer)).toEqual(order(posts, 'new').slice(0, 25));
    expect(answer.body.has_more).toBe(true);
    expect(answer.body.next_offset).toBe(25);
    expect(ids(await api.get('/api/v1/posts?sort=new'))).toEqual(ids(answer));
  });

  it('answers each post with the documented Post fields', async () => {
    const answer = await api.get('/api/v1/posts?limit=1');
    const newest = [...posts].sort(byNew)[0];
    const boards = await boardIds(t, ws);
    expect(answer.body.data).toEqual([
      {
        id: newest.id,
        board: { id: boards[newest.board], slug: newest.board, name: newest.board === 'ideas' ? 'Ideas' : 'Secret' },
        title: newest.title,
        body: newest.body,
        category: 'feature',
        status: 'open',
        votes: newest.votes,
        comments: 0,
        pinned: false,
        merged_into: null,
        moderation: 'approved',
        author: { name: 'Olive Owner' },
        url: `${PUBLIC_BASE_URL}/${ws.slug}/${newest.board}/p/${newest.id}-post-number-0`,
        admin_url: `${BASE_URL}/admin/p/${newest.id}`,
        created_at: newest.createdAt,
        updated_at: newest.createdAt,
      },
    ]);
  });

  it('sets next_offset to offset + data.length while has_more, and null on the last page', async () => {
    const expected = order(posts, 'new');
    let answer = await api.get('/api/v1/posts?offset=3&limit=5');
    expect(ids(answer)).toEqual(expected.slice(3, 8));
    expect(answer.body).toMatchObject({ has_more: true, next_offset: 8 });

    answer = await api.get('/api/v1/posts?offset=25');
    expect(ids(answer)).toEqual(expected.slice(25));
    expect(answer.body).toMatchObject({ has_more: false, next_offset: null });

    answer = await api.get('/api/v1/posts?offset=20&limit=10');
    expect(ids(answer)).toEqual(expected.slice(20, 30));
    expect(answer.body).toMatchObject({ has_more: false, next_offset: null });

    answer = await api.get('/api/v1/posts?offset=20&limit=9');
    expect(ids(answer)).toEqual(expected.slice(20, 29));
    expect(answer.body).toMatchObject({ has_more: true, next_offset: 29 });
  });

  it('answers an offset at or past the end with an empty last page', async () => {
    for (const offset of [30, 31, 1000, 9007199254740991]) {
      const answer = await api.get(`/api/v1/posts?offset=${offset}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: [], has_more: false, next_offset: null });
    }
  });

  it('takes limits 1 and 100 and every integer between', async () => {
    let answer = await api.get('/api/v1/posts?limit=1');
    expect(ids(answer)).toHaveLength(1);
    expect(answer.body).toMatchObject({ has_more: true, next_offset: 1 });
    answer = await api.get('/api/v1/posts?limit=100');
    expect(ids(answer)).toEqual(order(posts, 'new'));
    expect(answer.body).toMatchObject({ has_more: false, next_offset: null });
    expect(ids(await api.get('/api/v1/posts?limit=030'))).toHaveLength(30);
  });

  it('refuses limits outside 1 to 100 and values that are not plain integers', async () => {
    for (const limit of ['0', '101', '1000']) {
      expectError(await api.get(`/api/v1/posts?limit=${limit}`), 400, 'invalid_request', 'limit: must be an integer from 1 to 100');
    }
    for (const limit of ['abc', '1.5', '-1', '', '1e2', '%205', '5%20', '0x10', '+5', '5&limit=6']) {
      expectError(await api.get(`/api/v1/posts?limit=${limit}`), 400, 'invalid_request', /^limit: /);
    }
  });

  it('refuses a negative or non-numeric offset', async () => {
    for (const offset of ['-1', 'x', '1.5', '', '1e3']) {
      expectError(await api.get(`/api/v1/posts?offset=${offset}`), 400, 'invalid_request', /^offset: /);
    }
  });

  it('refuses malformed status, sort and include_merged, naming the field', async () => {
    const cases: [string, string[]][] = [
      ['status', ['bogus', 'OPEN', 'in-progress', 'merged', '']],
      ['sort', ['old', 'NEW', 'Top', 'votes', '']],
      ['include_merged', ['yes', 'TRUE', '1', 'False', '0', '']],
    ];
    for (const [field, values] of cases) {
      for (const value of values) {
        const answer = await api.get(`/api/v1/posts?${field}=${encodeURIComponent(value)}`);
        expectError(answer, 400, 'invalid_request', new RegExp(`^${field}: `));
      }
    }
  });

  it('refuses q longer than 200 characters, counted after trimming', async () => {
    const long = 'a'.repeat(201);
    expectError(await api.get(`/api/v1/posts?q=${long}`), 400, 'invalid_request', /^q: /);
    expect((await api.get(`/api/v1/posts?q=${'a'.repeat(200)}`)).status).toBe(200);
    expect((await api.get(`/api/v1/posts?q=${encodeURIComponent(` ${'a'.repeat(200)}  `)}`)).status).toBe(200);
    expect((await api.get(`/api/v1/posts?q=${encodeURIComponent('é'.repeat(200))}`)).status).toBe(200);
  });

  it('answers a query the same each time it comes, refusals included (outcomes are remembered per query)', async () => {
    const expected = order(posts, 'new');
    for (let round = 0; round < 3; round++) {
      expect(ids(await api.get('/api/v1/posts?limit=2'))).toEqual(expected.slice(0, 2));
      expectError(await api.get('/api/v1/posts?limit=0'), 400, 'invalid_request', 'limit: must be an integer from 1 to 100');
      expect(ids(await api.get('/api/v1/posts?limit=3'))).toEqual(expected.slice(0, 3));
      expect(ids(await api.get('/api/v1/posts?limit=2&offset=2'))).toEqual(expected.slice(2, 4));
      expectError(await api.get('/api/v1/posts?limit=2&status=bogus'), 400, 'invalid_request', /^status: /);
      expectError(await api.get('/api/v1/posts?q=%00'), 400, 'invalid_request', 'q: must not contain NUL characters');
      // Another query class with the same parameters: a deliveries page is validated on its own.
      expectError(await api.get('/api/v1/deliveries?limit=0'), 400, 'invalid_request', 'limit: must be an integer from 1 to 100');
    }
    // Past the 1,000 remembered queries (straight through the pipe: the plan's rate limit would
    // refuse that many requests), the oldest are validated afresh, with the same outcome.
    const metadata = { type: 'query' as const, metatype: ListPostsQuery };
    for (let offset = 0; offset < 1_050; offset++) {
      expect(await QueryValidation.transform({ offset: String(offset), q: ` term ${offset} ` }, metadata)).toEqual(
        Object.assign(new ListPostsQuery(), { offset: String(offset), q: `term ${offset}` }),
      );
    }
    expect(ids(await api.get('/api/v1/posts?limit=2'))).toEqual(expected.slice(0, 2));
    expectError(await api.get('/api/v1/posts?limit=0'), 400, 'invalid_request', 'limit: must be an integer from 1 to 100');
  });

  it('ignores unknown query parameters', async () => {
    const answer = await api.get('/api/v1/posts?limit=2&foo=bar&page=7&per_page=1');
    expect(ids(answer)).toEqual(order(posts, 'new').slice(0, 2));
  });

  it('answers 404 not_found for an unknown board slug', async () => {
    expectError(await api.get('/api/v1/posts?board=nope'), 404, 'not_found');
    expectError(await api.get('/api/v1/posts?board=IDEAS'), 404, 'not_found');
  });
});

describe('GET /api/v1/posts: filters', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let posts: SeededPost[];

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
    const statuses = ['open', 'planned', 'in_progress', 'done', 'closed'];
    posts = await insertPosts(
      t,
      ws,
      Array.from({ length: 20 }, (_, i) => ({
        board: i % 2 === 0 ? 'ideas' : 'secret',
        title: `Filtered post ${i}`,
        status: statuses[i % 5],
        votes: i % 4,
        createdAt: at(T0, i % 6),
      })),
    );
  });
  afterAll(() => t.close());

  const expected = (sort: 'new' | 'top', keep: (p: SeededPost) => boolean) => order(posts.filter(keep), sort);

  it('filters by board, private boards included', async () => {
    expect(ids(await api.get('/api/v1/posts?board=ideas'))).toEqual(expected('new', (p) => p.board === 'ideas'));
    expect(ids(await api.get('/api/v1/posts?board=secret&sort=top'))).toEqual(
      expected('top', (p) => p.board === 'secret'),
    );
  });

  it('filters by each status', async () => {
    for (const status of ['open', 'planned', 'in_progress', 'done', 'closed']) {
      const answer = await api.get(`/api/v1/posts?status=${status}`);
      expect(ids(answer)).toEqual(expected('new', (p) => p.status === status));
      for (const post of answer.body.data) expect(post.status).toBe(status);
    }
  });

  it('combines board and status, under both sorts', async () => {
    for (const sort of ['new', 'top'] as const) {
      const answer = await api.get(`/api/v1/posts?board=ideas&status=open&sort=${sort}`);
      const want = expected(sort, (p) => p.board === 'ideas' && p.status === 'open');
      expect(want.length).toBeGreaterThan(1);
      expect(ids(answer)).toEqual(want);
    }
    expect(ids(await api.get('/api/v1/posts?board=ideas&status=planned'))).toEqual(
      expected('new', (p) => p.board === 'ideas' && p.status === 'planned'),
    );
  });

  it('pages through a filtered listing', async () => {
    const want = expected('top', (p) => p.board === 'secret');
    expect(await walk(api, 'board=secret&sort=top', 3)).toEqual(want);
  });
});

describe('GET /api/v1/posts: paging a few hundred posts with ties', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let posts: SeededPost[];

  beforeAll(async () => {
    t = await startTestApp();
    // Around 80 requests: on the business plan, well inside its rate limit.
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
    // 250 posts: 25 distinct timestamps (groups of 10 posts share one), assigned out of id
    // order, and only 6 distinct vote counts, so both tie-breaks decide many positions.
    posts = await insertPosts(
      t,
      ws,
      Array.from({ length: 250 }, (_, i) => ({
        board: i % 4 === 0 ? 'secret' : 'ideas',
        title: `Paged post ${i}`,
        votes: (i * 7) % 6,
        createdAt: at(T0, ((i * 11) % 25) * 60),
      })),
    );
  });
  afterAll(() => t.close());

  it('has real ties in votes and in created_at', () => {
    expect(new Set(posts.map((p) => p.createdAt)).size).toBe(25);
    expect(new Set(posts.map((p) => p.votes)).size).toBe(6);
    const sameTime = posts.filter((p) => p.createdAt === posts[0].createdAt);
    expect(sameTime).toHaveLength(10);
    // Every tie-break changes the expected order: a listing that skipped one would fail.
    const idsBy = (cmp: (a: SeededPost, b: SeededPost) => number) => [...posts].sort(cmp).map((p) => p.id);
    expect(order(posts, 'new')).not.toEqual(idsBy((a, b) => b.id - a.id));
    expect(order(posts, 'new')).not.toEqual(idsBy((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id - b.id));
    expect(order(posts, 'top')).not.toEqual(idsBy((a, b) => b.votes - a.votes || b.id - a.id));
    expect(order(posts, 'top')).not.toEqual(
      idsBy((a, b) => b.votes - a.votes || b.createdAt.localeCompare(a.createdAt) || a.id - b.id),
    );
  });

  for (const sort of ['new', 'top'] as const) {
    for (const limit of [7, 100]) {
      it(`sees each post exactly once, in the documented order, under sort=${sort} with limit ${limit}`, async () => {
        const seen = await walk(api, `sort=${sort}`, limit);
        expect(seen).toHaveLength(250);
        expect(new Set(seen).size).toBe(250);
        expect(seen).toEqual(order(posts, sort));
      });
    }
  }

  it('gives the same page for the same offset whatever the limit', async () => {
    const a = ids(await api.get('/api/v1/posts?sort=top&offset=93&limit=7'));
    const b = ids(await api.get('/api/v1/posts?sort=top&offset=90&limit=13'));
    expect(b.slice(3, 10)).toEqual(a);
  });
});

describe('GET /api/v1/posts: workspace isolation', () => {
  let t: TestApp;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let aPosts: SeededPost[];
  let bPosts: SeededPost[];

  beforeAll(async () => {
    t = await startTestApp();
    a = await createWorkspace(t.app);
    b = await createWorkspace(t.app);
    await t.db.query(`INSERT INTO boards (workspace_id, slug, name) VALUES ($1, 'b-only', 'B only')`, [b.id]);
    const seed = (board: string, who: string) =>
      Array.from({ length: 6 }, (_, i) => ({
        board,
        title: `Zebra ${who} ${i}`,
        body: 'striped shared words',
        status: i % 2 ? 'planned' : 'open',
        votes: 100, // b's posts would come first under top if they leaked
        createdAt: at(T0, i),
      }));
    aPosts = await insertPosts(t, a, [...seed('ideas', 'alpha'), ...seed('secret', 'alpha')]);
    // B's posts are newer and more voted: any leak would show on the first page.
    bPosts = await insertPosts(t, b, [
      ...seed('ideas', 'bravo').map((p) => ({ ...p, votes: 1000, createdAt: at(T0, 3600) })),
      ...seed('b-only', 'bravo').map((p) => ({ ...p, votes: 1000, createdAt: at(T0, 3600) })),
    ]);
  });
  afterAll(() => t.close());

  it("never lists another workspace's posts, with or without filters and q", async () => {
    const api = new Client(t.baseUrl, a.key);
    const aIds = new Set(aPosts.map((p) => p.id));
    const queries = [
      '',
      'sort=top',
      'board=ideas',
      'board=secret&sort=top',
      'status=planned',
      'q=zebra',
      'q=striped%20shared',
      'q=zebra&board=ideas&status=open&sort=top',
      'include_merged=true',
      'q=alpha',
    ];
    for (const query of queries) {
      const answer = await api.get(`/api/v1/posts?limit=100&${query}`);
      const seen = ids(answer);
      expect(seen.length).toBeGreaterThan(0);
      for (const id of seen) expect(aIds).toContain(id);
    }
    expect(ids(await api.get('/api/v1/posts?limit=100'))).toEqual(order(aPosts, 'new'));
    expect(ids(await api.get('/api/v1/posts?limit=100&q=zebra%20bravo'))).toEqual([]);
    expect(ids(await api.get('/api/v1/posts?limit=100&q=bravo&include_merged=true'))).toEqual([]);
    // And B sees only its own.
    const fromB = ids(await new Client(t.baseUrl, b.key).get('/api/v1/posts?limit=100&q=zebra'));
    expect(fromB).toEqual(order(bPosts, 'new'));
  });

  it("answers 404 when A asks for a board slug only B has", async () => {
    const api = new Client(t.baseUrl, a.key);
    expectError(await api.get('/api/v1/posts?board=b-only'), 404, 'not_found');
    expectError(await api.get('/api/v1/posts?board=b-only&q=zebra&sort=top'), 404, 'not_found');
  });
});

describe('GET /api/v1/posts: search with q', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let posts: SeededPost[];
  const byTitle = (title: string) => posts.find((p) => p.title === title)!.id;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
    posts = await insertPosts(t, ws, [
      { board: 'ideas', title: 'Éclair support', body: 'pastry please', votes: 3, createdAt: at(T0, 1) },
      { board: 'secret', title: 'Plain title', body: 'Mentions the ÉCLAIR in capitals', votes: 3, createdAt: at(T0, 2) },
      { board: 'ideas', title: 'Dark mode', body: 'easier on the eyes', status: 'planned', votes: 5, createdAt: at(T0, 3) },
      { board: 'ideas', title: 'Dark theme', body: 'a night palette', votes: 9, createdAt: at(T0, 3) },
      { board: 'secret', title: 'DARK sidebar', body: 'needs a MODE toggle', status: 'planned', votes: 5, createdAt: at(T0, 3) },
      { board: 'ideas', title: 'Export 100% done', body: 'finished', votes: 1, createdAt: at(T0, 4) },
      { board: 'ideas', title: 'Export 100 done', body: 'not a percent', votes: 1, createdAt: at(T0, 5) },
      { board: 'ideas', title: 'Rename a_b field', body: '', votes: 2, createdAt: at(T0, 6) },
      { board: 'ideas', title: 'Rename axb field', body: '', votes: 2, createdAt: at(T0, 7) },
      { board: 'secret', title: 'Windows path', body: 'store under C:\\dir please', votes: 0, createdAt: at(T0, 8) },
      { board: 'secret', title: 'Unix path', body: 'store under C:dir please', votes: 0, createdAt: at(T0, 9) },
      { board: 'secret', title: 'Another path', body: 'store under C:/dir please', votes: 0, createdAt: at(T0, 9) },
    ]);
  });
  afterAll(() => t.close());

  const search = async (query: string) => ids(await api.get(`/api/v1/posts?limit=100&${query}`));
  const q = (text: string, extra = '') => search(`q=${encodeURIComponent(text)}${extra}`);
  const sorted = (titles: string[], sort: 'new' | 'top' = 'new') =>
    order(posts.filter((p) => titles.includes(p.title)), sort);

  it('matches case-insensitively, non-ASCII letters included, in title or body', async () => {
    const both = sorted(['Éclair support', 'Plain title']);
    expect(await q('éclair')).toEqual(both);
    expect(await q('ÉCLAIR')).toEqual(both);
    expect(await q('Éclair')).toEqual(both);
    expect(await q('eclair')).toEqual([]);
    expect(await q('dark')).toEqual(sorted(['Dark mode', 'Dark theme', 'DARK sidebar']));
  });

  it('needs every term to match (AND), in the title or the body', async () => {
    // 'DARK sidebar' has dark in its title and mode in its body.
    expect(await q('dark mode')).toEqual(sorted(['Dark mode', 'DARK sidebar']));
    expect(await q('MODE dark')).toEqual(sorted(['Dark mode', 'DARK sidebar']));
    expect(await q('dark night')).toEqual(sorted(['Dark theme']));
    expect(await q('dark mode palette')).toEqual([]);
    expect(await q('dark   \t  mode')).toEqual(sorted(['Dark mode', 'DARK sidebar']));
  });

  it('trims q, and an empty or blank q filters nothing', async () => {
    expect(await q('  dark  ')).toEqual(await q('dark'));
    const all = order(posts, 'new');
    expect(await search('q=')).toEqual(all);
    expect(await q('   ')).toEqual(all);
    expect(await q(' \t ')).toEqual(all);
  });

  it('matches %, _ and \\ literally', async () => {
    expect(await q('100%')).toEqual(sorted(['Export 100% done']));
    expect(await q('100')).toEqual(sorted(['Export 100% done', 'Export 100 done']));
    expect(await q('%')).toEqual(sorted(['Export 100% done']));
    expect(await q('a_b')).toEqual(sorted(['Rename a_b field']));
    expect(await q('_')).toEqual(sorted(['Rename a_b field']));
    expect(await q('C:\\dir')).toEqual(sorted(['Windows path']));
    expect(await q('\\')).toEqual(sorted(['Windows path']));
    expect(await q('C:dir')).toEqual(sorted(['Unix path']));
  });

  it('combines with board and status filters under both sorts', async () => {
    for (const sort of ['new', 'top'] as const) {
      expect(await q('dark', `&sort=${sort}`)).toEqual(sorted(['Dark mode', 'Dark theme', 'DARK sidebar'], sort));
      expect(await q('dark', `&board=ideas&sort=${sort}`)).toEqual(sorted(['Dark mode', 'Dark theme'], sort));
      expect(await q('dark', `&status=planned&sort=${sort}`)).toEqual(sorted(['Dark mode', 'DARK sidebar'], sort));
      expect(await q('dark', `&board=secret&status=planned&sort=${sort}`)).toEqual(sorted(['DARK sidebar'], sort));
      expect(await q('dark', `&board=secret&status=open&sort=${sort}`)).toEqual([]);
      expect(await q('path', `&board=secret&sort=${sort}`)).toEqual(
        sorted(['Windows path', 'Unix path', 'Another path'], sort),
      );
    }
    // Ties in votes and created_at among the dark posts: top is votes, then created_at, then id.
    expect(await q('dark', '&sort=top')).toEqual([
      byTitle('Dark theme'),
      ...[byTitle('Dark mode'), byTitle('DARK sidebar')].sort((x, y) => y - x),
    ]);
  });

  it('matches terms of one and two characters inside words, ignoring case', async () => {
    expect(await q('éC')).toEqual(sorted(['Éclair support', 'Plain title']));
    expect(await q('XB')).toEqual(sorted(['Rename axb field']));
    expect(await q('k s')).toEqual(sorted(['Dark mode', 'DARK sidebar']));
    expect(await q('xb a_b')).toEqual([]);
    expect(await q('É dark')).toEqual([]);
  });

  it('finds a match older than the newest thousand posts, frequent terms among the newest too', async () => {
    const big = await createWorkspace(t.app, { plan: 'business' });
    const [board] = Object.values(await boardIds(t, big));
    // 1,200 posts, one minute apart; only the oldest holds "needle" and "q9".
    await t.db.query(
      `INSERT INTO posts (workspace_id, board_id, title, body, author_id, created_at, updated_at)
       SELECT $1, $2, 'Haystack ' || g, CASE WHEN g = 1 THEN 'a needle q9' ELSE 'straw' END, $3,
              now() - (1200 - g) * interval '1 minute', now() - (1200 - g) * interval '1 minute'
         FROM generate_series(1, 1200) g`,
      [big.id, board, big.member.id],
    );
    const bigApi = new Client(t.baseUrl, big.key);
    const titles = async (query: string) =>
      (await bigApi.get(`/api/v1/posts?${query}`)).body.data.map((p: { title: string }) => p.title);
    expect(await titles('q=needle')).toEqual(['Haystack 1']);
    expect(await titles('q=Q9')).toEqual(['Haystack 1']);
    expect(await titles('q=straw&limit=2')).toEqual(['Haystack 1200', 'Haystack 1199']);
    const deep = await bigApi.get('/api/v1/posts?q=haystack&limit=100&offset=1100');
    expect(deep.body.data.map((p: { title: string }) => p.title)).toEqual(
      Array.from({ length: 100 }, (_, i) => `Haystack ${100 - i}`),
    );
    expect(deep.body.has_more).toBe(false);
    // A deep page of a frequent term: the walk in order goes as deep as the page needs.
    const frequent = await bigApi.get('/api/v1/posts?q=straw&limit=100&offset=1000');
    expect(frequent.body.data.map((p: { title: string }) => p.title)).toEqual(
      Array.from({ length: 100 }, (_, i) => `Haystack ${200 - i}`),
    );
    expect(frequent.body).toMatchObject({ has_more: true, next_offset: 1100 });
  });

  it('pages a search', async () => {
    expect(await walk(api, 'q=path&sort=top', 1)).toEqual(sorted(['Windows path', 'Unix path', 'Another path'], 'top'));
  });

  it('finds exactly the posts that hold every term, ignoring case, whatever the terms (the search keys miss none)', async () => {
    // Random texts over a small alphabet (so that pieces repeat), with non-ASCII letters,
    // digits and the LIKE characters; terms of 1 to 7 characters cut from them, with their
    // case changed, or not found anywhere. Fewer than a thousand posts and a page of 100: the
    // newest posts fill no page of a search that matches at most 100, which the query on the
    // search keys answers (WorkspaceSearchKeys).
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = <T>(xs: T[]): T => xs[Math.floor(random() * xs.length)];
    const pieces = ['ka', 'ro', 'é', 'Ém', 'ß', 'x', 'q', '7', '%', '_', '\\', ':', '-', 'nu', 'ti', 'Lo', 'ZE', '.'];
    const word = () => Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(pieces)).join('');
    const words = (min: number, max: number) => Array.from({ length: min + Math.floor(random() * (max - min + 1)) }, word);
    const mine = await createWorkspace(t.app, { plan: 'business' });
    const other = await createWorkspace(t.app, { plan: 'business' });
    const texts = Array.from({ length: 300 }, (_, i) => ({
      board: 'ideas',
      title: words(1, 4).join(' '),
      body: words(0, 10).join(i % 7 ? ' ' : ' \t\n '),
      createdAt: at(T0, i),
    }));
    const seeded = await insertPosts(t, mine, texts);
    // The same texts in another workspace, newer: none of them may show.
    await insertPosts(t, other, texts.map((p) => ({ ...p, createdAt: at(T0, 10_000) })));
    const flip = (s: string) => [...s].map((c) => (random() < 0.5 ? c : c === 'ß' ? c : c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
    const cut = () => {
      const post = pick(seeded);
      const token = pick(`${post.title} ${post.body}`.split(/\s+/).filter(Boolean));
      const length = 1 + Math.floor(random() * 7);
      const from = Math.floor(random() * Math.max(1, token.length - length + 1));
      return flip(token.slice(from, from + length));
    };
    const queries = [
      ...Array.from({ length: 60 }, cut),
      ...Array.from({ length: 20 }, () => `${cut()} ${cut()}`),
      ...Array.from({ length: 10 }, () => `${word()}${word()}${word()}`),
      'é', 'É', 'ß', 'ss', '\\', '%_', 'ka ka', 'zzzz',
    ];
    const mineApi = new Client(t.baseUrl, mine.key);
    let viaKeys = 0;
    for (const query of queries) {
      const terms = query.split(/\s+/).filter(Boolean).map((term) => term.toLowerCase());
      const expected = order(seeded.filter((p) => terms.every((term) => `${p.title} ${p.body}`.toLowerCase().includes(term))), 'new');
      const answer = await mineApi.get(`/api/v1/posts?limit=100&q=${encodeURIComponent(query)}`);
      expect({ query, ids: ids(answer) }).toEqual({ query, ids: expected.slice(0, 100) });
      if (expected.length <= 100) viaKeys++;
    }
    expect(viaKeys).toBeGreaterThan(60);
  });
});

describe('GET /api/v1/posts: include_merged', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  it('hides merged posts by default and shows them with include_merged=true', async () => {
    const create = async (title: string, board = 'ideas') => {
      const answer = await api.post('/api/v1/posts', { board, title });
      expect(answer.status).toBe(201);
      return answer.body.data;
    };
    const target = await create('Merge target post');
    const source = await create('Duplicate of the target', 'secret');
    const other = await create('Unrelated post');

    const merged = await api.post(`/api/v1/posts/${source.id}/merge`, { into: target.id });
    expect(merged.status).toBe(200);
    expect(merged.body.data.merged_into).toEqual({ id: target.id, title: target.title, url: target.url });

    const listed = async (query: string) => {
      const answer = await api.get(`/api/v1/posts?${query}`);
      return new Set(ids(answer));
    };
    for (const query of ['', 'include_merged=false', 'board=secret', 'q=duplicate', 'status=closed', 'sort=top']) {
      const seen = await listed(query);
      expect(seen.has(source.id)).toBe(false);
    }
    expect([...(await listed(''))].sort()).toEqual([target.id, other.id].sort());

    for (const query of ['include_merged=true', 'include_merged=true&board=secret', 'include_merged=true&q=duplicate', 'include_merged=true&status=closed&sort=top']) {
      expect((await listed(query)).has(source.id)).toBe(true);
    }
    const all = await api.get('/api/v1/posts?include_merged=true');
    expect(ids(all)).toHaveLength(3);
    const shown = all.body.data.find((p: any) => p.id === source.id);
    expect(shown).toMatchObject({ status: 'closed', merged_into: { id: target.id } });
    expect(all.body.data.find((p: any) => p.id === target.id).merged_into).toBeNull();

    // GET by id still finds a merged post.
    const one = await api.get(`/api/v1/posts/${source.id}`);
    expect(one.status).toBe(200);
    expect(one.body.data.merged_into).toEqual({ id: target.id, title: target.title, url: target.url });
  });
});
