import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { formToken, pageText, sentSignIn, signedInMember, SITE_ORIGIN, ssoSigner, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';

// The widget over HTTP: /widget.js, the /embed pages' framing policy and cookies, and the
// dashboard's allowed origins (a browser's view is in widget-browser.e2e.spec.ts).

describe('the widget', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t?.close());

  const frameAncestors = (csp: string | null) => /frame-ancestors ([^;]*)/.exec(csp ?? '')?.[1];

  it('serves /widget.js: JavaScript, small, cached for minutes, loadable from any site', async () => {
    const res = await fetch(`${t.baseUrl}/widget.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
    const cache = res.headers.get('cache-control')!;
    expect(cache).toMatch(/public/);
    expect(Number(/max-age=(\d+)/.exec(cache)![1])).toBeGreaterThanOrEqual(300);
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const body = await res.text();
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(30 * 1024);
    expect(body).toContain('Feedback');
    expect(body).not.toMatch(/\bimport\b|\brequire\(/);
  });

  it("frames /embed pages for exactly the workspace's allowed origins ('none' without any); the rest of the site keeps 'none'", async () => {
    const visitor = new Visitor(t.baseUrl);
    let page = await visitor.get(`/embed/${ws.slug}/ideas`);
    expect(page.status).toBe(200);
    expect(frameAncestors(page.headers.get('content-security-policy'))).toBe("'none'");

    await t.app.get(WorkspacesService).setWidgetOrigins(ws.id, 'https://app.example.com\nhttp://localhost:3000\n');
    page = await visitor.get(`/embed/${ws.slug}/ideas`);
    expect(frameAncestors(page.headers.get('content-security-policy'))).toBe('https://app.example.com http://localhost:3000');
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.text).toContain('<body class="compact">');
    // Links stay under /embed; the canonical address is the site's.
    expect(page.text).toContain(`href="/embed/${ws.slug}/roadmap"`);
    expect(page.text).not.toMatch(new RegExp(`href="/${ws.slug}/`));
    expect(page.text).toMatch(new RegExp(`<link rel="canonical" href="${SITE_ORIGIN}/${ws.slug}/ideas"`));

    for (const path of [`/${ws.slug}/ideas`, `/${ws.slug}`]) {
      const site = await visitor.get(path);
      expect(frameAncestors(site.headers.get('content-security-policy'))).toBe("'none'");
      expect(site.headers.get('x-frame-options')).toBe('DENY');
    }
    // A private board is the 404 page there too.
    expect((await visitor.get(`/embed/${ws.slug}/secret`)).status).toBe(404);
    expect((await visitor.get(`/embed/no-such-workspace/ideas`)).status).toBe(404);
  });

  it('keeps the session of the frame in its own Partitioned cookie on /embed, never the site\'s', async () => {
    const { sign } = await ssoSigner(t.app, ws.id);
    const visitor = new Visitor(t.baseUrl);
    const token = await sign({ email: 'framed@example.com', name: 'Fran Framed' }, { expiresIn: '5m' });
    const answer = await visitor.get(`/embed/${ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(`/embed/${ws.slug}/ideas`)}`);
    expect([answer.status, answer.location]).toEqual([303, `/embed/${ws.slug}/ideas`]);
    // The session's cookie (and the sign-in's, cleared), all of the embed's.
    const cookies = answer.headers.getSetCookie();
    for (const cookie of cookies) expect(cookie).toMatch(/^__Secure-chorus\.embed[.-]/);
    expect(cookies[0]).toMatch(new RegExp(`^__Secure-chorus\\.embed\\.${ws.slug}=`));
    for (const part of ['Path=/embed', 'HttpOnly', 'Secure', 'SameSite=None', 'Partitioned']) expect(cookies[0]).toContain(part);
    // The frame is signed in; the site, with the same cookies, is not.
    expect(pageText((await visitor.get(`/embed/${ws.slug}/ideas`)).text)).toContain('Signed in as Fran Framed');
    expect(pageText((await visitor.get(`/${ws.slug}/ideas`)).text)).not.toContain('Signed in as');

    // Posting, voting and commenting in the frame: the site's forms, answered back under /embed.
    const board = await visitor.get(`/embed/${ws.slug}/ideas`);
    const posted = await visitor.post(`/embed/${ws.slug}/ideas/posts`, { _csrf: formToken(board.text, `/embed/${ws.slug}/ideas/posts`), title: 'From the frame', body: '' });
    expect(posted.status).toBe(303);
    expect(posted.location).toMatch(new RegExp(`^/embed/${ws.slug}/ideas/p/\\d+-from-the-frame$`));
    const id = Number(/\/p\/(\d+)-/.exec(posted.location!)![1]);
    const post = await visitor.follow(posted);
    expect(post.status).toBe(200);
    const commented = await visitor.post(`/embed/${ws.slug}/ideas/p/${id}/comments`, {
      _csrf: formToken(post.text, `${posted.location}/comments`),
      body: 'A comment from the frame',
    });
    expect(commented.status).toBe(303);
    expect(commented.location).toMatch(new RegExp(`^/embed/${ws.slug}/ideas/p/${id}-from-the-frame#comment-`));
    const shown = (await api.get(`/api/v1/posts/${id}`)).body.data;
    expect(shown).toMatchObject({ title: 'From the frame', author: { name: 'Fran Framed' }, votes: 1 });
    // A post's address outside the frame's spelling is the frame's canonical one.
    const stale = await visitor.get(`/embed/${ws.slug}/ideas/p/${id}`);
    expect([stale.status, stale.location]).toEqual([301, `/embed/${ws.slug}/ideas/p/${id}-from-the-frame`]);
  });

  it('signs in with an emailed code inside the frame (JavaScript off), in the embed\'s cookies only; Vote leads there', async () => {
    const visitor = new Visitor(t.baseUrl);
    const board = await visitor.get(`/embed/${ws.slug}/ideas`);
    const signIn = /<a href="(\/embed\/[^"]+\/sign-in\?redirect=[^"]+)">Sign in<\/a>/.exec(board.text)![1].replace(/&amp;/g, '&');
    expect(signIn).toBe(`/embed/${ws.slug}/sign-in?redirect=${encodeURIComponent(`/embed/${ws.slug}/ideas`)}`);
    expect(board.text).toMatch(new RegExp(`<a class="vote votes" href="/embed/${ws.slug}/sign-in\\?redirect=`));
    const form = await visitor.get(signIn);
    expect(form.status).toBe(200);
    const redirect = `/embed/${ws.slug}/ideas`;
    const sent = await visitor.post(`/embed/${ws.slug}/sign-in`, { _csrf: formToken(form.text, `/embed/${ws.slug}/sign-in`), email: 'coded@example.com', name: 'Cody Coded', redirect });
    expect([sent.status, sent.location]).toEqual([303, `/embed/${ws.slug}/sign-in/code?redirect=${encodeURIComponent(redirect)}`]);
    for (const cookie of sent.headers.getSetCookie()) expect(cookie).toMatch(/^__Secure-chorus\.embed-signin\..*Path=\/embed;.*Partitioned/);
    const mail = await sentSignIn(t.db, 'coded@example.com');
    const codePage = await visitor.follow(sent);
    const done = await visitor.post(`/embed/${ws.slug}/sign-in/code`, { _csrf: formToken(codePage.text, `/embed/${ws.slug}/sign-in/code`), code: mail.code!, redirect });
    expect([done.status, done.location]).toEqual([303, redirect]);
    expect(pageText((await visitor.follow(done)).text)).toContain('Signed in as Cody Coded');
    expect([...visitor.cookies.keys()].every((name) => name.startsWith('__Secure-chorus.embed'))).toBe(true);
  });

  it('refuses a token /sso would refuse in the frame too', async () => {
    const { sign } = await ssoSigner(t.app, ws.id);
    const visitor = new Visitor(t.baseUrl);
    const expired = await sign({ email: 'late@example.com', name: 'Late' }, { expiresIn: -60 });
    const forged = await sign({ email: 'forged@example.com', name: 'Forged' }, { expiresIn: '5m', key: 'sso_' + 'x'.repeat(40) });
    for (const token of [expired, forged]) {
      const answer = await visitor.get(`/embed/${ws.slug}/sso?token=${token}&redirect=/embed/${ws.slug}/ideas`);
      expect(answer.status).toBe(400);
      // The refusal is shown in the frame's layout, its way back staying in the frame.
      expect(answer.text).toContain(`<a href="/embed/${ws.slug}">`);
      expect(answer.text).toContain('name="chorus-frame-origins"');
      expect(frameAncestors(answer.headers.get('content-security-policy'))).toBe('https://app.example.com http://localhost:3000');
      expect(answer.headers.getSetCookie().filter((c) => !/Max-Age=0|Expires=Thu, 01 Jan 1970/i.test(c))).toEqual([]);
    }
  });

  it('/admin/widget: "Allowed origins" saved with "Save"; a line that is no origin is refused beside the field and nothing saved; the snippet', async () => {
    const other = await createWorkspace(t.app);
    const member = await signedInMember(t.baseUrl, t.app, other.id, other.member.email);
    let page = await member.get('/admin/widget');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Allowed origins');
    expect(pageText(page.text)).toContain(`<script src="${SITE_ORIGIN}/widget.js" data-workspace="${other.slug}" data-board="ideas" async></script>`);
    const saved = await member.post('/admin/widget', { _csrf: formToken(page.text, '/admin/widget'), origins: 'https://App.Example.com\r\n\r\nhttp://localhost:5173' });
    expect([saved.status, saved.location]).toEqual([303, '/admin/widget?done=saved']);
    expect(await t.app.get(WorkspacesService).widgetOrigins(other.id)).toEqual(['https://app.example.com', 'http://localhost:5173']);

    for (const bad of ['http://example.com', 'https://example.com/path', '*', 'https://*.example.com', "https://a.com 'self'"]) {
      page = await member.get('/admin/widget');
      const refused = await member.post('/admin/widget', { _csrf: formToken(page.text, '/admin/widget'), origins: `https://ok.example\n${bad}` });
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(/id="widget-origins-error"[^>]*>[^<]*Line 2/);
      expect(refused.text).toContain('aria-invalid="true"');
      expect(await t.app.get(WorkspacesService).widgetOrigins(other.id)).toEqual(['https://app.example.com', 'http://localhost:5173']);
    }
    // The first workspace's origins are its own.
    expect(await t.app.get(WorkspacesService).widgetOrigins(ws.id)).toEqual(['https://app.example.com', 'http://localhost:3000']);
  });
});
