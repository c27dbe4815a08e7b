import { randomBytes } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { SessionsService } from '../src/web/shared/sessions.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { disposableEmailBlocklist } from 'disposable-email-domains-js';
import { normalDomain } from '../src/common/email-address';
import { atBlockedDomain, atDisposableDomain, parseBlockedDomains } from '../src/workspaces/email-domains';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { MailServer } from './support/mail';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { formToken, pageText, sentSignIn, signedInMember, ssoSigner, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';
import { until } from './support/wait';

// Blocking people and refusing sign-ins (the contract's "Moderation and similar posts"): two
// instances of the app on one database, the first running the outbox processor with a real SMTP
// server behind it. Blocking on one ends the person's sessions on both at once; a blocked person's
// sign-in (SSO, an emailed code, in the site and the widget's frame) gets "You cannot post here.";
// addresses at blocked or disposable domains get the same page and are sent nothing.

const run = randomBytes(3).toString('hex');
const REFUSED = 'You cannot post here.';

describe('blocking people and refusing sign-ins', () => {
  let a: TestApp;
  let b: TestApp;
  let smtp: MailServer;
  let release: () => Promise<void>;
  let ws: TestWorkspace;
  let other: TestWorkspace;
  let sign: Awaited<ReturnType<typeof ssoSigner>>['sign'];

  beforeAll(async () => {
    release = await holdProcessorLock();
    smtp = await new MailServer().start();
    a = await startTestApp({ RUN_WORKER: 'true', SMTP_URL: smtp.url });
    b = await startTestApp();
    ws = await createWorkspace(a.app);
    other = await createWorkspace(a.app);
    ({ sign } = await ssoSigner(a.app, ws.id));
  }, 120_000);

  afterAll(async () => {
    if (a) await cancelPending(a.db, [ws.id, other.id]);
    await b?.close();
    await a?.close();
    await smtp?.close();
    await release?.();
  });

  const sso = async (app: TestApp, email: string, prefix = '') => {
    const visitor = new Visitor(app.baseUrl);
    const token = await sign({ email, name: 'Spammy Sam' }, { expiresIn: '5m' });
    const answer = await visitor.get(`${prefix}/${ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(`${prefix}/${ws.slug}/ideas`)}`);
    return { visitor, answer };
  };

  /** Asks for a code on `app`: the answer to the form. */
  const askCode = async (app: TestApp, email: string, slug = ws.slug) => {
    const visitor = new Visitor(app.baseUrl);
    const form = await visitor.get(`/${slug}/sign-in`);
    const answer = await visitor.post(`/${slug}/sign-in`, { _csrf: formToken(form.text, `/${slug}/sign-in`), email, name: 'Someone' });
    return { visitor, answer };
  };

  /** The same browser (its cookies) talking to another instance. */
  const on = (app: TestApp, visitor: Visitor) => {
    const elsewhere = new Visitor(app.baseUrl);
    for (const [name, value] of visitor.cookies) elsewhere.cookies.set(name, value);
    return elsewhere;
  };

  const signedInAs = async (visitor: Visitor, path = `/${ws.slug}/ideas`) => pageText((await visitor.get(path)).text).includes('Signed in as');

  const expectRefusedPage = (answer: { status: number; text: string; headers: Headers }) => {
    expect(answer.status).toBe(403);
    expect(pageText(answer.text)).toContain(REFUSED);
    expect(answer.text).toMatch(/<title>Sign-in refused<\/title>/);
    expect(answer.text).toMatch(/<h1>Sign-in refused<\/h1>/);
    expect(answer.headers.getSetCookie().some((c) => /^__(Host|Secure)-chorus[.-][^=]*=[^;]/.test(c) && !c.includes('signin'))).toBe(false);
  };

  /** A visitor's post on the ideas board, through its form: the post's id. */
  const visitorPost = async (visitor: Visitor, title: string, slug = ws.slug) => {
    const board = await visitor.get(`/${slug}/ideas`);
    const answer = await visitor.post(`/${slug}/ideas/posts`, { _csrf: formToken(board.text, `/${slug}/ideas/posts`), title, body: 'Details', category: 'feature', similar: 'seen' });
    expect(answer.status).toBe(303);
    return Number(/\/p\/(\d+)/.exec(answer.location!)![1]);
  };

  /** A visitor's comment through the post page's form: the comment's id. */
  const visitorComment = async (visitor: Visitor, postId: number, body: string, slug = ws.slug) => {
    const page = await visitor.follow(await visitor.get(`/${slug}/ideas/p/${postId}`));
    const action = /action="([^"]*\/comments)"/.exec(page.text)![1];
    const answer = await visitor.post(action, { _csrf: formToken(page.text, action), body });
    expect(answer.status).toBe(303);
    return Number(/#comment-(\d+)/.exec(answer.location!)![1]);
  };

  const moderationOf = async (table: 'posts' | 'comments', id: number) => (await a.db.query(`SELECT moderation FROM ${table} WHERE id = $1`, [id]))[0]?.moderation;

  const personId = async (email: string) => (await a.db.query(`SELECT id FROM people WHERE workspace_id = $1 AND email = $2`, [ws.id, email]))[0]?.id as string;

  it('blocking on one instance ends the person\'s sessions on every instance at once; their sign-ins are then refused; unblocking lets them in again', async () => {
    const email = `sam-${run}@example.com`;
    // Signed in twice: by SSO through instance b, by an emailed code (a real email) through a.
    const bySso = (await sso(b, email)).visitor;
    const { visitor: byCode, answer: asked } = await askCode(a, email);
    expect(asked.status).toBe(303);
    const mail = await until('the sign-in email', () => smtp.accepted.find((m) => m.envelopeTo.includes(email)), 20_000);
    const code = /\n {4}(\d{3}) (\d{3})\n/.exec(mail.mail.text)!.slice(1).join('');
    const codePage = await byCode.get(`/${ws.slug}/sign-in/code`);
    expect((await byCode.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(codePage.text, `/${ws.slug}/sign-in/code`), code })).status).toBe(303);
    for (const app of [a, b]) {
      for (const visitor of [bySso, byCode]) expect(await signedInAs(on(app, visitor))).toBe(true);
    }
    const id = await personId(email);
    // With every visitor's post and comment held, they have a post and a comment waiting.
    await a.app.get(WorkspacesService).setModeration(ws.slug, 'all');
    const held = await visitorPost(bySso, `Buy cheap watches ${run}`);
    const onPost = (await new Client(a.baseUrl, ws.key).post('/api/v1/posts', { board: 'ideas', title: `A real idea ${run}` })).body.data.id;
    const heldComment = await visitorComment(bySso, onPost, 'Visit my shop');
    expect(await moderationOf('posts', held)).toBe('pending');
    expect(await moderationOf('comments', heldComment)).toBe('pending');

    // The member blocks them on instance a (confirming first).
    const member = await signedInMember(a.baseUrl, a.app, ws.id, ws.member.email);
    const page = await member.get('/admin/moderation');
    const action = `/admin/moderation/people/${id}/block`;
    const confirm = await member.post(action, { _csrf: formToken(page.text) });
    expect(confirm.status).toBe(200);
    expect(pageText(confirm.text)).toContain('Block Spammy Sam?');
    expect(await signedInAs(bySso)).toBe(true); // not yet: only asked
    const blocked = await member.post(action, { _csrf: formToken(confirm.text, action), confirm: 'yes' });
    expect([blocked.status, blocked.location]).toEqual([303, '/admin/moderation?done=blocked']);

    // At once, on both instances, for both sessions: no request finds them.
    for (const app of [a, b]) {
      for (const visitor of [bySso, byCode]) expect(await signedInAs(on(app, visitor))).toBe(false);
    }
    expect((await a.db.query(`SELECT count(*)::int AS n FROM sessions WHERE workspace_id = $1 AND person_id = $2`, [ws.id, id]))[0].n).toBe(0);
    // What they had waiting is rejected.
    expect(await moderationOf('posts', held)).toBe('rejected');
    expect(await moderationOf('comments', heldComment)).toBe('rejected');
    await a.app.get(WorkspacesService).setModeration(ws.slug, 'off');
    const listed = pageText((await member.get('/admin/moderation?done=blocked')).text);
    expect(listed).toContain('The person was blocked');
    expect(listed).toMatch(new RegExp(`Spammy Sam ${email}`));

    // A session that a sign-in under way started after the block is found by no instance either.
    const late = await a.app.get(SessionsService).start(ws.id, 'visitor', id);
    for (const app of [a, b]) expect(await app.app.get(SessionsService).find('visitor', late.token)).toBeNull();

    // Every way in is refused: SSO on the site and in the widget's frame, and an emailed code.
    for (const app of [a, b]) {
      const { visitor, answer } = await sso(app, email);
      expectRefusedPage(answer);
      expect(await signedInAs(visitor)).toBe(false);
      const framed = await sso(app, email, '/embed');
      expectRefusedPage(framed.answer);
    }
    const again = await askCode(b, `SAM-${run}@Example.COM`);
    expect(again.answer.status).toBe(303); // the page says the same whoever asks: the refusal comes with the code
    const { code: second } = await sentSignIn(a.db, email);
    const entry = await again.visitor.get(`/${ws.slug}/sign-in/code`);
    const entered = await again.visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(entry.text, `/${ws.slug}/sign-in/code`), code: second! });
    expectRefusedPage(entered);
    expect(await signedInAs(again.visitor)).toBe(false);
    expect((await a.db.query(`SELECT count(*)::int AS n FROM sessions WHERE workspace_id = $1 AND person_id = $2`, [ws.id, id]))[0].n).toBe(1); // the late one, which nobody finds

    // A blocked person cannot be made a member (their sessions would be found by no request).
    const members = await signedInMember(b.baseUrl, b.app, ws.id, ws.member.email);
    const membersPage = await members.get('/admin/members');
    const made = await members.post('/admin/members', { _csrf: formToken(membersPage.text, '/admin/members'), email, name: 'Sam' });
    expect(made.status).toBe(400);
    expect(pageText(made.text)).toContain('is blocked: unblock them on the moderation page first');

    // Unblocked (on instance b): SSO signs them in again.
    const memberB = await signedInMember(b.baseUrl, b.app, ws.id, ws.member.email);
    const list = await memberB.get('/admin/moderation');
    const unblock = `/admin/moderation/people/${id}/unblock`;
    const answer = await memberB.post(unblock, { _csrf: formToken(list.text, unblock) });
    expect([answer.status, answer.location]).toEqual([303, '/admin/moderation?done=unblocked']);
    expect(pageText((await memberB.follow(answer)).text)).toContain('Nobody is blocked.');
    const back = await sso(a, email);
    expect(back.answer.status).toBe(303);
    expect(await signedInAs(back.visitor)).toBe(true);
  });

  it('refuses a code sign-in at a blocked domain (or under one, any case, IDN) with the same page, and sends nothing', async () => {
    const member = await signedInMember(a.baseUrl, a.app, ws.id, ws.member.email);
    const page = await member.get('/admin/moderation');
    expect(page.text).toMatch(/<input type="checkbox" id="settings-refuse_disposable" name="refuse_disposable" value="true" checked/);
    const saved = await member.post('/admin/moderation', {
      _csrf: formToken(page.text, '/admin/moderation'),
      moderation: 'off',
      domains: `Spam-${run}.TEST\n\n@bücher-${run}.example\n*.wild-${run}.test\nspam-${run}.test`,
      refuse_disposable: 'true',
    });
    expect([saved.status, saved.location]).toEqual([303, '/admin/moderation?done=saved']);
    const shown = await member.get('/admin/moderation');
    const idn = domainToASCII(`bücher-${run}.example`);
    expect(idn).toMatch(/^xn--/);
    expect(shown.text).toContain(`spam-${run}.test\n${idn}\nwild-${run}.test</textarea>`);

    const refused = [
      `x@spam-${run}.test`,
      `Y@MAIL.Spam-${run}.Test`,
      `z@bücher-${run}.example`,
      `z2@${idn}`,
      `w@deep.er.wild-${run}.test`,
    ];
    for (const email of refused) {
      const { visitor, answer } = await askCode(b, email);
      expectRefusedPage(answer);
      expect(await signedInAs(visitor)).toBe(false);
    }
    // A domain that only ends alike is not blocked: its email arrives (the processor is running).
    const allowed = `fine@not-spam-${run}.test`;
    expect((await askCode(b, allowed)).answer.status).toBe(303);
    await until('the allowed address\'s email', () => smtp.accepted.find((m) => m.envelopeTo.includes(allowed)), 20_000);
    const queued = await a.db.query(`SELECT recipient FROM webhook_deliveries WHERE workspace_id = $1 AND event_type = 'sign_in' AND recipient LIKE $2`, [ws.id, `%${run}%`]);
    expect(queued.map((r) => r.recipient).filter((r) => !r.startsWith('sam-'))).toEqual([allowed]);
    expect(smtp.accepted.filter((m) => m.envelopeTo.some((to) => /spam-|bcher|wild-/.test(to) && !to.startsWith('fine@')))).toEqual([]);

    // Another workspace is not affected by this one's list.
    expect((await askCode(b, `x2@spam-${run}.test`, other.slug)).answer.status).toBe(303);

    // A line that is no domain: refused beside the field, nothing saved.
    const bad = await member.post('/admin/moderation', { _csrf: formToken(shown.text, '/admin/moderation'), moderation: 'all', domains: `ok-${run}.test\nnot a domain`, refuse_disposable: 'true' });
    expect(bad.status).toBe(400);
    expect(pageText(bad.text)).toContain('Blocked email domains line 2 ("not a domain") is not a domain');
    expect(bad.text).toContain(`ok-${run}.test\nnot a domain</textarea>`);
    const kept = (await member.get('/admin/moderation')).text;
    expect(kept).toContain(`spam-${run}.test\n`);
    expect(kept).toMatch(/<option value="off" selected>/); // the moderation typed with it was not saved either
  });

  it('refuses disposable addresses by default (sending nothing), and takes them once the box is unticked', async () => {
    const fresh = await createWorkspace(a.app);
    for (const email of [`d-${run}@mailinator.com`, `d-${run}@MAILINATOR.COM`, `d2-${run}@eu.mailinator.com`]) {
      expectRefusedPage((await askCode(b, email, fresh.slug)).answer);
    }
    const member = await signedInMember(b.baseUrl, b.app, fresh.id, fresh.member.email);
    const page = await member.get('/admin/moderation');
    // The box unticked is not sent: refusing disposable addresses is off.
    expect((await member.post('/admin/moderation', { _csrf: formToken(page.text, '/admin/moderation'), moderation: 'off', domains: '' })).status).toBe(303);
    expect((await member.get('/admin/moderation')).text).not.toMatch(/name="refuse_disposable" value="true" checked/);
    const taken = `taken-${run}@mailinator.com`;
    expect((await askCode(b, taken, fresh.slug)).answer.status).toBe(303);
    await until('the disposable address\'s email once allowed', () => smtp.accepted.find((m) => m.envelopeTo.includes(taken)), 20_000);
    const sent = await a.db.query(`SELECT recipient FROM webhook_deliveries WHERE workspace_id = $1 AND event_type = 'sign_in'`, [fresh.id]);
    expect(sent.map((r) => r.recipient)).toEqual([taken]);
    expect(smtp.accepted.filter((m) => m.envelopeTo.some((to) => to.startsWith(`d-${run}`) || to.startsWith(`d2-${run}`)))).toEqual([]);
    await cancelPending(a.db, [fresh.id]);
  });

  it('the queue: Approve and Reject a post or a comment, Block on an item blocks its author and rejects the rest; another workspace\'s ids answer 404', async () => {
    const fresh = await createWorkspace(a.app);
    const api = new Client(a.baseUrl, fresh.key);
    const target = (await api.post('/api/v1/posts', { board: 'ideas', title: `Approved already ${run}` })).body.data.id;
    const member = await signedInMember(b.baseUrl, b.app, fresh.id, fresh.member.email);
    let page = await member.get('/admin/moderation');
    expect((await member.post('/admin/moderation', { _csrf: formToken(page.text, '/admin/moderation'), moderation: 'all', domains: '', refuse_disposable: 'true' })).status).toBe(303);
    page = await member.get('/admin/moderation');
    expect(page.text).toMatch(/<option value="all" selected>/);
    expect(pageText(page.text)).toContain('Nothing is waiting for review.');

    const { sign: signFresh } = await ssoSigner(a.app, fresh.id);
    const visitor = new Visitor(a.baseUrl);
    await visitor.get(`/${fresh.slug}/sso?token=${await signFresh({ email: `queue-${run}@example.com`, name: 'Quinn Queue' }, { expiresIn: '5m' })}`);
    const first = await visitorPost(visitor, `First held post ${run}`, fresh.slug);
    const second = await visitorPost(visitor, `Second held post ${run}`, fresh.slug);
    const third = await visitorPost(visitor, `Third held post ${run}`, fresh.slug);
    const comment = await visitorComment(visitor, target, `A held comment ${run}`, fresh.slug);
    page = await member.get('/admin/moderation');
    const text = pageText(page.text);
    expect(text).toContain(`Post: First held post ${run}`);
    expect(text).toContain(`Comment on: Approved already ${run}`);
    expect(text).toContain(`A held comment ${run}`);
    expect(text).toContain('by Quinn Queue');

    // Another workspace's member: 404 for each, and nothing changes.
    const stranger = await signedInMember(b.baseUrl, b.app, other.id, other.member.email);
    const token = formToken((await stranger.get('/admin/moderation')).text, '/admin/moderation');
    for (const path of [
      `/admin/moderation/posts/${first}/approve`,
      `/admin/moderation/posts/${first}/reject`,
      `/admin/moderation/posts/${first}/block`,
      `/admin/moderation/comments/${comment}/approve`,
      `/admin/moderation/comments/${comment}/reject`,
      `/admin/moderation/comments/${comment}/block`,
      '/admin/moderation/comments/x1/approve',
      '/admin/moderation/posts/0/approve',
    ]) {
      expect([path, (await stranger.post(path, { _csrf: token, confirm: 'yes' })).status]).toEqual([path, 404]);
    }
    expect([await moderationOf('posts', first), await moderationOf('comments', comment)]).toEqual(['pending', 'pending']);

    const act = async (path: string, fields: Record<string, string> = {}) => {
      const current = await member.get('/admin/moderation');
      return member.post(path, { _csrf: formToken(current.text, '/admin/moderation'), ...fields });
    };
    let answer = await act(`/admin/moderation/posts/${first}/approve`);
    expect([answer.status, answer.location]).toEqual([303, '/admin/moderation?done=approved']);
    expect((await api.get(`/api/v1/posts/${first}`)).body.data.moderation).toBe('approved');
    answer = await act(`/admin/moderation/comments/${comment}/reject`);
    expect([answer.status, answer.location]).toEqual([303, '/admin/moderation?done=rejected']);
    expect(await moderationOf('comments', comment)).toBe('rejected');
    // Block on the second post: its author, confirmed; the third is rejected with it, the approved one stays.
    const confirm = await act(`/admin/moderation/posts/${second}/block`);
    expect(pageText(confirm.text)).toContain('Block Quinn Queue?');
    answer = await member.post(`/admin/moderation/posts/${second}/block`, { _csrf: formToken(confirm.text), confirm: 'yes' });
    expect([answer.status, answer.location]).toEqual([303, '/admin/moderation?done=blocked']);
    expect([await moderationOf('posts', first), await moderationOf('posts', second), await moderationOf('posts', third)]).toEqual(['approved', 'rejected', 'rejected']);
    expect(await signedInAs(visitor, `/${fresh.slug}/ideas`)).toBe(false);
    const after = pageText((await member.get('/admin/moderation')).text);
    expect(after).toContain('Nothing is waiting for review.');
    expect(after).toContain(`Quinn Queue queue-${run}@example.com`);
    await cancelPending(a.db, [fresh.id]);
  });

  it('answers 404 for another workspace\'s people, and refuses to block a member', async () => {
    const email = `victim-${run}@example.com`;
    await sso(a, email);
    const id = await personId(email);
    const stranger = await signedInMember(b.baseUrl, b.app, other.id, other.member.email);
    const page = await stranger.get('/admin/moderation');
    const token = formToken(page.text, '/admin/moderation');
    for (const path of [`/admin/moderation/people/${id}/block`, `/admin/moderation/people/${id}/unblock`, '/admin/moderation/people/not-a-uuid/block']) {
      expect([path, (await stranger.post(path, { _csrf: token, confirm: 'yes' })).status]).toEqual([path, 404]);
    }
    expect((await a.db.query(`SELECT blocked_at FROM people WHERE id = $1`, [id]))[0].blocked_at).toBeNull();
    expect(await signedInAs((await sso(b, email)).visitor)).toBe(true);

    const member = await signedInMember(a.baseUrl, a.app, ws.id, ws.member.email);
    const own = await member.get('/admin/moderation');
    const answer = await member.post(`/admin/moderation/people/${ws.member.id}/block`, { _csrf: formToken(own.text, '/admin/moderation'), confirm: 'yes' });
    expect(answer.status).toBe(409);
    expect(pageText(answer.text)).toContain('A member cannot be blocked');
    // Asked without confirming: refused the same, no confirmation page.
    const asked = await member.post(`/admin/moderation/people/${ws.member.id}/block`, { _csrf: formToken(own.text, '/admin/moderation') });
    expect([asked.status, pageText(asked.text).includes('A member cannot be blocked')]).toEqual([409, true]);
    expect((await a.db.query(`SELECT blocked_at FROM people WHERE id = $1`, [ws.member.id]))[0].blocked_at).toBeNull();
    // Unblocking someone not blocked: 404.
    expect((await member.post(`/admin/moderation/people/${id}/unblock`, { _csrf: formToken(own.text, '/admin/moderation') })).status).toBe(404);
  });
});

