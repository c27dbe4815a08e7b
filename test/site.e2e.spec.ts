import { BoardsService } from '../src/boards/boards.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { CommentsService } from '../src/comments/comments.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { formToken, pageText, SITE_ORIGIN, ssoSigner, Visitor } from './support/site';
import { onEmbeddedDatabase, startTestApp, TestApp } from './support/test-app';

// The public site over HTTP, as a browser without JavaScript uses it: what each page shows,
// what it never shows (private boards), its addresses, headers and caching.

describe('the public site', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  const site = () => new Visitor(t.baseUrl);

  /** A post made through the API, as the key's member. */
  async function post(fields: Record<string, unknown>) {
    const answer = await api.post('/api/v1/posts', { board: 'ideas', ...fields });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t?.close());

  describe('pages', () => {
    it('the workspace home lists its public boards with their number of posts, and links the roadmap', async () => {
      await post({ title: 'Counted on the home page' });
      const merged = await post({ title: 'Merged away, not counted' });
      const target = await post({ title: 'The target of a merge' });
      expect((await api.post(`/api/v1/posts/${merged.id}/merge`, { into: target.id })).status).toBe(200);
      const { count } = (await t.db.query(`SELECT count(*)::int AS count FROM posts WHERE workspace_id = $1 AND merged_into_id IS NULL`, [ws.id]))[0];
      const home = await site().get(`/${ws.slug}`);
      expect(home.status).toBe(200);
      expect(home.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const text = pageText(home.text);
      expect(text).toContain('Ideas');
      expect(text).toContain('Public ideas');
      expect(text).toContain(`${count} posts`);
      expect(home.text).toContain(`href="/${ws.slug}/ideas"`);
      expect(home.text).toContain(`href="/${ws.slug}/roadmap"`);
      expect(home.text).not.toContain('Secret');
    });

    it('a board shows the posts the API lists, 25 a page, with the API list\'s sort, status, search and paging', async () => {
      const own = await createWorkspace(t.app);
      const ownApi = new Client(t.baseUrl, own.key);
      const made = [];
      for (let i = 0; i < 27; i++) {
        const answer = await ownApi.post('/api/v1/posts', { board: 'ideas', title: `Paged post number ${i}`, body: i === 3 ? 'mentions zebras' : '' });
        made.push(answer.body.data);
      }
      await ownApi.post(`/api/v1/posts/${made[5].id}/votes`, { voter: { name: 'Extra Voter' } });
      await ownApi.patch(`/api/v1/posts/${made[7].id}`, { status: 'planned' });
      const visitor = site();
      const first = await visitor.get(`/${own.slug}/ideas`);
      const listed = (html: string) => [...html.matchAll(/<h2><a href="[^"]*\/p\/(\d+)-/g)].map((m) => Number(m[1]));
      const apiPage = (query: string) => ownApi.get(`/api/v1/posts?board=ideas&${query}`).then((a) => a.body.data.map((p: { id: number }) => p.id));
      expect(listed(first.text)).toEqual(await apiPage('limit=25'));
      expect(first.text).toContain(`<a href="/${own.slug}/ideas?offset=25" rel="next">Next page</a>`);
      expect(first.text).toContain(`<link rel="next" href="/${own.slug}/ideas?offset=25">`);
      const second = await visitor.get(`/${own.slug}/ideas?offset=25`);
      expect(listed(second.text)).toEqual(await apiPage('limit=25&offset=25'));
      expect(second.text).toContain(`<a href="/${own.slug}/ideas" rel="prev">Previous page</a>`);
      expect(second.text).not.toContain('Next page');
      const top = await visitor.get(`/${own.slug}/ideas?sort=top`);
      expect(listed(top.text)[0]).toBe(made[5].id);
      expect(listed(top.text)).toEqual(await apiPage('sort=top&limit=25'));
      expect(listed((await visitor.get(`/${own.slug}/ideas?status=planned`)).text)).toEqual([made[7].id]);
      expect(listed((await visitor.get(`/${own.slug}/ideas?q=ZEBRAS&status=`)).text)).toEqual([made[3].id]);
      const none = await visitor.get(`/${own.slug}/ideas?q=nothing-matches-this`);
      expect(pageText(none.text)).toContain('No posts match.');
      // A bad value is refused with the API's words, on a page.
      const bad = await visitor.get(`/${own.slug}/ideas?sort=sideways`);
      expect(bad.status).toBe(400);
      expect(pageText(bad.text)).toContain('sort: must be new or top');
    });

    it('a post shows its votes, status, text as paragraphs with links, and its comments oldest first with team replies marked', async () => {
      const created = await post({
        title: 'Paragraphs & links <b>kept</b> as text',
        body: 'First line\nsecond line\n\nSecond paragraph with https://example.com/docs?a=1&b=2.',
        category: 'bug',
      });
      const comments = t.app.get(CommentsService);
      const guest = await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'guest', name: 'Gus Guest', email: null });
      await comments.create(ws.actor, created.id, { body: 'A guest says hello', authorId: guest.id });
      await api.post(`/api/v1/posts/${created.id}/comments`, { body: 'The team answers' });
      const page = await site().get(new URL(created.url).pathname);
      expect(page.status).toBe(200);
      expect(page.text).toContain('<h1 class="user-text">Paragraphs &amp; links &lt;b&gt;kept&lt;/b&gt; as text</h1>');
      expect(page.text).toContain('<p>First line<br>second line</p>');
      expect(page.text).toContain('<a href="https://example.com/docs?a=1&amp;b=2" rel="nofollow ugc noopener">https://example.com/docs?a=1&amp;b=2</a>.');
      const text = pageText(page.text);
      expect(text).toContain('1 vote');
      expect(text).toContain('Open');
      expect(text).toContain('Bug');
      expect(text.indexOf('A guest says hello')).toBeLessThan(text.indexOf('The team answers'));
      expect(text).toMatch(/Olive Owner Official .* The team answers/);
      expect(text).not.toMatch(/Gus Guest Official/);
      expect(text).toContain('2 comments');
    });

    it('the roadmap shows public posts planned, in progress and done, the most voted first', async () => {
      const own = await createWorkspace(t.app);
      const ownApi = new Client(t.baseUrl, own.key);
      const make = async (title: string, status: string, board = 'ideas', votes = 0) => {
        const p = (await ownApi.post('/api/v1/posts', { board, title })).body.data;
        for (let i = 0; i < votes; i++) await ownApi.post(`/api/v1/posts/${p.id}/votes`, { voter: { name: `Voter ${i}` } });
        await ownApi.patch(`/api/v1/posts/${p.id}`, { status });
        return p;
      };
      await make('Planned, few votes', 'planned', 'ideas', 1);
      await make('Planned, many votes', 'planned', 'ideas', 3);
      await make('Being built now', 'in_progress');
      await make('Shipped already', 'done');
      await make('Open, not on the roadmap', 'open');
      await make('Planned in secret', 'planned', 'secret', 5);
      const text = pageText((await site().get(`/${own.slug}/roadmap`)).text);
      expect(text).toMatch(/Planned 4 votes Planned, many votes · Ideas 2 votes Planned, few votes · Ideas In progress 1 vote Being built now · Ideas Done 1 vote Shipped already/);
      expect(text).not.toContain('Open, not on the roadmap');
      expect(text).not.toContain('Planned in secret');
    });

    it('a board has an Atom feed of its 50 newest posts, and the workspace a sitemap of its public pages', async () => {
      const created = await post({ title: 'Fed to readers & crawlers', body: 'Body <with> markup\u0001 and a control' });
      const feed = await site().get(`/${ws.slug}/ideas/feed.atom`);
      expect(feed.status).toBe(200);
      expect(feed.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
      expect(feed.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/);
      expect(feed.text).toContain(`<title>Fed to readers &amp; crawlers</title>`);
      expect(feed.text).toContain(`<id>${created.url}</id>`);
      expect(feed.text).toContain('<summary type="text">Body &lt;with&gt; markup and a control</summary>');
      expect(feed.text).not.toContain('\u0001');
      expect((feed.text.match(/<entry>/g) ?? []).length).toBeLessThanOrEqual(50);
      const board = await site().get(`/${ws.slug}/ideas`);
      expect(board.text).toContain(`<link rel="alternate" type="application/atom+xml" title="Ideas: newest posts" href="/${ws.slug}/ideas/feed.atom">`);

      const map = await site().get(`/${ws.slug}/sitemap.xml`);
      expect(map.headers.get('content-type')).toBe('application/xml; charset=utf-8');
      expect(map.text).toContain(`<loc>https://boards.chorus.test/${ws.slug}/ideas</loc>`);
      expect(map.text).toContain(`<loc>${created.url}</loc>`);
      const robots = await site().get('/robots.txt');
      expect(robots.text).toBe('User-agent: *\nDisallow: /admin\nDisallow: /api\n');
    });

    it('every page has a language, a title, one h1, landmarks, a description, a canonical link and Open Graph tags', async () => {
      const created = await post({ title: 'A page with all its metadata' });
      for (const path of [`/${ws.slug}`, `/${ws.slug}/ideas`, new URL(created.url).pathname, `/${ws.slug}/roadmap`, `/${ws.slug}/sign-in`, `/${ws.slug}/no-such-board`]) {
        const { text } = await site().get(path);
        expect(text).toMatch(/^<!doctype html><html lang="en">/);
        expect(text.match(/<h1[ >]/g)).toHaveLength(1);
        expect(text).toMatch(/<title>[^<]+<\/title>/);
        for (const landmark of ['<header', '<nav', '<main', '<footer']) expect(text).toContain(landmark);
        expect(text).toMatch(/<meta name="description" content="[^"]+">/);
        expect(text).toMatch(/<link rel="canonical" href="https:\/\/[^"]+">/);
        for (const og of ['og:title', 'og:description', 'og:url', 'og:type', 'og:site_name']) expect(text).toContain(`<meta property="${og}" content="`);
        expect(text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      }
      expect((await site().get(`/${ws.slug}/sign-in`)).text).toContain('<meta name="robots" content="noindex, nofollow">');
      expect((await site().get(`/${ws.slug}/ideas`)).text).not.toContain('noindex');
    });
  });

  describe('addresses', () => {
    it('the API\'s url is the canonical address: a bare id, a stale slug or another board answer 301 to it', async () => {
      const created = await post({ title: 'Where this post lives' });
      const path = new URL(created.url).pathname;
      expect(path).toBe(`/${ws.slug}/ideas/p/${created.id}-where-this-post-lives`);
      for (const wrong of [`/${ws.slug}/ideas/p/${created.id}`, `/${ws.slug}/ideas/p/${created.id}-old-title`, `/${ws.slug}/other/p/${created.id}-where-this-post-lives`]) {
        const answer = await site().get(wrong);
        expect([wrong, answer.status, answer.location]).toEqual([wrong, 301, path]);
      }
      expect((await site().get(path)).status).toBe(200);
    });

    it('a merged post moves to its target; merged into a private post, it is not found', async () => {
      const source = await post({ title: 'Duplicate of another' });
      const target = await post({ title: 'The original idea' });
      await api.post(`/api/v1/posts/${source.id}/merge`, { into: target.id });
      const moved = await site().get(new URL(source.url).pathname);
      expect([moved.status, moved.location]).toEqual([301, new URL(target.url).pathname]);

      const hidden = await post({ title: 'Public, merged into a secret' });
      const secret = await post({ title: 'A secret target', board: 'secret' });
      await api.post(`/api/v1/posts/${hidden.id}/merge`, { into: secret.id });
      const gone = await site().get(new URL(hidden.url).pathname);
      expect(gone.status).toBe(404);
      expect(gone.text).not.toContain('secret target');
    });

    it('what is not there is the same 404 page, whatever it is', async () => {
      const nothing = await site().get(`/${ws.slug}/no-such-board`);
      expect(nothing.status).toBe(404);
      expect(pageText(nothing.text)).toContain('Page not found');
      for (const path of ['/no-such-workspace', `/${ws.slug}/ideas/p/999999999`, `/${ws.slug}/ideas/p/abc`, `/${ws.slug}/ideas/p/1/2/3`]) {
        expect([path, (await site().get(path)).status]).toEqual([path, 404]);
      }
      // The service's own paths are not workspaces: the API answers as the API.
      const apiPath = await site().get('/api/v1');
      expect(apiPath.status).toBe(401);
      expect(JSON.parse(apiPath.text).error.code).toBe('unauthorized');
    });
  });

  describe('private boards', () => {
    it('never show: walking every public route, feed and sitemap finds none of a private board\'s posts, names or counts', async () => {
      const own = await createWorkspace(t.app);
      const ownApi = new Client(t.baseUrl, own.key);
      const boards = t.app.get(BoardsService);
      await boards.create(own.slug, { slug: 'hush', name: 'Hush Board Name', description: 'Hush description text', public: false });
      const secretTitles = ['Hush one: quiet plans', 'Hush two: planned quietly', 'Hush three: shipped quietly'];
      const secrets = [];
      for (const [i, title] of secretTitles.entries()) {
        const p = (await ownApi.post('/api/v1/posts', { board: 'hush', title, body: 'hushword in the body' })).body.data;
        await ownApi.patch(`/api/v1/posts/${p.id}`, { status: ['planned', 'in_progress', 'done'][i] });
        await ownApi.post(`/api/v1/posts/${p.id}/comments`, { body: 'A hush comment' });
        secrets.push(p);
      }
      const shown = (await ownApi.post('/api/v1/posts', { board: 'ideas', title: 'A public post' })).body.data;
      await ownApi.patch(`/api/v1/posts/${shown.id}`, { status: 'planned' });
      const walk = [
        `/${own.slug}`,
        `/${own.slug}/roadmap`,
        `/${own.slug}/sitemap.xml`,
        `/${own.slug}/ideas`,
        `/${own.slug}/ideas?sort=top`,
        `/${own.slug}/ideas?q=quiet`,
        `/${own.slug}/ideas?status=planned`,
        `/${own.slug}/ideas/feed.atom`,
        new URL(shown.url).pathname,
        `/${own.slug}/sign-in`,
        '/robots.txt',
      ];
      for (const path of walk) {
        const { status, text } = await site().get(path);
        expect([path, status]).toEqual([path, 200]);
        for (const secret of [...secretTitles, 'Hush Board Name', 'Hush description', 'hushword', 'A hush comment', '/hush']) {
          expect([path, text.includes(secret) ? secret : null]).toEqual([path, null]);
        }
      }
      const home = pageText((await site().get(`/${own.slug}`)).text);
      expect(home).toContain('1 post');
      // Its own addresses, and its posts under any board, are the plain 404 page.
      const notFound = (await site().get(`/${own.slug}/no-such-board`)).text;
      for (const path of [`/${own.slug}/hush`, `/${own.slug}/hush/feed.atom`, new URL(secrets[0].url).pathname, `/${own.slug}/ideas/p/${secrets[0].id}`]) {
        const answer = await site().get(path);
        expect([path, answer.status, answer.location]).toEqual([path, 404, null]);
        // The same page word for word; only its own address (canonical, og:url) differs.
        expect(answer.text.replaceAll(`https://boards.chorus.test${path}`, 'HERE')).toBe(notFound.replaceAll(`https://boards.chorus.test/${own.slug}/no-such-board`, 'HERE'));
      }
    });
  });

  describe('headers and caching', () => {
    it('every page carries a strict CSP, nosniff and a referrer policy, and loads nothing from another host', async () => {
      for (const path of [`/${ws.slug}`, `/${ws.slug}/ideas`, `/${ws.slug}/sign-in`, `/${ws.slug}/nothing-here`]) {
        const { headers, text } = await site().get(path);
        expect(headers.get('content-security-policy')).toBe(
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
        );
        expect(headers.get('x-content-type-options')).toBe('nosniff');
        expect(headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
        // Only links (and the canonical address) name other hosts; nothing is loaded from them.
        for (const match of text.matchAll(/<(?:link|script|img)[^>]+(?:href|src)="([^"]+)"/g)) {
          if (!/rel="(canonical|alternate|prev|next)"/.test(match[0])) expect(match[1]).toMatch(/^\/assets\//);
        }
      }
      const html = (await site().get(`/${ws.slug}`)).text;
      const css = /href="(\/assets\/chorus\.[0-9a-f]{12}\.css)"/.exec(html)![1];
      const sheet = await site().get(css);
      expect(sheet.status).toBe(200);
      expect(sheet.headers.get('content-type')).toBe('text/css; charset=utf-8');
      expect(sheet.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(sheet.text).toContain('prefers-color-scheme: dark');
      expect(sheet.text).not.toMatch(/@import|url\(\s*['"]?https?:/);
    });

    it('a page for a visitor without a session has an ETag and answers 304 until something it shows changes', async () => {
      const created = await post({ title: 'Cached until it changes' });
      const path = `/${ws.slug}/ideas`;
      // The post made above reaches this instance's page cache a moment after its commit: until
      // then a page may be rendered from reads made before it, and the next one differs.
      let first = await site().get(path);
      let again = await site().get(path, { 'if-none-match': first.headers.get('etag')! });
      for (let i = 0; again.status !== 304 && i < 50; i++) [first, again] = [again, await site().get(path, { 'if-none-match': again.headers.get('etag')! })];
      const etag = first.headers.get('etag')!;
      expect(first.text).toContain('Cached until it changes');
      expect(etag).toMatch(/^"[\w-]+"$/);
      expect(first.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
      expect(first.headers.get('vary')).toBe('Cookie');
      expect([again.status, again.text, again.headers.get('etag')]).toEqual([304, '', etag]);
      await api.post(`/api/v1/posts/${created.id}/votes`, { voter: { name: 'Changes The Page' } });
      // The change reaches this instance's listener a moment after its commit.
      let after = await site().get(path, { 'if-none-match': etag });
      for (let i = 0; after.status === 304 && i < 50; i++) after = await site().get(path, { 'if-none-match': etag });
      expect(after.status).toBe(200);
      expect(after.headers.get('etag')).not.toBe(etag);
      expect((await site().get(path, { 'if-none-match': after.headers.get('etag')! })).status).toBe(304);
    });

    /** What `work` gives, and how many times it went to the database: every statement takes a connection from the pool. */
    const countingStatements = async <T>(work: () => Promise<T>) => {
      const pool = t.db.pool as unknown as { connect: (...args: unknown[]) => unknown };
      const connect = pool.connect;
      let queries = 0;
      pool.connect = (...args: unknown[]) => {
        queries++;
        return connect.apply(pool, args);
      };
      try {
        return { result: await work(), queries };
      } finally {
        pool.connect = connect;
      }
    };

    (onEmbeddedDatabase() ? it.skip : it)('[PostgreSQL] a revalidation of an unchanged page reads nothing from the database', async () => {
      const path = `/${ws.slug}/roadmap`;
      const etag = (await site().get(path)).headers.get('etag')!;
      expect((await site().get(path, { 'if-none-match': etag })).status).toBe(304);
      const { queries } = await countingStatements(async () => {
        for (let i = 0; i < 20; i++) expect((await site().get(path, { 'if-none-match': etag })).status).toBe(304);
      });
      expect(queries).toBe(0);
    });

    (onEmbeddedDatabase() ? it.skip : it)('[PostgreSQL] an unchanged page is sent again from memory, the same bytes, until something it shows changes', async () => {
      const created = await post({ title: 'Sent from memory' });
      const path = `/${ws.slug}/ideas?sort=new`;
      // The post's own NOTIFY can reach this instance after the first render (on Citus under
      // load it did), and then rightly drops that page: so, up to five times, a render and the
      // same page asked again, until the second is sent from memory.
      let [first, kept] = [await site().get(path), await countingStatements(() => site().get(path))];
      for (let attempt = 1; attempt < 5 && kept.queries > 0; attempt++) {
        [first, kept] = [await site().get(path), await countingStatements(() => site().get(path))];
      }
      expect(first.status).toBe(200);
      expect([kept.result.status, kept.result.text, kept.result.headers.get('etag')]).toEqual([200, first.text, first.headers.get('etag')]);
      expect(kept.result.headers.get('cache-control')).toBe('public, max-age=0, must-revalidate');
      expect(kept.result.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(kept.queries).toBe(0);
      // A hard reload (Cache-Control: no-cache) is rendered afresh: the same page, read again.
      const reloaded = await countingStatements(() => site().get(path, { 'cache-control': 'no-cache' }));
      expect([reloaded.result.status, reloaded.result.text]).toEqual([200, first.text]);
      expect(reloaded.queries).toBeGreaterThan(0);
      // A change to what it shows is sent as soon as this instance hears of it.
      expect((await api.post(`/api/v1/posts/${created.id}/comments`, { body: 'A comment changes the count' })).status).toBe(201);
      let after = await site().get(path);
      for (let i = 0; after.text === first.text && i < 50; i++) after = await site().get(path);
      expect(after.text).not.toBe(first.text);
      expect(after.headers.get('etag')).not.toBe(first.headers.get('etag'));
    });

    it('a page for a signed-in visitor is private and never stored', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      const visitor = site();
      await visitor.get(`/${ws.slug}/sso?token=${await sign({ email: 'private@example.com', name: 'Private Pat' }, { expiresIn: '5m' })}`);
      const page = await visitor.get(`/${ws.slug}/ideas`);
      expect(page.headers.get('cache-control')).toBe('private, no-store');
      expect(page.headers.get('etag')).toBeNull();
      expect(pageText(page.text)).toContain('Signed in as Private Pat');
    });
  });

  describe('forms', () => {
    async function signedIn(email: string, name = 'Form Filler') {
      const { sign } = await ssoSigner(t.app, ws.id);
      const visitor = site();
      const answer = await visitor.get(`/${ws.slug}/sso?token=${await sign({ email, name }, { expiresIn: '5m' })}`);
      expect(answer.status).toBe(303);
      return visitor;
    }

    it('votes, takes the vote back, posts and comments through the API\'s services, with its events', async () => {
      const created = await post({ title: 'Vote for me from the page' });
      const path = new URL(created.url).pathname;
      const visitor = await signedIn('voter@example.com', 'Page Voter');
      const page = await visitor.get(path);
      expect(page.text).toContain(`aria-label="Vote for &quot;Vote for me from the page&quot;: 1 vote"`);
      const voted = await visitor.post(`${path}/vote`, { _csrf: formToken(page.text, `${path}/vote`), intent: 'add', back: path });
      expect([voted.status, voted.location]).toEqual([303, path]);
      expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.votes).toBe(2);
      const after = await visitor.get(path);
      expect(after.text).toContain(`aria-label="Remove vote for &quot;Vote for me from the page&quot;: 2 votes"`);
      await visitor.post(`${path}/vote`, { _csrf: formToken(after.text, `${path}/vote`), intent: 'remove', back: path });
      expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.votes).toBe(1);

      const board = await visitor.get(`/${ws.slug}/ideas`);
      const made = await visitor.post(`/${ws.slug}/ideas/posts`, {
        _csrf: formToken(board.text, `/${ws.slug}/ideas/posts`),
        title: '  Posted from the board page  ',
        body: 'With details',
        category: 'improvement',
        similar: 'seen', // past the "Similar posts" step (test/similar-posts.e2e.spec.ts), as "Post anyway" sends
      });
      expect(made.status).toBe(303);
      const id = Number(/\/p\/(\d+)-posted-from-the-board-page$/.exec(made.location!)![1]);
      const fromApi = (await api.get(`/api/v1/posts/${id}`)).body.data;
      expect(fromApi).toMatchObject({ title: 'Posted from the board page', body: 'With details', category: 'improvement', votes: 1, author: { name: 'Page Voter' } });

      const postPage = await visitor.get(made.location!);
      const commented = await visitor.post(`${made.location}/comments`, { _csrf: formToken(postPage.text, `${made.location}/comments`), body: 'A visitor comment' });
      expect(commented.status).toBe(303);
      expect(commented.location).toMatch(new RegExp(`^${made.location}#comment-\\d+$`));
      const comments = (await api.get(`/api/v1/posts/${id}/comments`)).body.data;
      expect(comments).toEqual([expect.objectContaining({ body: 'A visitor comment', official: false, author: { name: 'Page Voter' } })]);

      const events = await t.db.query(
        `SELECT type, data->'post'->>'id' AS post_id FROM outbox_events WHERE workspace_id = $1 AND (data->'post'->>'id')::int IN ($2, $3) ORDER BY created_at`,
        [ws.id, created.id, id],
      );
      expect(events.map((e: { type: string; post_id: string }) => [e.type, Number(e.post_id)])).toEqual([
        ['post.created', created.id],
        ['post.voted', created.id],
        ['post.created', id],
        ['comment.created', id],
      ]);
    });

    it('shows each problem beside its field, with what was typed kept, and changes nothing', async () => {
      const visitor = await signedIn('typo@example.com');
      const board = await visitor.get(`/${ws.slug}/ideas`);
      const before = (await api.get('/api/v1/posts?board=ideas&limit=100')).body.data.length;
      const refused = await visitor.post(`/${ws.slug}/ideas/posts`, {
        _csrf: formToken(board.text, `/${ws.slug}/ideas/posts`),
        title: 'abc',
        body: 'x'.repeat(5001),
        category: 'feature',
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('<span class="error" id="post-title-error">Title must be 4 to 120 characters</span>');
      expect(refused.text).toContain('<span class="error" id="post-body-error">Details must be at most 5000 characters</span>');
      expect(refused.text).toContain('aria-invalid="true"');
      expect(refused.text).toContain('value="abc"');
      expect(refused.text).toContain('x'.repeat(5001));
      // The typed text is not in the form's token (a random token may itself begin with an x: 1 run in 64).
      expect(refused.text).not.toContain(`name="_csrf" value="${'x'.repeat(20)}`);
      const nul = await visitor.post(`/${ws.slug}/ideas/posts`, { _csrf: formToken(board.text, `/${ws.slug}/ideas/posts`), title: 'Has a \u0000 NUL' });
      expect(nul.status).toBe(400);
      expect(pageText(nul.text)).toContain('Title must not contain NUL characters');
      expect((await api.get('/api/v1/posts?board=ideas&limit=100')).body.data.length).toBe(before);
    });

    it('refuses a form without its token, with another session\'s token, or sent from another site, with a 403 page, and changes nothing', async () => {
      const created = await post({ title: 'Guarded by tokens' });
      const path = new URL(created.url).pathname;
      const alice = await signedIn('alice@example.com');
      const bob = await signedIn('bob@example.com');
      const bobsToken = formToken((await bob.get(path)).text, `${path}/vote`);
      const alicesToken = formToken((await alice.get(path)).text, `${path}/vote`);
      const attempts = [
        alice.post(`${path}/vote`, { intent: 'add' }),
        alice.post(`${path}/vote`, { intent: 'add', _csrf: bobsToken }),
        alice.post(`${path}/vote`, { intent: 'add', _csrf: alicesToken }, { origin: 'https://evil.example' }),
        alice.post(`${path}/vote`, { intent: 'add', _csrf: alicesToken }, { origin: 'null' }),
        alice.post(`${path}/vote`, { intent: 'add', _csrf: alicesToken }, { origin: '', 'sec-fetch-site': 'cross-site' }),
        site().post(`${path}/vote`, { intent: 'add', _csrf: alicesToken }),
      ];
      for (const answer of await Promise.all(attempts)) {
        expect(answer.status).toBe(403);
        expect(pageText(answer.text)).toContain('This request was refused');
      }
      expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.votes).toBe(1);
      // A form of a page that posts JSON, or anything but a form, is refused too.
      const json = await fetch(`${t.baseUrl}${path}/vote`, { method: 'POST', headers: { 'content-type': 'application/json', origin: SITE_ORIGIN }, body: '{}' });
      expect(json.status).toBe(400);
      const ok = await alice.post(`${path}/vote`, { intent: 'add', _csrf: alicesToken, back: path });
      expect(ok.status).toBe(303);
      expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.votes).toBe(2);
    });

    it('sends a visitor back only to a page of this workspace', async () => {
      const visitor = await signedIn('back@example.com');
      const created = await post({ title: 'Coming back here' });
      const path = new URL(created.url).pathname;
      const token = formToken((await visitor.get(path)).text, `${path}/vote`);
      for (const back of ['https://evil.example/x', '//evil.example/x', '/\\evil.example', `/${ws.slug}/../admin`, '/other-workspace/ideas', 'javascript:alert(1)']) {
        const answer = await visitor.post(`${path}/vote`, { _csrf: token, intent: 'add', back });
        expect([back, answer.location]).toEqual([back, `/${ws.slug}`]);
      }
      const fine = await visitor.post(`${path}/vote`, { _csrf: token, intent: 'add', back: `/${ws.slug}/ideas?sort=top` });
      expect(fine.location).toBe(`/${ws.slug}/ideas?sort=top`);
    });

    it('allows a visitor 10 posts and 60 comments an hour, then answers 429 with Retry-After', async () => {
      const visitor = await signedIn('prolific@example.com');
      const board = await visitor.get(`/${ws.slug}/ideas`);
      const token = formToken(board.text, `/${ws.slug}/ideas/posts`);
      // Each past the "Similar posts" step (test/similar-posts.e2e.spec.ts), as "Post anyway" sends.
      for (let i = 0; i < 10; i++) expect((await visitor.post(`/${ws.slug}/ideas/posts`, { _csrf: token, title: `Prolific post ${i}`, similar: 'seen' })).status).toBe(303);
      const over = await visitor.post(`/${ws.slug}/ideas/posts`, { _csrf: token, title: 'One too many', similar: 'seen' });
      expect(over.status).toBe(429);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(3000);
      expect(pageText(over.text)).toContain('You can post 10 times an hour.');
      const titles = (await api.get('/api/v1/posts?q=Prolific&limit=100')).body.data.map((p: { title: string }) => p.title);
      expect(titles).toHaveLength(10);
      expect((await api.get('/api/v1/posts?q=many&limit=100')).body.data.map((p: { title: string }) => p.title)).not.toContain('One too many');

      const created = await post({ title: 'Much discussed' });
      const path = new URL(created.url).pathname;
      const commentToken = formToken((await visitor.get(path)).text, `${path}/comments`);
      for (let i = 0; i < 60; i++) expect((await visitor.post(`${path}/comments`, { _csrf: commentToken, body: `Comment ${i}` })).status).toBe(303);
      expect((await visitor.post(`${path}/comments`, { _csrf: commentToken, body: 'Comment 61' })).status).toBe(429);
      expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.comments).toBe(60);
    });

    it('cannot post to a private board or comment on its posts', async () => {
      const visitor = await signedIn('outsider@example.com');
      const token = formToken((await visitor.get(`/${ws.slug}/ideas`)).text, `/${ws.slug}/ideas/posts`);
      expect((await visitor.post(`/${ws.slug}/secret/posts`, { _csrf: token, title: 'Into the secret board' })).status).toBe(404);
      const secret = await post({ title: 'Secret, no comments from outside', board: 'secret' });
      expect((await visitor.post(`/${ws.slug}/ideas/p/${secret.id}/comments`, { _csrf: token, body: 'Hi' })).status).toBe(404);
      expect((await visitor.post(`/${ws.slug}/ideas/p/${secret.id}/vote`, { _csrf: token, intent: 'add' })).status).toBe(404);
      expect((await api.get(`/api/v1/posts/${secret.id}`)).body.data).toMatchObject({ votes: 1, comments: 0 });
    });
  });

  it('no workspace may take a name the service uses, nor a board the name of a site page', async () => {
    const workspaces = t.app.get(WorkspacesService);
    for (const slug of ['admin', 'api', 'assets', 'docs', 'email', 'embed', 'healthz', 'metrics', 'readyz']) {
      await expect(workspaces.create({ name: slug, slug, plan: 'free' })).rejects.toThrow(/must not be one of the service's own paths: admin, api, assets/);
    }
    for (const slug of ['roadmap', 'sign-in', 'sign-out', 'sso']) {
      await expect(t.app.get(BoardsService).create(ws.slug, { slug, name: slug })).rejects.toThrow(/public site's own pages/);
    }
    // Every route the service answers begins with one of those names, or is a workspace's site.
    const router = t.app.getHttpAdapter().getInstance().router as { stack: { route?: { path: string } }[] };
    const firsts = new Set(router.stack.filter((l) => l.route).map((l) => l.route!.path.split('/')[1]));
    const reserved = new Set(['admin', 'api', 'assets', 'docs', 'email', 'healthz', 'metrics', 'readyz', 'robots.txt', 'widget.js', ':workspace']);
    expect([...firsts].filter((f) => !reserved.has(f))).toEqual([]);
  });
});
