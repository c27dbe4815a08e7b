import { randomBytes } from 'node:crypto';
import { ModerationService } from '../src/moderation/moderation.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { MailServer } from './support/mail';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Receiver } from './support/receiver';
import { formToken, pageText, sentSignIn, ssoSigner, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Moderation end to end: the real app with its outbox processor in-process, a webhook receiver
// on a local port subscribed to every event type, a real SMTP server for voter email, and
// visitors signed in by SSO and by an emailed code posting through the public site's forms.
// Nothing held may reach the receiver, the mail server, a feed or a page until it is approved.

const run = randomBytes(3).toString('hex');
const ALL_EVENTS = ['post.created', 'post.status_changed', 'comment.created', 'post.voted', 'post.pending', 'comment.pending'];

describe('moderation', () => {
  let t: TestApp;
  let smtp: MailServer;
  let releaseLock: () => Promise<void>;
  const workspaces: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    smtp = await new MailServer().start();
    t = await startTestApp({
      RUN_WORKER: 'true',
      SMTP_URL: smtp.url,
      WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    });
  }, 180_000);
  afterAll(async () => {
    if (t) {
      await cancelPending(t.db, workspaces);
      await t.close();
    }
    await smtp?.close();
    await closeReceivers();
    await releaseLock?.();
  });

  interface Setup {
    ws: TestWorkspace;
    api: Client;
    receiver: Receiver;
    domain: string;
  }

  async function setup(moderation: 'off' | 'first' | 'all'): Promise<Setup> {
    const ws = await createWorkspace(t.app, { plan: 'business' });
    workspaces.push(ws.id);
    await t.app.get(WorkspacesService).setModeration(ws.slug, moderation);
    const api = new Client(t.baseUrl, ws.key);
    const receiver = await Receiver.start();
    const endpoint = await api.post('/api/v1/webhook_endpoints', { url: `${receiver.url}/hook`, events: ALL_EVENTS });
    expect(endpoint.status).toBe(201);
    return { ws, api, receiver, domain: `${ws.slug}.example` };
  }

  async function bySso(s: Setup, name: string): Promise<Visitor> {
    const { sign } = await ssoSigner(t.app, s.ws.id);
    const visitor = new Visitor(t.baseUrl);
    const token = await sign({ email: `${name.toLowerCase()}@${s.domain}`, name }, { expiresIn: '10m' });
    const answer = await visitor.get(`/${s.ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(`/${s.ws.slug}/ideas`)}`);
    expect(answer.status).toBe(303);
    return visitor;
  }

  async function byCode(s: Setup, name: string): Promise<Visitor> {
    const visitor = new Visitor(t.baseUrl);
    const email = `${name.toLowerCase()}-${run}@${s.domain}`;
    const form = await visitor.get(`/${s.ws.slug}/sign-in`);
    const sent = await visitor.post(`/${s.ws.slug}/sign-in`, { _csrf: formToken(form.text), email, name, redirect: '' });
    expect(sent.status).toBe(303);
    const codePage = await visitor.get(`/${s.ws.slug}/sign-in/code`);
    const { code } = await sentSignIn(t.db, email);
    const signedIn = await visitor.post(`/${s.ws.slug}/sign-in/code`, { _csrf: formToken(codePage.text), code: code! });
    expect(signedIn.status).toBe(303);
    return visitor;
  }

  /** Posts through the board's form; answers the new post's id and page path. */
  async function sitePost(s: Setup, visitor: Visitor, title: string): Promise<{ id: number; path: string }> {
    const board = await visitor.get(`/${s.ws.slug}/ideas`);
    const made = await visitor.post(`/${s.ws.slug}/ideas/posts`, {
      _csrf: formToken(board.text, `/${s.ws.slug}/ideas/posts`),
      title,
      body: `Details of ${title}`,
      category: 'feature',
      similar: 'seen', // past the "Similar posts" step, as "Post anyway" sends: these titles are alike
    });
    expect(made.status).toBe(303);
    const path = made.location!.replace(/^https?:\/\/[^/]+/, '');
    return { id: Number(/\/p\/(\d+)/.exec(path)![1]), path };
  }

  async function siteComment(visitor: Visitor, postPath: string, body: string): Promise<number> {
    const page = await visitor.get(postPath);
    expect(page.status).toBe(200);
    const made = await visitor.post(`${postPath}/comments`, { _csrf: formToken(page.text, `${postPath}/comments`), body });
    expect(made.status).toBe(303);
    return Number(/#comment-(\d+)/.exec(made.location!)![1]);
  }

  /** Every event of the workspace fanned out and every delivery settled; the receiver's events by type. */
  async function settled(s: Setup): Promise<{ type: string; data: any }[]> {
    await until('events fanned out and deliveries settled', async () => {
      const [events] = await t.db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1 AND dispatched_at IS NULL`, [s.ws.id]);
      const [deliveries] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1 AND status = 'pending'`, [s.ws.id]);
      return events.n === 0 && deliveries.n === 0;
    });
    return s.receiver.requests.map((r) => r.body);
  }

  const ofPost = (events: { type: string; data: any }[], id: number) => events.filter((e) => e.data.post?.id === id).map((e) => e.type);

  it('mode off: a visitor\'s post shows at once and sends post.created', async () => {
    const s = await setup('off');
    const visitor = await bySso(s, 'Otto');
    const { id } = await sitePost(s, visitor, `Open post ${run}`);
    const got = await s.api.get(`/api/v1/posts/${id}`);
    expect(got.body.data.moderation).toBe('approved');
    expect(pageText((await new Visitor(t.baseUrl).get(`/${s.ws.slug}/ideas`)).text)).toContain(`Open post ${run}`);
    expect(ofPost(await settled(s), id)).toEqual(['post.created']);
  });

  it('mode all (SSO visitor): a held post and comment are nowhere but for their author and the team until approved; then exactly one post.created', async () => {
    const s = await setup('all');
    const author = await bySso(s, 'Hana');
    const other = await bySso(s, 'Omar');
    const anonymous = new Visitor(t.baseUrl);
    const shown = await s.api.post('/api/v1/posts', { board: 'ideas', title: `Shown post ${run}` });
    expect(shown.body.data.moderation).toBe('approved'); // a key's post is never held
    const shownPath = new URL(shown.body.data.url).pathname;
    const homeBefore = pageText((await anonymous.get(`/${s.ws.slug}`)).text);

    const title = `Held post ${run}`;
    const held = await sitePost(s, author, title);
    const commentId = await siteComment(author, shownPath, `Held comment ${run}`);

    // The team sees both, with the key.
    const got = await s.api.get(`/api/v1/posts/${held.id}`);
    expect(got.status).toBe(200);
    expect(got.body.data.moderation).toBe('pending');
    const createdAt = got.body.data.created_at;

    // Lists, search, counts, feeds, sitemap, roadmap: nothing.
    expect((await s.api.get('/api/v1/posts')).body.data.map((p: any) => p.id)).not.toContain(held.id);
    expect((await s.api.get(`/api/v1/posts?q=${encodeURIComponent(title)}`)).body.data).toEqual([]);
    expect((await s.api.get('/api/v1/posts?moderation=pending')).body.data.map((p: any) => p.id)).toEqual([held.id]);
    expect((await s.api.get('/api/v1/posts?moderation=rejected')).body.data).toEqual([]);
    expect((await s.api.get(`/api/v1/posts/${shown.body.data.id}/comments`)).body.data).toEqual([]);
    expect((await s.api.get(`/api/v1/posts/${shown.body.data.id}`)).body.data.comments).toBe(0);
    expect((await s.api.patch(`/api/v1/posts/${held.id}`, { status: 'planned' })).status).toBe(200); // a held post may be changed
    for (const path of [`/${s.ws.slug}/ideas`, `/${s.ws.slug}/ideas?q=${encodeURIComponent(title)}`, `/${s.ws.slug}/ideas/feed.atom`, `/${s.ws.slug}/sitemap.xml`, `/${s.ws.slug}/roadmap`]) {
      const page = await anonymous.get(path);
      expect([path, page.status]).toEqual([path, 200]);
      if (!path.includes('?q=')) expect(page.text).not.toContain(title); // a search page shows its terms
      expect(page.text).not.toContain(`/p/${held.id}`);
    }
    expect(pageText((await anonymous.get(`/${s.ws.slug}`)).text)).toBe(homeBefore); // the board's count of posts
    expect(pageText((await anonymous.get(shownPath)).text)).not.toContain(`Held comment ${run}`);

    // Its page: the author sees it marked, anyone else gets the 404 page.
    const own = await author.get(held.path);
    expect(own.status).toBe(200);
    expect(pageText(own.text)).toContain('Awaiting review');
    expect(pageText((await author.get(shownPath)).text)).toContain(`Held comment ${run} `.trim());
    expect((await anonymous.get(held.path)).status).toBe(404);
    expect((await other.get(held.path)).status).toBe(404);
    expect(pageText((await other.get(shownPath)).text)).not.toContain(`Held comment ${run}`);

    // The queue: the post, then the comment with its post.
    const queue = (await s.api.get('/api/v1/moderation')).body;
    expect(queue.data.map((i: any) => [i.kind, i.post.id, i.comment?.id])).toEqual([
      ['post', held.id, undefined],
      ['comment', shown.body.data.id, commentId],
    ]);
    expect(queue.data[1].comment.moderation).toBe('pending');

    // Sent so far: post.pending and comment.pending only; no email to the held post's voter (its author).
    let events = await settled(s);
    expect(ofPost(events, held.id)).toEqual(['post.pending']);
    expect(events.find((e) => e.type === 'post.pending')!.data.post.moderation).toBe('pending');
    expect(events.filter((e) => e.type === 'comment.pending').map((e) => e.data.comment.id)).toEqual([commentId]);
    expect(events.some((e) => e.type === 'comment.created')).toBe(false);
    await sleep(300);
    expect(smtp.to(s.domain)).toEqual([]);

    // Approval: 200 with the object, post.created once, created_at unchanged; the same again changes and sends nothing.
    const approved = await s.api.post(`/api/v1/posts/${held.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.data).toMatchObject({ id: held.id, moderation: 'approved', status: 'planned', created_at: createdAt });
    expect((await s.api.post(`/api/v1/posts/${held.id}/approve`)).body.data.moderation).toBe('approved');
    const approvedComment = await s.api.post(`/api/v1/comments/${commentId}/approve`);
    expect(approvedComment.status).toBe(200);
    expect(approvedComment.body.data).toMatchObject({ id: commentId, moderation: 'approved' });
    events = await settled(s);
    expect(ofPost(events, held.id)).toEqual(['post.pending', 'post.created']);
    expect(events.find((e) => e.type === 'post.created' && e.data.post.id === held.id)!.data.post).toMatchObject({ moderation: 'approved', created_at: createdAt });
    expect(events.filter((e) => e.type === 'comment.created').map((e) => e.data.comment.id)).toEqual([commentId]);
    expect((await s.api.get(`/api/v1/posts/${shown.body.data.id}`)).body.data.comments).toBe(1);

    // Now it is everywhere.
    expect((await anonymous.get(held.path)).status).toBe(200);
    expect(pageText((await anonymous.get(held.path)).text)).not.toContain('Awaiting review');
    expect((await anonymous.get(`/${s.ws.slug}/ideas/feed.atom`)).text).toContain(title);
    expect((await anonymous.get(`/${s.ws.slug}/roadmap`)).text).toContain(title);
    expect(pageText((await anonymous.get(shownPath)).text)).toContain(`Held comment ${run}`);
    expect((await s.api.get('/api/v1/moderation')).body.data).toEqual([]);
  });

  it('a rejected post never shows nor sends post.created, nor comment.created for a comment on it, and its author is told nothing', async () => {
    const s = await setup('all');
    const author = await bySso(s, 'Rita');
    const title = `Spam post ${run}`;
    const held = await sitePost(s, author, title);
    const commentId = await siteComment(author, held.path, `On my own post ${run}`); // held too, on a held post
    const rejected = await s.api.post(`/api/v1/posts/${held.id}/reject`);
    expect([rejected.status, rejected.body.data.moderation]).toEqual([200, 'rejected']);
    expect((await s.api.post(`/api/v1/posts/${held.id}/reject`)).status).toBe(200);
    expect((await s.api.get('/api/v1/posts?moderation=rejected')).body.data.map((p: any) => p.id)).toEqual([held.id]);
    // The queue keeps the comment on it, which waits for a verdict of its own.
    expect((await s.api.get('/api/v1/moderation')).body.data.map((i: any) => [i.kind, i.comment?.id])).toEqual([['comment', commentId]]);
    expect((await new Visitor(t.baseUrl).get(held.path)).status).toBe(404);
    expect(pageText((await author.get(held.path)).text)).toContain('Awaiting review');
    await s.api.patch(`/api/v1/posts/${held.id}`, { status: 'done' });
    // Its comment approved while the post stays out: the comment waits with its post, and nothing tells of either.
    expect((await s.api.post(`/api/v1/comments/${commentId}/approve`)).body.data.moderation).toBe('approved');
    const events = await settled(s);
    expect(ofPost(events, held.id)).toEqual(['post.pending', 'comment.pending']);
    await sleep(300);
    expect(smtp.to(s.domain)).toEqual([]);
  });

  it('mode first (emailed-code visitor): held until one is approved, then no longer; a member is never held', async () => {
    const s = await setup('first');
    const visitor = await byCode(s, 'Fern');
    const first = await sitePost(s, visitor, `First post ${run}`);
    const firstComment = await siteComment(visitor, first.path, `First comment ${run}`);
    expect((await s.api.get(`/api/v1/posts/${first.id}`)).body.data.moderation).toBe('pending');
    expect((await s.api.get('/api/v1/moderation')).body.data.map((i: any) => i.kind)).toEqual(['post', 'comment']);
    // A second post is held too, as long as none is approved.
    const second = await sitePost(s, visitor, `Second post ${run}`);
    expect((await s.api.get(`/api/v1/posts/${second.id}`)).body.data.moderation).toBe('pending');

    await s.api.post(`/api/v1/comments/${firstComment}/approve`);
    const third = await sitePost(s, visitor, `Third post ${run}`);
    expect((await s.api.get(`/api/v1/posts/${third.id}`)).body.data.moderation).toBe('approved');
    expect((await new Visitor(t.baseUrl).get(third.path)).status).toBe(200);

    // A member signed in on the site: never held, even first time.
    const { sign } = await ssoSigner(t.app, s.ws.id);
    const member = new Visitor(t.baseUrl);
    await member.get(`/${s.ws.slug}/sso?token=${await sign({ email: s.ws.member.email, name: 'Olive Owner' }, { expiresIn: '10m' })}`);
    const byMember = await sitePost(s, member, `Member post ${run}`);
    expect((await s.api.get(`/api/v1/posts/${byMember.id}`)).body.data.moderation).toBe('approved');

    const events = await settled(s);
    // The approved comment is on a post still held: nothing tells of it until its post is approved.
    expect(ofPost(events, first.id)).toEqual(['post.pending', 'comment.pending']);
    expect(ofPost(events, second.id)).toEqual(['post.pending']);
    expect(ofPost(events, third.id)).toEqual(['post.created']);
    expect(ofPost(events, byMember.id)).toEqual(['post.created']);
  });

  it('the queue: pending items oldest first, paged with limit and offset; another workspace\'s ids answer 404', async () => {
    const s = await setup('all');
    const visitor = await bySso(s, 'Quinn');
    const posts = [];
    for (const n of [1, 2, 3]) posts.push(await sitePost(s, visitor, `Queued ${n} ${run}`));
    const first = await s.api.get('/api/v1/moderation?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.data.map((i: any) => i.post.id)).toEqual([posts[0].id, posts[1].id]);
    expect([first.body.has_more, first.body.next_offset]).toEqual([true, 2]);
    const next = await s.api.get('/api/v1/moderation?limit=2&offset=2');
    expect(next.body.data.map((i: any) => i.post.id)).toEqual([posts[2].id]);
    expect([next.body.has_more, next.body.next_offset]).toEqual([false, null]);
    expect((await s.api.get('/api/v1/moderation?limit=0')).status).toBe(400);

    const stranger = await setup('all');
    const commentId = await siteComment(visitor, (await s.api.get(`/api/v1/posts/${posts[0].id}`)) && posts[0].path, `Queued comment ${run}`);
    for (const path of [`/api/v1/posts/${posts[0].id}/approve`, `/api/v1/posts/${posts[0].id}/reject`, `/api/v1/comments/${commentId}/approve`, `/api/v1/comments/${commentId}/reject`]) {
      const answer = await stranger.api.post(path);
      expect([path, answer.status, answer.body.error.code]).toEqual([path, 404, 'not_found']);
    }
    expect((await stranger.api.get(`/api/v1/posts/${posts[0].id}`)).status).toBe(404);
    expect((await stranger.api.get('/api/v1/moderation')).body.data).toEqual([]);
    expect((await s.api.get(`/api/v1/posts/${posts[0].id}`)).body.data.moderation).toBe('pending');
  });

  it('a published post is not merged into a held or rejected one; a held post may be merged into a published one', async () => {
    const s = await setup('all');
    const visitor = await bySso(s, 'Mira');
    const held = await sitePost(s, visitor, `Held target ${run}`);
    const spurned = await sitePost(s, visitor, `Rejected target ${run}`);
    expect((await s.api.post(`/api/v1/posts/${spurned.id}/reject`)).status).toBe(200);
    const published = await s.api.post('/api/v1/posts', { board: 'ideas', title: `Published ${run}` });
    expect(published.body.data.moderation).toBe('approved');
    const id = published.body.data.id;

    for (const [target, why] of [[held.id, 'is awaiting review; approve it first'], [spurned.id, 'was rejected']] as const) {
      const refused = await s.api.post(`/api/v1/posts/${id}/merge`, { into: target });
      expect([refused.status, refused.body.error]).toEqual([400, { code: 'invalid_request', message: `into: post ${target} ${why}` }]);
    }
    expect((await s.api.get(`/api/v1/posts/${id}`)).body.data).toMatchObject({ status: 'open', merged_into: null });

    const merged = await s.api.post(`/api/v1/posts/${held.id}/merge`, { into: id });
    expect(merged.status).toBe(200);
    expect(merged.body.data).toMatchObject({ status: 'closed', merged_into: { id }, moderation: 'pending' });
    // Nothing about the held post went out: it was never published.
    expect(ofPost(await settled(s), held.id)).toEqual(['post.pending']);
  });

  it('rejecting a person\'s held items at once (blocking) rejects their pending posts and comments only', async () => {
    const s = await setup('all');
    const visitor = await bySso(s, 'Blake');
    const a = await sitePost(s, visitor, `Blocked A ${run}`);
    const b = await sitePost(s, visitor, `Blocked B ${run}`);
    await s.api.post(`/api/v1/posts/${b.id}/approve`);
    const c = await siteComment(visitor, b.path, `Blocked comment ${run}`);
    const person = (await t.db.query(`SELECT id FROM people WHERE workspace_id = $1 AND email = $2`, [s.ws.id, `blake@${s.domain}`]))[0].id;
    const done = await t.app.get(ModerationService).rejectHeldOf(s.ws.id, person);
    expect(done).toEqual({ posts: [a.id], comments: [c] });
    expect((await s.api.get(`/api/v1/posts/${a.id}`)).body.data.moderation).toBe('rejected');
    expect((await s.api.get(`/api/v1/posts/${b.id}`)).body.data.moderation).toBe('approved');
    expect((await s.api.get('/api/v1/moderation')).body.data).toEqual([]);
  });
});
