import Stripe from 'stripe';
import { BoardsService } from '../src/boards/boards.service';
import { ChangelogService } from '../src/changelog/changelog.service';
import { PostsService } from '../src/posts/posts.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { MailServer } from './support/mail';
import { formToken, pageText, ssoSigner, Visitor } from './support/site';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// The changelog end to end: the API over HTTP on the real database; publishing through the
// outbox processor (in-process, or two of them), with a real SMTP server and a local receiver.

const stripe = new Stripe('sk_test_x');
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const del = (api: Client, path: string) => api.request('DELETE', path);

async function post(api: Client, title: string, board = 'ideas') {
  const answer = await api.post('/api/v1/posts', { board, title, author: { name: 'Nomail Author' } });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: number; title: string; url: string };
}

describe('changelog API', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates a draft with its linked posts, its url and admin_url', async () => {
    const linked = await post(api, 'Export to CSV please');
    const answer = await api.post('/api/v1/changelog', { title: '  CSV export, at last ', type: 'new', post_ids: [linked.id, linked.id] });
    expect(answer.status).toBe(201);
    const entry = answer.body.data;
    expect(Object.keys(entry).sort()).toEqual(
      ['admin_url', 'body', 'created_at', 'id', 'posts', 'publish_at', 'published_at', 'state', 'title', 'type', 'updated_at', 'url'].sort(),
    );
    expect(entry).toMatchObject({ title: 'CSV export, at last', body: '', type: 'new', state: 'draft', publish_at: null, published_at: null });
    expect(entry.id).toBeGreaterThan(0);
    expect(entry.url).toBe(`https://boards.chorus.test/${ws.slug}/changelog/${entry.id}-csv-export-at-last`);
    expect(entry.admin_url).toBe(`https://chorus.test/admin/changelog/${entry.id}`);
    expect(entry.created_at).toMatch(ISO);
    expect(entry.posts).toHaveLength(1);
    expect(entry.posts[0]).toMatchObject({ id: linked.id, title: 'Export to CSV please', url: linked.url });

    const empty = await api.post('/api/v1/changelog', { title: '!!!!', type: 'fixed' });
    expect(empty.body.data.url).toBe(`https://boards.chorus.test/${ws.slug}/changelog/${empty.body.data.id}`);
  });

  it('answers every problem of a body in one answer', async () => {
    const answer = await api.post('/api/v1/changelog', { title: 'abc', body: 5, type: 'shiny', post_ids: [1, -2], publish_at: 'tomorrow', extra: 1 });
    expectError(
      answer,
      400,
      'invalid_request',
      'title: must be 4 to 120 characters; body: must be a string; type: must be one of new, improved, fixed; ' +
        'post_ids: must be an array of post ids (positive integers), at most 100; ' +
        'publish_at: must be an ISO 8601 date and time with a time zone, such as 2026-11-21T14:00:00Z; extra: is not allowed',
    );
    expectError(await api.post('/api/v1/changelog', {}), 400, 'invalid_request', 'title: is required; type: is required');
    const long = await api.post('/api/v1/changelog', { title: 'Long one', type: 'new', body: 'x'.repeat(20_001) });
    expectError(long, 400, 'invalid_request', 'body: must be at most 20000 characters');
    expectError(await api.patch('/api/v1/changelog/1', { type: null }), 400, 'invalid_request', 'type: must be a string, not null');
  });

  it('refuses post_ids naming no post of the workspace', async () => {
    const other = await createWorkspace(t.app);
    const theirs = await post(new Client(t.baseUrl, other.key), 'Not in this workspace');
    const mine = await post(api, 'In this workspace');
    const answer = await api.post('/api/v1/changelog', { title: 'Links', type: 'improved', post_ids: [mine.id, theirs.id, 999999999] });
    expectError(answer, 400, 'invalid_request', `post_ids: no post ${theirs.id}, 999999999 in this workspace`);
  });

  it('schedules, unschedules, publishes, and lists unpublished first then newest published', async () => {
    const own = await createWorkspace(t.app);
    const a = new Client(t.baseUrl, own.key);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = (await a.post('/api/v1/changelog', { title: 'Scheduled one', type: 'new', publish_at: future })).body.data;
    expect(scheduled).toMatchObject({ state: 'scheduled', publish_at: future, published_at: null });
    const first = (await a.post('/api/v1/changelog', { title: 'Published first', type: 'fixed', publish_at: new Date().toISOString() })).body.data;
    expect(first.state).toBe('published');
    expect(first.published_at).toMatch(ISO);
    expect(first.publish_at).toBeNull();
    const draft = (await a.post('/api/v1/changelog', { title: 'A draft', type: 'improved' })).body.data;
    await sleep(5);
    const second = (await a.post(`/api/v1/changelog/${draft.id}/publish`)).body.data;
    expect(second.state).toBe('published');
    const draft2 = (await a.post('/api/v1/changelog', { title: 'Another draft', type: 'improved' })).body.data;

    const list = await a.get('/api/v1/changelog');
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: { id: number }) => e.id)).toEqual([draft2.id, scheduled.id, second.id, first.id]);
    expect(list.body).toMatchObject({ has_more: false, next_offset: null });
    const paged = await a.get('/api/v1/changelog?limit=2&offset=1');
    expect(paged.body.data.map((e: { id: number }) => e.id)).toEqual([scheduled.id, second.id]);
    expect(paged.body).toMatchObject({ has_more: true, next_offset: 3 });
    const published = await a.get('/api/v1/changelog?state=published');
    expect(published.body.data.map((e: { id: number }) => e.id)).toEqual([second.id, first.id]);
    expectError(await a.get('/api/v1/changelog?state=gone'), 400, 'invalid_request', 'state: must be draft, scheduled or published');

    // null publish_at: a scheduled entry becomes a draft again.
    const unscheduled = await a.patch(`/api/v1/changelog/${scheduled.id}`, { publish_at: null });
    expect(unscheduled.body.data).toMatchObject({ state: 'draft', publish_at: null });
    // A published entry is edited, never un-published.
    const edited = await a.patch(`/api/v1/changelog/${first.id}`, { title: 'Published first, edited', publish_at: null, body: '# Hi' });
    expect(edited.body.data).toMatchObject({ state: 'published', published_at: first.published_at, title: 'Published first, edited', body: '# Hi' });
    expect(edited.body.data.url).toContain(`/changelog/${first.id}-published-first-edited`);
    const again = await a.post(`/api/v1/changelog/${first.id}/publish`);
    expect(again.status).toBe(200);
    expect(again.body.data.published_at).toBe(first.published_at);

    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM outbox_events WHERE workspace_id = $1 AND type = 'changelog.published'`,
      [own.id],
    );
    expect(count).toBe(2);
  });

  it('publishes a due entry once when several runs of the job race for it', async () => {
    const own = await createWorkspace(t.app);
    const a = new Client(t.baseUrl, own.key);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const entry = (await a.post('/api/v1/changelog', { title: 'Raced for', type: 'new', publish_at: later })).body.data;
    // Its time comes while no processor runs (this app has none).
    await t.db.query(`UPDATE changelog_entries SET publish_at = now() - interval '1 second' WHERE workspace_id = $1 AND id = $2`, [own.id, entry.id]);
    const changelog = t.app.get(ChangelogService);
    await Promise.all([changelog.runJobs(), changelog.runJobs(), changelog.runJobs(), a.post(`/api/v1/changelog/${entry.id}/publish`)]);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1 AND type = 'changelog.published'`, [own.id]);
    expect(n).toBe(1);
    expect((await a.get(`/api/v1/changelog/${entry.id}`)).body.data.state).toBe('published');
  });

  it('gets, changes links, and deletes in any state', async () => {
    const p1 = await post(api, 'First linked post');
    const p2 = await post(api, 'Second linked post', 'secret');
    const entry = (await api.post('/api/v1/changelog', { title: 'Linking', type: 'new', post_ids: [p1.id] })).body.data;
    const changed = await api.patch(`/api/v1/changelog/${entry.id}`, { post_ids: [p2.id, p1.id] });
    expect(changed.body.data.posts.map((p: { id: number }) => p.id)).toEqual([p1.id, p2.id].sort((x, y) => x - y));
    const fewer = await api.patch(`/api/v1/changelog/${entry.id}`, { post_ids: [p2.id] });
    expect(fewer.body.data.posts.map((p: { id: number }) => p.id)).toEqual([p2.id]);
    expect((await api.get(`/api/v1/changelog/${entry.id}`)).body.data.posts).toHaveLength(1);
    expect((await del(api, `/api/v1/changelog/${entry.id}`)).status).toBe(204);
    expectError(await api.get(`/api/v1/changelog/${entry.id}`), 404, 'not_found', 'No such changelog entry in this workspace.');
    expectError(await del(api, `/api/v1/changelog/${entry.id}`), 404, 'not_found');
    expectError(await api.get('/api/v1/changelog/abc'), 404, 'not_found');
    const other = await createWorkspace(t.app);
    expectError(await new Client(t.baseUrl, other.key).get(`/api/v1/changelog/${fewer.body.data.id}`), 404, 'not_found');
  });
});

