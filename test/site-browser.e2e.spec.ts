import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext } from 'playwright-core';
import { BoardsService } from '../src/boards/boards.service';
import { CommentsService } from '../src/comments/comments.service';
import { PostsService } from '../src/posts/posts.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { axeViolations, describeInBrowser, startBrowserTest } from './support/browser';
import type { TestWorkspace } from './support/factories';
import { Client } from './support/http';
import type { MailServer } from './support/mail';
import { Receiver } from './support/receiver';
import type { TestApp } from './support/test-app';
import { ssoSigner } from './support/site';
import { until } from './support/wait';

// The public site in a real browser (Debian's Chromium): the whole journey with JavaScript off,
// events arriving at a receiver, WCAG 2.2 A/AA in light and dark (axe-core), hostile text in
// every field a user writes, and a 320 px screen.

const run = randomBytes(3).toString('hex');

describeInBrowser('the public site in Chromium', () => {
  let env: Awaited<ReturnType<typeof startBrowserTest>>;
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let browser: Browser;
  let smtp: MailServer;
  let receiver: Receiver;
  let base: string;

  beforeAll(async () => {
    env = await startBrowserTest();
    ({ t, ws, api, browser, smtp, receiver, base } = env);
    const endpoint = await api.post('/api/v1/webhook_endpoints', {
      url: receiver.url,
      events: ['post.created', 'post.voted', 'comment.created'],
    });
    expect(endpoint.status).toBe(201);
  }, 180_000);

  afterAll(() => env?.stop());

  async function context(options: { javaScript?: boolean; dark?: boolean; width?: number; bypassCSP?: boolean } = {}): Promise<BrowserContext> {
    return browser.newContext({
      javaScriptEnabled: options.javaScript ?? false,
      colorScheme: options.dark ? 'dark' : 'light',
      viewport: { width: options.width ?? 1200, height: 900 },
      bypassCSP: options.bypassCSP ?? false,
    });
  }

  const eventsOf = (type: string) => receiver.requests.filter((r) => r.body?.type === type).map((r) => r.body.data);

  it('with JavaScript off: sign in by SSO, vote and take it back, post, comment, sign out; the events arrive', async () => {
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title: `Vote in the browser ${run}` })).body.data;
    const { sign } = await ssoSigner(t.app, ws.id);
    const ctx = await context();
    const page = await ctx.newPage();
    const token = await sign({ email: `journey-${run}@example.com`, name: 'Jo Journey' }, { expiresIn: '5m' });
    await page.goto(`${base}/${ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(`/${ws.slug}/ideas`)}`);
    expect(new URL(page.url()).pathname).toBe(`/${ws.slug}/ideas`);
    await page.getByText('Signed in as Jo Journey').waitFor();

    const title = `Vote in the browser ${run}`;
    await page.getByRole('button', { name: `Vote for "${title}": 1 vote` }).click();
    await page.getByRole('button', { name: `Remove vote for "${title}": 2 votes` }).waitFor();
    await until('post.voted at the receiver', () => eventsOf('post.voted').some((d) => d.post.id === created.id && d.voter.name === 'Jo Journey'));
    await page.getByRole('button', { name: `Remove vote for "${title}": 2 votes` }).click();
    await page.getByRole('button', { name: `Vote for "${title}": 1 vote` }).waitFor();
    expect((await api.get(`/api/v1/posts/${created.id}`)).body.data.votes).toBe(1);

    await page.getByLabel('Title').fill(`Posted with JavaScript off ${run}`);
    await page.getByLabel('Details').fill('Line one\n\nParagraph two');
    await page.getByLabel('Category').selectOption('bug');
    await page.getByRole('button', { name: 'Submit post' }).click();
    await page.getByRole('heading', { level: 1, name: `Posted with JavaScript off ${run}` }).waitFor();
    const postId = Number(/\/p\/(\d+)-/.exec(page.url())![1]);
    expect((await api.get(`/api/v1/posts/${postId}`)).body.data).toMatchObject({ category: 'bug', votes: 1, author: { name: 'Jo Journey' } });

    await page.getByLabel('Comment', { exact: true }).fill('A comment from the browser');
    await page.getByRole('button', { name: 'Add comment' }).click();
    await page.getByText('A comment from the browser').waitFor();
    await until('post.created and comment.created at the receiver', () =>
      eventsOf('post.created').some((d) => d.post.id === postId) && eventsOf('comment.created').some((d) => d.comment.body === 'A comment from the browser' && d.comment.official === false),
    );

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in', exact: true }).waitFor();
    expect(await page.getByText('Signed in as').count()).toBe(0);
    await ctx.close();
  });

  it('with JavaScript off: sign in with a code from a real email', async () => {
    const ctx = await context();
    const page = await ctx.newPage();
    const email = `mailed-${run}@example.com`;
    await page.goto(`${base}/${ws.slug}/roadmap`);
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Name').fill('Mel Mailed');
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByRole('heading', { name: 'Check your email' }).waitFor();
    const mail = await until('the sign-in email', () => smtp.accepted.find((m) => m.envelopeTo.includes(email)), 20_000);
    const code = /\n {4}(\d{3}) (\d{3})\n/.exec(mail.mail.text)!.slice(1).join('');
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByText('Signed in as Mel Mailed').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/${ws.slug}/roadmap`);
    await ctx.close();
  });

  it('has no WCAG 2.2 A or AA violation on any kind of page, in light and in dark', async () => {
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title: `Accessible post ${run}`, body: 'See https://example.com for more.' })).body.data;
    await api.patch(`/api/v1/posts/${created.id}`, { status: 'planned' });
    await api.post(`/api/v1/posts/${created.id}/comments`, { body: 'An official answer' });
    const { sign } = await ssoSigner(t.app, ws.id);
    const post = new URL(created.url).pathname;
    const pages: [string, string, boolean][] = [
      ['home', `/${ws.slug}`, false],
      ['board', `/${ws.slug}/ideas`, false],
      ['board, second page', `/${ws.slug}/ideas?offset=1`, false],
      ['post', post, false],
      ['roadmap', `/${ws.slug}/roadmap`, false],
      ['sign-in', `/${ws.slug}/sign-in`, false],
      ['code', `/${ws.slug}/sign-in/code`, false],
      ['link', `/${ws.slug}/sign-in/link/not-a-token`, false],
      ['not found', `/${ws.slug}/nothing-here`, false],
      ['board, signed in', `/${ws.slug}/ideas`, true],
      ['post, signed in', post, true],
    ];
    for (const dark of [false, true]) {
      const ctx = await context({ javaScript: true, dark });
      const page = await ctx.newPage();
      for (const [name, path, signedIn] of pages) {
        if (signedIn) await page.goto(`${base}/${ws.slug}/sso?token=${await sign({ email: `axe-${run}@example.com`, name: 'Axe Reader' }, { expiresIn: '5m' })}`);
        await page.goto(base + path);
        expect([name, dark ? 'dark' : 'light', await axeViolations(page)]).toEqual([name, dark ? 'dark' : 'light', []]);
      }
      // A form shown again with its errors.
      await page.goto(`${base}/${ws.slug}/ideas`);
      await page.getByLabel('Title').fill('ab');
      await page.getByRole('button', { name: 'Submit post' }).click();
      await page.getByText('Title must be 4 to 120 characters').waitFor();
      expect(['form with errors', await axeViolations(page)]).toEqual(['form with errors', []]);
      await ctx.close();
    }
  });

  it('shows hostile text in every field a user writes as text: no script runs, no element is injected, nothing breaks the layout at 320 px', async () => {
    const payloads = [
      '<script>window.__xss=1</script>',
      '<img src=x onerror="window.__xss=2">',
      '"><svg onload=window.__xss=3>',
      "'onmouseover='window.__xss=4",
      '</textarea><script>window.__xss=5</script>',
      '</title><script>window.__xss=6</script>',
      'javascript:window.__xss=7',
      'https://example.com/"><script>window.__xss=8</script>',
      '<a href="javascript:window.__xss=9">click</a>',
      '{{constructor.constructor("window.__xss=10")()}}',
      '<style>body{display:none}</style>',
      '\u202Egnp.exe \u2066isolate\u2069 \u200F',
      '&lt;script&gt;window.__xss=11&lt;/script&gt;',
    ];
    const longWord = 'W'.repeat(5000);
    const hostile = `hostile-${run}`;
    const workspaces = t.app.get(WorkspacesService);
    const created = await workspaces.create({ name: `<script>window.__xss=12</script> ${hostile}`, slug: hostile, plan: 'free' });
    const owner = await workspaces.addPerson(created.id, { kind: 'member', name: '<img src=x onerror=window.__xss=13>', email: `owner-${run}@example.com` });
    await t.app.get(BoardsService).create(hostile, {
      slug: 'board',
      name: '<script>window.__xss=14</script>Board',
      description: `${payloads.join(' ')} ${longWord}`,
    });
    const actor = { workspaceId: created.id, workspaceSlug: hostile, personId: owner.id };
    const posts = [];
    for (const payload of payloads) {
      posts.push(await t.app.get(PostsService).create(actor, { board: 'board', title: `${payload}`.slice(0, 120).padEnd(4, '.'), body: `${payload}\n\n${payload} ${longWord}` }));
    }
    const long = await t.app.get(PostsService).create(actor, { board: 'board', title: 'W'.repeat(120), body: longWord });
    const comments = t.app.get(CommentsService);
    for (const payload of payloads) await comments.create(actor, posts[0].id, { body: `${payload} ${longWord}` });
    await t.app.get(PostsService).setStatus(actor, posts[1].id, 'planned');
    const { sign } = await ssoSigner(t.app, created.id);

    const paths = [`/${hostile}`, `/${hostile}/board`, `/${hostile}/roadmap`, new URL(posts[0].url).pathname, new URL(long.url).pathname, `/${hostile}/board?q=${encodeURIComponent('<script>x</script>')}`];
    // CSP off: what is checked is that nothing is written as markup, not that the CSP would catch it.
    for (const signedIn of [false, true]) {
      const ctx = await context({ javaScript: true, bypassCSP: true, width: 320 });
      const page = await ctx.newPage();
      const dialogs: string[] = [];
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      if (signedIn) await page.goto(`${base}/${hostile}/sso?token=${await sign({ email: `x-${run}@example.com`, name: payloads[1] }, { expiresIn: '5m' })}`);
      for (const path of paths) {
        await page.goto(base + path);
        const found = await page.evaluate(() => {
          const doc = (globalThis as any).document;
          const all = [...doc.querySelectorAll('*')] as any[];
          return {
            xss: (globalThis as any).__xss ?? null,
            scripts: doc.querySelectorAll('script, iframe, object, embed, img, style, body svg:not([aria-hidden])').length,
            handlers: all.filter((el) => [...el.attributes].some((a: any) => a.name.startsWith('on'))).length,
            javascriptLinks: [...doc.querySelectorAll('a[href]')].filter((a: any) => !/^(https?:|\/|#)/.test(a.getAttribute('href'))).length,
            overflow: doc.documentElement.scrollWidth - doc.documentElement.clientWidth,
            // What sticks out, if anything: to say where the layout breaks.
            wide: all
              .filter((el) => el.getBoundingClientRect().right > doc.documentElement.clientWidth + 0.5)
              .map((el) => `${el.tagName.toLowerCase()}.${el.className}`)
              .slice(0, 5),
          };
        });
        expect([path, signedIn, found]).toEqual([path, signedIn, { xss: null, scripts: 0, handlers: 0, javascriptLinks: 0, overflow: 0, wide: [] }]);
      }
      // And the text is there, as text.
      await page.goto(`${base}/${hostile}/board`);
      expect(await page.getByText('<script>window.__xss=1</script>', { exact: true }).count()).toBeGreaterThan(0);
      expect(dialogs).toEqual([]);
      await ctx.close();
    }
  });
});