describe('blocked and disposable domains (email-domains.ts)', () => {
  it('normalises the lines typed (case, IDN, a leading @ or *.), leaves out blanks and repeats, and names a bad line', () => {
    expect(parseBlockedDomains(' Spam.TEST \r\n\n@ｓｐａｍ.test\n*.Bücher.example\n')).toEqual({ domains: ['spam.test', 'xn--bcher-kva.example'] });
    expect(parseBlockedDomains('ok.test\nhttp://x.test')).toEqual({ error: 'line 2 ("http://x.test") is not a domain, such as spam.example' });
    expect(parseBlockedDomains('a@b.test')).toHaveProperty('error');
  });

  it('matches a blocked domain and those under it, never one that only ends alike', () => {
    expect(atBlockedDomain('x@spam.test', ['spam.test'])).toBe(true);
    expect(atBlockedDomain('x@a.b.spam.test', ['spam.test'])).toBe(true);
    expect(atBlockedDomain('x@notspam.test', ['spam.test'])).toBe(false);
    expect(atBlockedDomain('x@spam.test.example', ['spam.test'])).toBe(false);
  });

  it('knows disposable domains (and those under them) from the package\'s list, and not common providers', () => {
    expect(atDisposableDomain('x@mailinator.com')).toBe(true);
    expect(atDisposableDomain('x@inbox.mailinator.com')).toBe(true);
    for (const ok of ['x@gmail.com', 'x@outlook.com', 'x@example.com', 'x@localhost']) expect([ok, atDisposableDomain(ok)]).toEqual([ok, false]);
    // The package's domains are in the form addresses are compared in: no entry is missed for its case or IDN.
    const list = disposableEmailBlocklist();
    expect(list.length).toBeGreaterThan(1000);
    expect(list.filter((d) => normalDomain(d) !== d)).toEqual([]);
  });
});
