import type { Browser, BrowserContext } from 'playwright-core';
import { randomUUID } from 'node:crypto';
import { BoardsService } from '../src/boards/boards.service';
import { Database } from '../src/database/sql';
import { SIMILAR_SAMPLE } from '../src/posts/posts.store';
import { axeViolations, describeInBrowser, startBrowserTest } from './support/browser';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { DASHBOARD_ORIGIN, formToken, pageText, signedInMember, ssoSigner, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';

// Similar posts (issue 32): GET /api/v1/posts/similar, the public site's "Similar posts" step
// before a new post (JavaScript off), and the dashboard's merge suggestions.

const POST_FIELDS = [
  'admin_url', 'author', 'board', 'body', 'category', 'comments', 'created_at', 'id', 'merged_into',
  'moderation', 'pinned', 'status', 'title', 'updated_at', 'url', 'votes',
];

describe('similar posts', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  async function post(title: string, fields: Record<string, unknown> = {}, client = api) {
    const answer = await client.post('/api/v1/posts', { board: 'ideas', title, ...fields });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }
  const similar = (query: Record<string, string>, client = api) => client.get(`/api/v1/posts/similar?${new URLSearchParams(query)}`);
  const titles = (answer: { body: { data: { title: string }[] } }) => answer.body.data.map((p) => p.title);

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app, { plan: 'business' });
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t?.close());

  it('the words index calls nothing outside pg_catalog: PostgreSQL 17 and later, and PGlite (18), build and analyze indexes with only it on the search path', async () => {
    const keys = await t.app.get(Database).transaction(async (tx) => {
      await tx.rows(`SELECT set_config('search_path', 'pg_catalog, pg_temp', true)`);
      return tx.rows<{ keys: string[] }>(`SELECT public.chorus_title_word_keys($1::uuid, $1::uuid, 'Dark mode, please! dark') AS keys`, [randomUUID()]);
    });
    expect(keys[0].keys).toHaveLength(3);
  });

  describe('GET /api/v1/posts/similar', () => {
    let board: string;
    beforeAll(async () => {
      board = `rank-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(ws.slug, { slug: board, name: 'Ranking' });
      for (const title of [
        'Dark mode',
        'Add a dark mode to the dashboard',
        'Dark theme for the editor',
        'Export to CSV',
        'CSV export of votes',
        'Slack integration',
        'Integrate with Slack',
        'Mobile app for Android',
      ]) {
        await post(title, { board });
      }
    });

    it('answers the board\'s posts most like the title, best first, with their similarity, none under 0.3', async () => {
      const answer = await similar({ board, title: 'Dark mode please' });
      expect(answer.status).toBe(200);
      expect(Object.keys(answer.body)).toEqual(['data']);
      expect(titles(answer)[0]).toBe('Dark mode');
      expect(titles(answer)).not.toContain('Export to CSV');
      expect(titles(answer)).not.toContain('Slack integration');
      const scores = answer.body.data.map((p: { similarity: number }) => p.similarity);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      for (const p of answer.body.data) {
        expect(Object.keys(p).sort()).toEqual([...POST_FIELDS, 'similarity'].sort());
        expect(p.similarity).toBeGreaterThanOrEqual(0.3);
        expect(p.similarity).toBeLessThanOrEqual(1);
        expect(p.board.slug).toBe(board);
      }

      expect(titles(await similar({ board, title: 'export csv' }))).toEqual(['Export to CSV', 'CSV export of votes']);
      expect(titles(await similar({ board, title: 'Slack integration for notifications' }))).toEqual(['Slack integration', 'Integrate with Slack']);
      // Case and punctuation do not count; the same title is 1.
      const same = await similar({ board, title: '  MOBILE app, for android!  ' });
      expect(same.body.data.map((p: { title: string; similarity: number }) => [p.title, p.similarity])).toEqual([['Mobile app for Android', 1]]);
      expect((await similar({ board, title: 'Quarterly invoices in PDF' })).body).toEqual({ data: [] });
    });

    it('answers at most 5', async () => {
      const many = `many-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(ws.slug, { slug: many, name: 'Many' });
      for (let i = 1; i <= 7; i++) await post(`Calendar sync with Google ${i}`, { board: many });
      const answer = await similar({ board: many, title: 'Calendar sync with Google' });
      expect(answer.body.data).toHaveLength(5);
    });

    it('on a board of more posts than its sample of the newest: an older post by its rarer words, the newest for frequent words', async () => {
      const big = `big-${Date.now().toString(36)}`;
      const other = `bigother-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(ws.slug, { slug: big, name: 'Big' });
      await t.app.get(BoardsService).create(ws.slug, { slug: other, name: 'Big other' });
      const boardId = async (slug: string) =>
        ((await t.db.query(`SELECT id FROM boards WHERE workspace_id = $1 AND slug = $2`, [ws.id, slug]))[0] as { id: string }).id;
      const [bigId, otherId] = [await boardId(big), await boardId(other)];
      const newer = SIMILAR_SAMPLE + 100;
      // Older than every post of the sample (the board's SIMILAR_SAMPLE newest): the post to
      // find, and look-alikes that stay out (rejected, held, merged, on another board).
      const old = async (title: string, board: string, moderation = 'approved', mergedInto: number | null = null) =>
        Number(
          (
            (await t.db.query(
              `INSERT INTO posts (workspace_id, board_id, title, author_id, moderation, merged_into_id, created_at, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, now() - interval '1 day', now() - interval '1 day') RETURNING id`,
              [ws.id, board, title, ws.member.id, moderation, mergedInto],
            )) as { id: string }[]
          )[0].id,
        );
      const kept = await old('Zeppelin hangar door sensors', bigId);
      await old('Zeppelin hangar door sensor', bigId, 'rejected');
      await old('Zeppelin hangar doors sensors', bigId, 'pending');
      await old('Zeppelin hangar door sensors!', bigId, 'approved', kept);
      await old('Zeppelin hangar door sensor', otherId);
      await t.db.query(
        `INSERT INTO posts (workspace_id, board_id, title, author_id, created_at, updated_at)
         SELECT $1, $2, 'Faster export of the weekly report ' || g, $3, now() - ($4 - g) * interval '1 second', now() - ($4 - g) * interval '1 second'
           FROM generate_series(1, $4::int) g`,
        [ws.id, bigId, ws.member.id, newer],
      );

      const found = await similar({ board: big, title: 'Zeppelin hangar door sensor' });
      expect(found.body.data.map((p: { id: number }) => p.id)).toEqual([kept]);
      // Only frequent words: the newest posts that hold them, best first.
      const frequent = await similar({ board: big, title: 'Faster export of the weekly report' });
      expect(frequent.body.data).toHaveLength(5);
      for (const p of frequent.body.data) {
        expect(p.title).toMatch(/^Faster export of the weekly report \d+$/);
        expect(p.similarity).toBeGreaterThanOrEqual(0.3);
      }
      expect(titles(await similar({ board: big, title: 'Quarterly invoices in PDF' }))).toEqual([]);
    });

    it('only the posts of that board of that workspace, approved and not merged', async () => {
      const scoped = `scope-${Date.now().toString(36)}`;
      const other = `other-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(ws.slug, { slug: scoped, name: 'Scoped' });
      await t.app.get(BoardsService).create(ws.slug, { slug: other, name: 'Other' });
      const kept = await post('Webhook retries with backoff', { board: scoped });
      await post('Webhook retries with backoffs', { board: other });
      const elsewhere = await createWorkspace(t.app, { plan: 'business' });
      await t.app.get(BoardsService).create(elsewhere.slug, { slug: scoped, name: 'Scoped' });
      await post('Webhook retries with backoff!', { board: scoped }, new Client(t.baseUrl, elsewhere.key));

      const merged = await post('Webhook retry with backoff', { board: scoped });
      expect((await api.post(`/api/v1/posts/${merged.id}/merge`, { into: kept.id })).status).toBe(200);
      const rejected = await post('Webhook retries and backoff', { board: scoped });
      expect((await api.post(`/api/v1/posts/${rejected.id}/reject`, {})).status).toBe(200);
      const pending = await post('Webhooks retries with backoff', { board: scoped });
      await t.db.query(`UPDATE posts SET moderation = 'pending' WHERE workspace_id = $1 AND id = $2`, [ws.id, pending.id]);

      const answer = await similar({ board: scoped, title: 'Webhook retries with backoff' });
      expect(answer.body.data.map((p: { id: number }) => p.id)).toEqual([kept.id]);

      // Approving the pending one lists it.
      expect((await api.post(`/api/v1/posts/${pending.id}/approve`, {})).status).toBe(200);
      expect((await similar({ board: scoped, title: 'Webhook retries with backoff' })).body.data.map((p: { id: number }) => p.id)).toEqual([kept.id, pending.id]);
    });

    it('400 without board or title, 404 for a board the workspace does not have', async () => {
      expectError(await similar({ title: 'Dark mode' }), 400, 'invalid_request', 'board: is required');
      expectError(await similar({ board: 'ideas' }), 400, 'invalid_request', 'title: is required');
      expectError(await similar({ board: 'ideas', title: '   ' }), 400, 'invalid_request', 'title: must be 1 to 200 characters');
      expectError(await similar({ board: 'ideas', title: 'x'.repeat(201) }), 400, 'invalid_request', 'title: must be 1 to 200 characters');
      expectError(await api.get('/api/v1/posts/similar?board=ideas&title=a&title=b'), 400, 'invalid_request', 'title: must be a string');
      expectError(await similar({ board: 'nope', title: 'Dark mode' }), 404, 'not_found', 'No such board "nope" in this workspace.');
      // Another workspace's board is no board of this one.
      const elsewhere = await createWorkspace(t.app, { plan: 'business' });
      const theirs = `theirs-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(elsewhere.slug, { slug: theirs, name: 'Theirs' });
      expectError(await similar({ board: theirs, title: 'Dark mode' }), 404, 'not_found', `No such board "${theirs}" in this workspace.`);
      // Without a key, as every API route.
      expect((await new Client(t.baseUrl).get('/api/v1/posts/similar?board=ideas&title=x')).status).toBe(401);
    });

    it('is routed before GET /api/v1/posts/{id}', async () => {
      const created = await post('A post read by its id');
      expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.id).toBe(created.id);
      expect((await similar({ board: 'ideas', title: 'A post read by its id' })).body.data[0].id).toBe(created.id);
    });
  });

  describe('the public site: "Similar posts" before a new post (JavaScript off)', () => {
    let board: string;
    let visitor: Visitor;
    const count = async (title: string) =>
      (await t.db.query(`SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1 AND title = $2`, [ws.id, title]))[0].n as number;

    beforeAll(async () => {
      board = `site-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(ws.slug, { slug: board, name: 'Site board' });
      const { sign } = await ssoSigner(t.app, ws.id);
      visitor = new Visitor(t.baseUrl);
      const answer = await visitor.get(`/${ws.slug}/sso?token=${await sign({ email: 'similar@example.com', name: 'Sam Similar' }, { expiresIn: '5m' })}`);
      expect(answer.status).toBe(303);
    });

    it('shows the similar posts with their vote buttons and "Post anyway", which posts what was typed, once', async () => {
      const existing = await post('Offline mode for the mobile app', { board });
      await post('<script>alert(1)</script> Offline mode for mobile', { board });
      const action = `/${ws.slug}/${board}/posts`;
      const boardPage = await visitor.get(`/${ws.slug}/${board}`);
      const typed = { title: '  Offline mode for mobile  ', body: 'So I can <b>read</b> on a plane', category: 'improvement' };
      const step = await visitor.post(action, { _csrf: formToken(boardPage.text, action), ...typed });
      expect(step.status).toBe(200);
      expect(step.headers.get('cache-control')).toBe('private, no-store');
      expect(step.text).toMatch(/<h1[^>]*>Similar posts<\/h1>/);
      expect(step.text).toContain(`aria-label="Vote for &quot;Offline mode for the mobile app&quot;: 1 vote"`);
      expect(step.text).toContain(`action="${new URL(existing.url).pathname}/vote"`);
      // Hostile titles and what was typed are escaped, never markup.
      expect(step.text).not.toContain('<script>alert(1)</script>');
      expect(step.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(step.text).not.toContain('<b>read</b>');
      expect(await count('Offline mode for mobile')).toBe(0);

      // "Post anyway": the typed fields, hidden, with the session's form token.
      const anyway = step.text.split('<form').find((f) => f.includes('>Post anyway</button>'))!;
      const hidden = Object.fromEntries([...anyway.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      expect(hidden).toMatchObject({ title: typed.title, body: 'So I can &lt;b&gt;read&lt;/b&gt; on a plane', category: 'improvement', similar: 'seen' });
      expect(hidden._csrf).toBe(formToken(boardPage.text, action));

      // Without the token: refused, nothing posted.
      const forged = await visitor.post(action, { ...typed, similar: 'seen' });
      expect(forged.status).toBe(403);
      expect(await count('Offline mode for mobile')).toBe(0);

      const made = await visitor.post(action, { _csrf: hidden._csrf, ...typed, similar: 'seen' });
      expect(made.status).toBe(303);
      const id = Number(/\/p\/(\d+)-offline-mode-for-mobile$/.exec(made.location!)![1]);
      expect((await api.get(`/api/v1/posts/${id}`)).body.data).toMatchObject({
        title: 'Offline mode for mobile', body: typed.body, category: 'improvement', author: { name: 'Sam Similar' },
      });
      expect(await count('Offline mode for mobile')).toBe(1);
    });

    it('posts at once when no post is alike', async () => {
      const action = `/${ws.slug}/${board}/posts`;
      const boardPage = await visitor.get(`/${ws.slug}/${board}`);
      const made = await visitor.post(action, { _csrf: formToken(boardPage.text, action), title: 'Zebra stripes on invoices', body: '', category: 'feature' });
      expect(made.status).toBe(303);
      expect(await count('Zebra stripes on invoices')).toBe(1);
    });

    it('a refused form is shown again with its errors, before any similar posts', async () => {
      const action = `/${ws.slug}/${board}/posts`;
      const boardPage = await visitor.get(`/${ws.slug}/${board}`);
      const refused = await visitor.post(action, { _csrf: formToken(boardPage.text, action), title: 'Off', category: 'feature' });
      expect(refused.status).toBe(400);
      expect(pageText(refused.text)).toContain('must be 4 to 120 characters');
      expect(refused.text).not.toContain('>Similar posts</h1>');
    });
  });

  describe('the dashboard', () => {
    it('suggests similar posts of the board beside "Merge into", each leading to the merge\'s confirmation', async () => {
      const board = `merge-${Date.now().toString(36)}`;
      await t.app.get(BoardsService).create(ws.slug, { slug: board, name: 'Merges' });
      const target = await post('Two-factor authentication', { board });
      const duplicate = await post('Two factor authentication please', { board });
      await post('Unrelated thing about exports', { board });
      const member = await signedInMember(t.baseUrl, t.app, ws.id, ws.member.email);
      expect(member.origin).toBe(DASHBOARD_ORIGIN);
      const page = await member.get(`/admin/p/${duplicate.id}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain('>Similar posts</h2>');
      expect(page.text).toContain(`aria-label="Merge into #${target.id} “Two-factor authentication”"`);
      expect(page.text).not.toContain(`aria-label="Merge into #${duplicate.id} `);
      expect(pageText(page.text)).not.toContain('Unrelated thing about exports');
      const action = `/admin/p/${duplicate.id}/merge`;
      const suggestion = page.text.split('<form').find((f) => f.includes(`value="${target.id}"`) && f.includes(`action="${action}"`))!;
      const token = /name="_csrf" value="([^"]+)"/.exec(suggestion)![1];
      const confirm = await member.post(action, { _csrf: token, into: String(target.id) });
      expect(confirm.status).toBe(200);
      expect(pageText(confirm.text)).toContain('Merge “Two factor authentication please” into “Two-factor authentication”?');
      expect((await api.get(`/api/v1/posts/${duplicate.id}`)).body.data.merged_into).toBeNull();
    });
  });
});