describe('the public changelog pages', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let visitor: Visitor;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
    visitor = new Visitor(t.baseUrl);
  });
  afterAll(async () => {
    await t?.close();
  });

  const publish = async (body: Record<string, unknown>) => {
    const answer = await api.post('/api/v1/changelog', { type: 'new', publish_at: new Date().toISOString(), ...body });
    expect(answer.status).toBe(201);
    return answer.body.data;
  };

  it('shows an entry: title, type, date, Markdown with no raw HTML, and only its public linked posts', async () => {
    const open = await post(api, 'Public wish for export');
    const hidden = await post(api, 'Hidden wish zq7x', 'secret');
    const body = [
      '# Big heading',
      '',
      'Some **bold** and *soft* text, `code()` and a list:',
      '',
      '- one',
      '- two',
      '',
      '<script>alert("x")</script>',
      '',
      '<img src=x onerror="alert(1)">',
      '',
      '![tracker](https://evil.example/pixel.png "t")',
      '',
      `[ours](https://boards.chorus.test/${ws.slug}/ideas) [theirs](https://example.com/page) [bad](javascript:alert(1)) [worse](JaVaScRiPt:alert(2)) [data](data:text/html,hi)`,
    ].join('\n');
    const entry = await publish({ title: 'Export is here', body, type: 'improved', post_ids: [open.id, hidden.id] });
    expect(entry.posts).toHaveLength(2); // the API names both

    const path = new URL(entry.url).pathname;
    const page = await visitor.get(path);
    expect(page.status).toBe(200);
    const html = page.text;
    expect(html).toContain('<h1 class="user-text">Export is here</h1>');
    expect(html).toContain('<span class="status status-in_progress">Improved</span>');
    expect(html).toMatch(new RegExp(`<time datetime="${entry.published_at}">`));
    expect(html).toContain('<h2>Big heading</h2>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<em>soft</em>');
    expect(html).toContain('<code>code()</code>');
    expect(html).toContain('<li>one</li>');
    expect(html).not.toContain('<script>alert');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
    expect(html).not.toMatch(/<img[^>]*onerror/);
    expect(html).not.toContain('evil.example');
    expect(html).not.toMatch(/href="javascript:/i);
    expect(html).not.toMatch(/href="data:/i);
    expect(html).toContain(`<a href="https://boards.chorus.test/${ws.slug}/ideas">ours</a>`);
    expect(html).toContain('<a href="https://example.com/page" rel="nofollow ugc noopener">theirs</a>');
    expect(pageText(html)).toContain('bad');
    expect(html).toContain(`href="${new URL(open.url).pathname}"`);
    expect(html).not.toContain('Hidden wish zq7x');
    expect(html).toMatch(/<a href="\/[^"]+\/changelog"[^>]*>Changelog<\/a>/);

    // /changelog/<id> and a stale slug: 301 to its address; the post page says "Shipped in".
    expect((await visitor.get(`/${ws.slug}/changelog/${entry.id}`)).location).toBe(path);
    expect((await visitor.get(`/${ws.slug}/changelog/${entry.id}-old-title`)).location).toBe(path);
    const postPage = await visitor.get(new URL(open.url).pathname);
    expect(pageText(postPage.text)).toContain('Shipped in Export is here');
    expect(postPage.text).toContain(`href="${path}"`);

    // The list, the feed and the sitemap name no private post either.
    const list = await visitor.get(`/${ws.slug}/changelog`);
    expect(list.status).toBe(200);
    expect(list.text).toContain('Export is here');
    expect(list.text).not.toContain('Hidden wish zq7x');
    expect(list.text).not.toContain('<script>alert');
    const feed = await visitor.get(`/${ws.slug}/changelog/feed.atom`);
    expect(feed.status).toBe(200);
    expect(feed.headers.get('content-type')).toContain('application/atom+xml');
    expect(feed.text).toContain(`<id>${entry.url}</id>`);
    expect(feed.text).not.toContain('Hidden wish zq7x');
    expect(feed.text).toContain('&lt;strong&gt;bold&lt;/strong&gt;');
    expect(feed.text).not.toContain('<script');
    expect(feed.text).toContain('&amp;lt;script&amp;gt;');
    const sitemap = await visitor.get(`/${ws.slug}/sitemap.xml`);
    expect(sitemap.text).toContain(`<loc>${entry.url}</loc>`);
  });

  it('answers 404 for drafts, scheduled and deleted entries; pages ten at a time with "Next page"', async () => {
    const own = await createWorkspace(t.app);
    const a = new Client(t.baseUrl, own.key);
    const made = [];
    for (let i = 0; i < 11; i++) {
      made.push((await a.post('/api/v1/changelog', { title: `Entry ${i} shipped`, type: 'fixed', publish_at: new Date().toISOString() })).body.data);
    }
    const draft = (await a.post('/api/v1/changelog', { title: 'Draft entry', type: 'new' })).body.data;
    const scheduled = (await a.post('/api/v1/changelog', { title: 'Scheduled entry', type: 'new', publish_at: new Date(Date.now() + 3_600_000).toISOString() })).body.data;
    expect((await visitor.get(new URL(draft.url).pathname)).status).toBe(404);
    expect((await visitor.get(new URL(scheduled.url).pathname)).status).toBe(404);
    expect((await a.request('DELETE', `/api/v1/changelog/${made[0].id}`)).status).toBe(204);
    expect((await visitor.get(new URL(made[0].url).pathname)).status).toBe(404);
    made.shift();
    for (let i = 0; i < 2; i++) made.push((await a.post('/api/v1/changelog', { title: `Late ${i}`, type: 'new', publish_at: new Date().toISOString() })).body.data);

    const first = await visitor.get(`/${own.slug}/changelog`);
    const titles = (html: string) => [...html.matchAll(/<h2 id="entry-\d+" class="user-text"><a href="[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]);
    const newest = [...made].reverse().map((e) => e.title);
    expect(titles(first.text)).toEqual(newest.slice(0, 10));
    expect(first.text).not.toContain('Draft entry');
    expect(first.text).not.toContain('Scheduled entry');
    const next = /<a href="([^"]+)" rel="next">Next page<\/a>/.exec(first.text)![1];
    const second = await visitor.get(next.replace(/&amp;/g, '&'));
    expect(titles(second.text)).toEqual(newest.slice(10));
    expect(second.text).not.toContain('Next page');
  });

  it('lets a signed-in visitor subscribe to updates and unsubscribe, by forms', async () => {
    const { sign } = await ssoSigner(t.app, ws.id);
    const reader = new Visitor(t.baseUrl);
    const signedIn = await reader.get(`/${ws.slug}/sso?token=${await sign({ email: `reader@${ws.slug}.example`, name: 'Rita Reader' }, { expiresIn: '5m' })}`);
    expect(signedIn.status).toBe(303);
    expect(pageText((await visitor.get(`/${ws.slug}/changelog`)).text)).not.toContain('Subscribe to updates');
    const page = await reader.get(`/${ws.slug}/changelog`);
    expect(page.text).toContain('>Subscribe to updates</button>');
    const action = `/${ws.slug}/changelog/subscription`;
    const done = await reader.post(action, { _csrf: formToken(page.text, action), intent: 'add' });
    expect(done.status).toBe(303);
    const [row] = await t.db.query(
      `SELECT count(*)::int AS n FROM changelog_subscribers s JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id
        WHERE s.workspace_id = $1 AND p.email = $2`,
      [ws.id, `reader@${ws.slug}.example`],
    );
    expect(row.n).toBe(1);
    const after = await reader.follow(done);
    expect(after.text).toContain('>Unsubscribe from updates</button>');
    const undone = await reader.post(action, { _csrf: formToken(after.text, action), intent: 'remove' });
    expect(undone.status).toBe(303);
    expect((await reader.follow(undone)).text).toContain('>Subscribe to updates</button>');
    // Without the form's token: refused.
    expect((await reader.post(action, { intent: 'add' })).status).toBe(403);
  });
});