describeInBrowser('the "Similar posts" step in Chromium', () => {
  let env: Awaited<ReturnType<typeof startBrowserTest>>;
  let browser: Browser;

  beforeAll(async () => {
    env = await startBrowserTest();
    browser = env.browser;
  }, 180_000);
  afterAll(() => env?.stop());

  it('with JavaScript off: the list, a vote from it, then "Post anyway" posts what was typed, once', async () => {
    const { t, ws, api, base } = env;
    const run = Date.now().toString(36);
    const existing = (await api.post('/api/v1/posts', { board: 'ideas', title: `Keyboard shortcuts for triage ${run}` })).body.data;
    await api.post('/api/v1/posts', { board: 'ideas', title: `<script>alert(1)</script> Keyboard shortcuts for triaging ${run}` });
    const { sign } = await ssoSigner(t.app, ws.id);
    const ctx: BrowserContext = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 800 } });
    ctx.setDefaultTimeout(20_000);
    const page = await ctx.newPage();
    const token = await sign({ email: `browser-${run}@example.com`, name: 'Bea Browser' }, { expiresIn: '5m' });
    await page.goto(`${base}/${ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(`/${ws.slug}/ideas`)}`);
    const title = `Keyboard shortcuts for triaging ${run}`;
    const submit = async () => {
      await page.getByLabel('Title').fill(title);
      await page.getByLabel('Details').fill('Details <b>typed</b>');
      await page.getByLabel('Category').selectOption('bug');
      await page.getByRole('button', { name: 'Submit post' }).click();
      await page.getByRole('heading', { level: 1, name: 'Similar posts' }).waitFor();
    };
    await submit();
    const listed = page.getByRole('list', { name: 'Similar posts' }).getByRole('listitem');
    expect(await listed.count()).toBe(2);
    // The hostile title is text.
    expect(await page.getByText(`<script>alert(1)</script> Keyboard shortcuts for triaging ${run}`).count()).toBe(1);
    // A vote from the list counts, and brings the visitor back to the board.
    await page.getByRole('button', { name: `Vote for "Keyboard shortcuts for triage ${run}": 1 vote` }).click();
    await page.getByRole('button', { name: `Remove vote for "Keyboard shortcuts for triage ${run}": 2 votes` }).waitFor();
    expect((await api.get(`/api/v1/posts/${existing.id}`)).body.data.votes).toBe(2);
    const count = async () => (await t.db.query(`SELECT body, category FROM posts WHERE workspace_id = $1 AND title = $2`, [ws.id, title]));
    expect(await count()).toEqual([]);
    await submit();
    await page.getByRole('button', { name: 'Post anyway' }).click();
    await page.getByRole('heading', { level: 1, name: title }).waitFor();
    expect(await count()).toEqual([{ body: 'Details <b>typed</b>', category: 'bug' }]);
    await ctx.close();
  }, 120_000);

  it('the "Similar posts" page in light and dark at 320 px: axe finds nothing, nothing sticks out, no script runs', async () => {
    const { t, ws, api, base } = env;
    const run = Date.now().toString(36);
    await api.post('/api/v1/posts', { board: 'ideas', title: `Bulk edit of statuses ${run}` });
    await api.post('/api/v1/posts', { board: 'ideas', title: `<img src=x onerror=alert(1)> Bulk edit of statuses ${run}` });
    const { sign } = await ssoSigner(t.app, ws.id);
    for (const dark of [false, true]) {
      // axe runs as a script in the page: JavaScript on here (the journey above is with it off).
      const ctx = await browser.newContext({ javaScriptEnabled: true, colorScheme: dark ? 'dark' : 'light', viewport: { width: 320, height: 800 } });
      ctx.setDefaultTimeout(20_000);
      const page = await ctx.newPage();
      let dialogs = 0;
      page.on('dialog', (d) => {
        dialogs++;
        void d.dismiss();
      });
      const token = await sign({ email: `axe-${dark}-${run}@example.com`, name: 'Axe Reader' }, { expiresIn: '5m' });
      await page.goto(`${base}/${ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(`/${ws.slug}/ideas`)}`);
      await page.getByLabel('Title').fill(`Bulk editing of statuses ${run}`);
      await page.getByRole('button', { name: 'Submit post' }).click();
      await page.getByRole('heading', { level: 1, name: 'Similar posts' }).waitFor();
      const scheme = dark ? 'dark' : 'light';
      expect([scheme, await axeViolations(page)]).toEqual([scheme, []]);
      const overflow = await page.evaluate(() => {
        const doc = (globalThis as any).document;
        return doc.documentElement.scrollWidth - doc.documentElement.clientWidth;
      });
      expect([scheme, overflow, dialogs]).toEqual([scheme, 0, 0]);
      await ctx.close();
    }
  }, 120_000);
});