describe('changelog publishing', () => {
  let releaseLock: () => Promise<void>;
  const workspaces: string[] = [];
  let smtp: MailServer;

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    smtp = await new MailServer().start();
  }, 180_000);
  afterAll(async () => {
    await smtp?.close();
    await closeReceivers();
    await releaseLock?.();
  });

  const workerEnv = () => ({ RUN_WORKER: 'true', SMTP_URL: smtp.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });

  async function workspace(t: TestApp) {
    const ws = await createWorkspace(t.app);
    workspaces.push(ws.id);
    return { ws, api: new Client(t.baseUrl, ws.key), domain: `${ws.slug}.example` };
  }

  const person = (t: TestApp, ws: TestWorkspace, name: string, email: string) =>
    t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'guest', name, email });
  const vote = (t: TestApp, ws: TestWorkspace, postId: number, personId: string) => t.app.get(PostsService).vote(ws.actor, postId, personId);

  const changelogEmails = (t: TestApp, workspaceId: string): Promise<{ recipient: string; status: string }[]> =>
    t.db.query(
      `SELECT recipient, status FROM webhook_deliveries WHERE workspace_id = $1 AND event_type = 'changelog.published' AND recipient IS NOT NULL
        ORDER BY recipient`,
      [workspaceId],
    );
  const events = async (t: TestApp, workspaceId: string): Promise<number> =>
    (await t.db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1 AND type = 'changelog.published'`, [workspaceId]))[0].n;
  const mailDone = (t: TestApp, workspaceId: string) =>
    until('the entry\'s emails to be made', async () => {
      const [row] = await t.db.query(
        `SELECT count(*)::int AS n FROM changelog_entries WHERE workspace_id = $1 AND (mail_after IS NOT NULL OR published_at IS NULL)`,
        [workspaceId],
      );
      return row.n === 0;
    });

  describe('with one processor', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startTestApp(workerEnv());
    });
    afterAll(async () => {
      if (t) {
        await cancelPending(t.db, workspaces);
        await t.close();
      }
    });

    it('emails each address once: voters of linked posts on public boards with voter email on, and subscribers; not the unsubscribed nor the publisher', async () => {
      const { ws, api, domain } = await workspace(t);
      await t.app.get(BoardsService).create(ws.slug, { slug: 'quiet', name: 'Quiet', notifyVoters: false });
      const a = await post(api, 'Dark mode');
      const b = await post(api, 'Darker mode');
      const quiet = await post(api, 'Quiet board post', 'quiet');
      const secret = await post(api, 'Private board post', 'secret');
      const ann = await person(t, ws, 'Ann', `ann@${domain}`);
      const dan = await person(t, ws, 'Dan', `DAN@${domain.toUpperCase()}`);
      const eve = await person(t, ws, 'Eve', `eve@${domain}`);
      const fay = await person(t, ws, 'Fay', `fay@${domain}`);
      const gus = await person(t, ws, 'Gus', `gus@${domain}`);
      const hal = await person(t, ws, 'Hal', `hal@${domain}`);
      for (const who of [ann, dan, eve, ws.member]) await vote(t, ws, a.id, who.id);
      await vote(t, ws, b.id, ann.id);
      // Dan again, by his address in another case: the same person.
      const byMail = await api.post(`/api/v1/posts/${b.id}/votes`, { voter: { email: `Dan@${domain}` } });
      expect(byMail.status).toBe(201);
      await vote(t, ws, quiet.id, fay.id);
      await vote(t, ws, secret.id, gus.id);
      await t.app.get(WorkspacesService).unsubscribe(ws.id, `EVE@${domain}`);
      const changelog = t.app.get(ChangelogService);
      await changelog.setSubscribed(ws.id, hal.id, true);
      await changelog.setSubscribed(ws.id, dan.id, true); // a subscriber who voted: one email
      await changelog.setSubscribed(ws.id, ws.member.id, true); // the publisher: none

      const receiver = (await Receiver.start()).answer(200);
      const endpoint = (await api.post('/api/v1/webhook_endpoints', { url: receiver.url, events: ['changelog.published'] })).body.data;

      const created = await api.post('/api/v1/changelog', {
        title: 'Dark mode shipped',
        body: 'Both of them.',
        type: 'new',
        post_ids: [a.id, b.id, quiet.id, secret.id],
        publish_at: new Date().toISOString(),
      });
      expect(created.status).toBe(201);
      const entry = created.body.data;
      await mailDone(t, ws.id);
      const emails = await until('the emails to be sent', async () => {
        const rows = await changelogEmails(t, ws.id);
        return rows.length > 0 && rows.every((r) => r.status !== 'pending') && rows;
      });
      expect(emails.map((r) => r.recipient)).toEqual([`ann@${domain}`, `dan@${domain}`, `hal@${domain}`]);
      expect(emails.every((r) => r.status === 'delivered')).toBe(true);

      const mails = smtp.to(domain);
      expect(mails.map((m) => m.envelopeTo[0]).sort()).toEqual([`ann@${domain}`, `dan@${domain}`, `hal@${domain}`]);
      const annMail = mails.find((m) => m.envelopeTo[0] === `ann@${domain}`)!.mail;
      expect(annMail.subject).toBe('Shipped: “Dark mode shipped”');
      expect(annMail.text).toContain(entry.url);
      expect(annMail.text).toContain('Dark mode\n');
      expect(annMail.text).toContain('Darker mode');
      expect(annMail.text).not.toContain('Quiet board post');
      expect(annMail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      expect(annMail.headers.get('list-unsubscribe')).toMatch(/^<https:\/\/chorus\.test\/email\/unsubscribe\//);
      const halMail = mails.find((m) => m.envelopeTo[0] === `hal@${domain}`)!.mail;
      expect(halMail.text).not.toContain('You voted for');
      expect(halMail.text).toContain('subscribed');

      // The event, at the receiver, signed.
      const [request] = await receiver.waitFor(1);
      expect(request.headers['chorus-event']).toBe('changelog.published');
      const verified = stripe.webhooks.constructEvent(request.raw, String(request.headers['chorus-signature']), endpoint.secret);
      expect(verified.type).toBe('changelog.published');
      expect(request.body.data.entry).toMatchObject({ id: entry.id, state: 'published', url: entry.url });
      expect(request.body.data.entry.posts).toHaveLength(4);

      // A second publish and an edit send nothing more.
      expect((await api.post(`/api/v1/changelog/${entry.id}/publish`)).status).toBe(200);
      expect((await api.patch(`/api/v1/changelog/${entry.id}`, { title: 'Dark mode shipped (edited)', publish_at: new Date().toISOString() })).status).toBe(200);
      await sleep(2_500);
      expect(await events(t, ws.id)).toBe(1);
      expect(await changelogEmails(t, ws.id)).toHaveLength(3);
      expect(smtp.to(domain)).toHaveLength(3);
      expect(receiver.requests).toHaveLength(1);
    }, 60_000);

    it('sends nothing for a draft', async () => {
      const { ws, api, domain } = await workspace(t);
      const p = await post(api, 'Some post');
      const ann = await person(t, ws, 'Ann', `ann@${domain}`);
      await vote(t, ws, p.id, ann.id);
      const draft = (await api.post('/api/v1/changelog', { title: 'Only a draft', type: 'new', post_ids: [p.id] })).body.data;
      expect(draft.state).toBe('draft');
      // An entry of another workspace, published after the draft was made, shows the processor at
      // work: once its email has arrived, the draft has had its chance to send and sent nothing.
      const other = await workspace(t);
      const q = await post(other.api, 'Some other post');
      await vote(t, other.ws, q.id, (await person(t, other.ws, 'Bea', `bea@${other.domain}`)).id);
      const published = await other.api.post('/api/v1/changelog', { title: 'Published beside it', type: 'new', post_ids: [q.id], publish_at: new Date().toISOString() });
      expect(published.status).toBe(201);
      await until('the other entry\'s email to arrive', async () => smtp.to(other.domain).length === 1);
      expect(await events(t, other.ws.id)).toBe(1);
      expect(await events(t, ws.id)).toBe(0);
      expect(await changelogEmails(t, ws.id)).toHaveLength(0);
      expect(smtp.to(domain)).toHaveLength(0);
      expect((await api.get(`/api/v1/changelog/${draft.id}`)).body.data.state).toBe('draft');
    });

    it('publishes a scheduled entry when its time comes', async () => {
      const { ws, api, domain } = await workspace(t);
      const p = await post(api, 'Scheduled post');
      const ann = await person(t, ws, 'Ann', `ann@${domain}`);
      await vote(t, ws, p.id, ann.id);
      const at = new Date(Date.now() + 1_500);
      const entry = (await api.post('/api/v1/changelog', { title: 'Later', type: 'fixed', post_ids: [p.id], publish_at: at.toISOString() })).body.data;
      expect(entry.state).toBe('scheduled');
      await until('the entry to be published', async () => {
        const [row] = await t.db.query(`SELECT published_at FROM changelog_entries WHERE workspace_id = $1 AND id = $2`, [ws.id, entry.id]);
        return row.published_at !== null;
      });
      const published = (await api.get(`/api/v1/changelog/${entry.id}`)).body.data;
      expect(published.state).toBe('published');
      expect(new Date(published.published_at).getTime()).toBeGreaterThanOrEqual(at.getTime());
      await mailDone(t, ws.id);
      expect((await changelogEmails(t, ws.id)).map((r) => r.recipient)).toEqual([`ann@${domain}`]);
      expect(await events(t, ws.id)).toBe(1);
    });
  });

  it('publishes once with two processors, and a schedule outlives a restart', async () => {
    // Scheduled while no processor runs: the schedule is in the table.
    const first = await startTestApp();
    const { ws, api, domain } = await workspace(first);
    const p = await post(api, 'Wanted by many');
    const voters = [];
    for (let i = 0; i < 30; i++) voters.push(await person(first, ws, `Voter ${i}`, `v${i}@${domain}`));
    for (const v of voters) await vote(first, ws, p.id, v.id);
    const entries = [];
    for (let i = 0; i < 5; i++) {
      const at = new Date(Date.now() + 2_000).toISOString();
      entries.push((await api.post('/api/v1/changelog', { title: `Entry number ${i}`, type: 'new', post_ids: [p.id], publish_at: at })).body.data);
    }
    await first.close();

    const [one, two] = [await startTestApp(workerEnv()), await startTestApp(workerEnv())];
    // Small batches: several per entry, made by whichever processor gets each.
    for (const app of [one, two]) app.app.get(ChangelogService).batchSize = 7;
    try {
      // Both processors race; the jobs are also run by hand on both at once.
      await sleep(2_000);
      await Promise.all([one.app.get(ChangelogService).runJobs(), two.app.get(ChangelogService).runJobs()]);
      await until('every entry published', async () => {
        const [row] = await one.db.query(`SELECT count(*)::int AS n FROM changelog_entries WHERE workspace_id = $1 AND published_at IS NULL`, [ws.id]);
        return row.n === 0;
      });
      await mailDone(one, ws.id);
      await sleep(1_000);
      expect(await events(one, ws.id)).toBe(5);
      const emails = await changelogEmails(one, ws.id);
      expect(emails).toHaveLength(5 * 30);
      const perAddress = new Map<string, number>();
      for (const e of emails) perAddress.set(e.recipient, (perAddress.get(e.recipient) ?? 0) + 1);
      expect([...perAddress.values()].every((n) => n === 5)).toBe(true);
      expect(perAddress.size).toBe(30);
    } finally {
      await cancelPending(one.db, workspaces);
      await Promise.all([one.close(), two.close()]);
    }
  }, 90_000);
});
