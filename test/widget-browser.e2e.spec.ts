import { randomBytes } from 'node:crypto';
import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { memberSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { axeViolations, describeInBrowser, startBrowserTest } from './support/browser';
import type { TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { Receiver } from './support/receiver';
import { ssoSigner } from './support/site';
import type { TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// The widget in Chromium with third-party cookies blocked: a customer's page on another site
// (http://localhost:<port>, while Chorus is http://127.0.0.1:<port>) includes /widget.js; the
// panel opens the board in a frame, identify() signs the user in, and they vote, post and comment.

const run = randomBytes(3).toString('hex');

/** A customer's app: one page with the snippet (and, at /sibling, a page that messages the widget's frame). */
async function hostApp(snippet: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    if (req.url === '/sibling') {
      res.end(
        `<!doctype html><html lang="en"><title>Sibling</title><body><script>
        window.addEventListener('message', (e) => { if (e.data && e.data.forward) for (let i = 0; i < parent.frames.length; i++) parent.frames[i].postMessage({ type: 'chorus:identify', token: e.data.forward }, '*'); });
        </script></body></html>`,
      );
      return;
    }
    res.end(`<!doctype html><html lang="en"><head><title>The customer's app</title></head><body><main><h1>The customer's app</h1><a href="#top">A link of the app</a></main>${snippet}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://localhost:${(server.address() as AddressInfo).port}`, server };
}

describeInBrowser('the widget in Chromium (third-party cookies blocked)', () => {
  let env: Awaited<ReturnType<typeof startBrowserTest>>;
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let browser: Browser;
  let receiver: Receiver;
  let base: string;
  let host: { origin: string; server: Server };
  let stranger: { origin: string; server: Server };

  beforeAll(async () => {
    env = await startBrowserTest({}, ['--test-third-party-cookie-phaseout']);
    ({ t, ws, api, browser, receiver, base } = env);
    const endpoint = await api.post('/api/v1/webhook_endpoints', { url: receiver.url, events: ['post.created', 'post.voted', 'comment.created'] });
    expect(endpoint.status).toBe(201);
    const snippet = `<script src="${base}/widget.js" data-workspace="${ws.slug}" data-board="ideas" async></script>`;
    host = await hostApp(snippet);
    stranger = await hostApp(snippet);
    await t.app.get(WorkspacesService).setWidgetOrigins(ws.id, host.origin);
  }, 180_000);

  afterAll(async () => {
    host?.server.close();
    stranger?.server.close();
    await env?.stop();
  });

  const eventsOf = (type: string) => receiver.requests.filter((r) => r.body?.type === type).map((r) => r.body.data);
  const newContext = (): Promise<BrowserContext> => browser.newContext({ viewport: { width: 1200, height: 900 } });
  /** The focused element inside the widget's shadow root: its tag and text. */
  const focused = (page: Page) =>
    page.evaluate(() => {
      const d = (globalThis as any).document;
      const active = d.querySelector('[data-chorus-widget]')?.shadowRoot?.activeElement;
      return active ? `${active.tagName}:${active.textContent ?? ''}` : `outside:${d.activeElement?.tagName}`;
    });
  const embedFrame = async (page: Page): Promise<Frame> => until('the embed frame', () => page.frames().find((f) => f.url().includes('/embed/')));

  it('open, read, identify, vote, post, comment, Escape and Close; the events arrive as from the site; axe finds nothing in the frame', async () => {
    const title = `Seen in the widget ${run}`;
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title })).body.data;
    const { sign } = await ssoSigner(t.app, ws.id);
    const ctx = await newContext();
    const page = await ctx.newPage();
    const sent: string[] = [];
    page.on('request', async (request) => {
      if (request.url().startsWith(base)) sent.push(`${request.url()} ${(await request.allHeaders()).cookie ?? ''}`);
    });
    await page.goto(host.origin);
    const feedback = page.getByRole('button', { name: 'Feedback' });
    await feedback.click();
    const panel = page.getByRole('dialog', { name: 'Feedback' });
    await panel.waitFor();
    const frame = page.frameLocator('iframe[title="Feedback board"]');
    await frame.getByRole('heading', { level: 1, name: 'Ideas' }).waitFor();
    await frame.getByRole('link', { name: title, exact: true }).waitFor();
    expect(await focused(page)).toBe('IFRAME:');

    // identify(): the frame signs the user in with the workspace's SSO token.
    const token = await sign({ email: `widget-${run}@example.com`, name: 'Wid Get' }, { expiresIn: '5m' });
    await page.evaluate((jwt) => (globalThis as any).Chorus.identify(jwt), token);
    await frame.getByText('Signed in as Wid Get').waitFor();

    await frame.getByRole('button', { name: `Vote for "${title}": 1 vote` }).click();
    await frame.getByRole('button', { name: `Remove vote for "${title}": 2 votes` }).waitFor();
    // CHORUS_DOCS_SCREENSHOTS=docs/images: the picture in docs/widget.md.
    if (process.env.CHORUS_DOCS_SCREENSHOTS) await page.screenshot({ path: `${process.env.CHORUS_DOCS_SCREENSHOTS}/widget-panel.png` });
    await until('post.voted at the receiver', () => eventsOf('post.voted').some((d) => d.post.id === created.id && d.voter.name === 'Wid Get'));

    await frame.getByLabel('Title').fill(`Posted in the widget ${run}`);
    await frame.getByLabel('Details').fill('From inside the panel');
    await frame.getByRole('button', { name: 'Submit post' }).click();
    // Its title is like "Seen in the widget": the "Similar posts" step comes first, in the frame too.
    await frame.getByRole('heading', { level: 1, name: 'Similar posts' }).waitFor();
    await frame.getByRole('button', { name: 'Post anyway' }).click();
    await frame.getByRole('heading', { level: 1, name: `Posted in the widget ${run}` }).waitFor();
    expect((await embedFrame(page)).url()).toMatch(new RegExp(`^${base}/embed/${ws.slug}/ideas/p/\\d+-`));
    await frame.getByRole('textbox', { name: 'Comment' }).fill(`A comment in the widget ${run}`);
    await frame.getByRole('button', { name: 'Add comment' }).click();
    await frame.getByText(`A comment in the widget ${run}`).waitFor();
    await until('post.created and comment.created at the receiver', () =>
      eventsOf('post.created').some((d) => d.post.title === `Posted in the widget ${run}` && d.post.author.name === 'Wid Get') &&
      eventsOf('comment.created').some((d) => d.comment.body === `A comment in the widget ${run}` && d.comment.official === false),
    );

    const violations = await axeViolations((await embedFrame(page)) as unknown as Page);
    expect(violations).toEqual([]);

    // Escape inside the frame closes the panel; focus is back on "Feedback".
    await frame.getByRole('textbox', { name: 'Comment' }).focus();
    await page.keyboard.press('Escape');
    await until('the panel closed', async () => !(await panel.isVisible()));
    expect(await focused(page)).toBe('BUTTON:Feedback');
    // "Close" too; and while open, Tab stays in the panel (Shift+Tab from "Close" goes to the frame).
    await feedback.click();
    await panel.waitFor();
    await page.getByRole('button', { name: 'Close' }).focus();
    await page.keyboard.press('Shift+Tab');
    expect(await focused(page)).toBe('IFRAME:');
    await page.getByRole('button', { name: 'Close' }).click();
    await until('the panel closed', async () => !(await panel.isVisible()));
    expect(await focused(page)).toBe('BUTTON:Feedback');

    // The frame's session is in the embed's cookie; a first-party visit sends no cookie of it and is signed in as no one.
    expect(sent.some((line) => line.includes(`/embed/${ws.slug}/ideas `) && line.includes('chorus.embed.'))).toBe(true);
    const first = await ctx.newPage();
    const firstSent: string[] = [];
    first.on('request', async (request) => firstSent.push((await request.allHeaders()).cookie ?? ''));
    await first.goto(`${base}/${ws.slug}/ideas`);
    await first.getByRole('link', { name: 'Sign in', exact: true }).waitFor();
    await first.goto(`${base}/embed/${ws.slug}/ideas`);
    await first.getByRole('link', { name: 'Sign in', exact: true }).waitFor();
    await sleep(100);
    expect(firstSent.filter((c) => c.includes('chorus.embed'))).toEqual([]);
    await ctx.close();
  });

  it('a forged or expired token signs no one in; a message from another window or origin does nothing', async () => {
    const { sign } = await ssoSigner(t.app, ws.id);
    const ctx = await newContext();
    const page = await ctx.newPage();
    await page.goto(host.origin);
    await page.getByRole('button', { name: 'Feedback' }).click();
    const frame = page.frameLocator('iframe[title="Feedback board"]');
    await frame.getByRole('link', { name: 'Sign in', exact: true }).waitFor();

    const expired = await sign({ email: `late-${run}@example.com`, name: 'Late Comer' }, { expiresIn: -60 });
    await page.evaluate((jwt) => (globalThis as any).Chorus.identify(jwt), expired);
    await frame.getByText('Single sign-on did not work').first().waitFor();
    const forged = await sign({ email: `forged-${run}@example.com`, name: 'For Ged' }, { expiresIn: '5m', key: `sso_${'F'.repeat(40)}` });
    await (await embedFrame(page)).goto(`${base}/embed/${ws.slug}/ideas`);
    await frame.getByRole('link', { name: 'Sign in', exact: true }).waitFor();
    await page.evaluate((jwt) => (globalThis as any).Chorus.identify(jwt), forged);
    await frame.getByText('Single sign-on did not work').first().waitFor();
    await (await embedFrame(page)).goto(`${base}/embed/${ws.slug}/ideas`);
    await frame.getByRole('link', { name: 'Sign in', exact: true }).waitFor();

    // A good token, sent by a frame of another origin on the same page (not the embed's parent): nothing happens.
    const good = await sign({ email: `sibling-${run}@example.com`, name: 'Sib Ling' }, { expiresIn: '5m' });
    await page.evaluate((src) => {
      const d = (globalThis as any).document;
      const f = d.createElement('iframe');
      f.src = src;
      f.title = 'Sibling';
      d.body.appendChild(f);
    }, `${stranger.origin}/sibling`);
    const sibling = await until('the sibling frame', () => page.frames().find((f) => f.url().endsWith('/sibling')));
    await sibling.waitForLoadState();
    await page.evaluate((jwt) => {
      const d = (globalThis as any).document;
      const f = [...d.querySelectorAll('iframe')].find((x: any) => x.title === 'Sibling');
      f.contentWindow.postMessage({ forward: jwt }, '*');
    }, good);
    await sleep(1500);
    expect(await frame.getByRole('link', { name: 'Sign in', exact: true }).count()).toBe(1);
    expect(await frame.getByText('Signed in as').count()).toBe(0);
    // The same token from the allowed parent signs in: it was never used.
    await page.evaluate((jwt) => (globalThis as any).Chorus.identify(jwt), good);
    await frame.getByText('Signed in as Sib Ling').waitFor();
    await ctx.close();
  });

  it('identify() before the panel is opened, or while it is closed, signs in when it opens; a top-level /embed page acts on no message', async () => {
    const { sign } = await ssoSigner(t.app, ws.id);
    const ctx = await newContext();
    const page = await ctx.newPage();
    await page.goto(host.origin);
    await page.waitForFunction(() => (globalThis as any).Chorus !== undefined);
    const token = await sign({ email: `early-${run}@example.com`, name: 'Earl Early' }, { expiresIn: '5m' });
    await page.evaluate((jwt) => (globalThis as any).Chorus.identify(jwt), token);
    // Nothing loads in the hidden panel (a cross-site frame that loaded and signed in hidden was
    // once left blank by Chromium): the frame loads, and signs in, once it is opened.
    await sleep(500);
    expect(page.frames().filter((f) => f.url().includes('/embed/'))).toEqual([]);
    await page.getByRole('button', { name: 'Feedback' }).click();
    const panelFrame = page.frameLocator('iframe[title="Feedback board"]');
    await panelFrame.getByText('Signed in as Earl Early').waitFor();

    // Closed, then identify() again: the token waits for the panel to open.
    await page.getByRole('button', { name: 'Close' }).click();
    const frame = await embedFrame(page);
    const before = frame.url();
    const later = await sign({ email: `late-${run}@example.com`, name: 'Late Lee' }, { expiresIn: '5m' });
    await page.evaluate((jwt) => (globalThis as any).Chorus.identify(jwt), later);
    await sleep(500);
    expect(frame.url()).toBe(before);
    expect(await frame.getByText('Signed in as Earl Early').count()).toBe(1);
    await page.getByRole('button', { name: 'Feedback' }).click();
    await panelFrame.getByText('Signed in as Late Lee').waitFor();

    const top = await ctx.newPage();
    await top.goto(`${base}/embed/${ws.slug}/ideas`);
    const unused = await sign({ email: `top-${run}@example.com`, name: 'Top Level' }, { expiresIn: '5m' });
    await top.evaluate((jwt) => (globalThis as any).postMessage({ type: 'chorus:identify', token: jwt }, '*'), unused);
    await sleep(1000);
    expect(top.url()).toBe(`${base}/embed/${ws.slug}/ideas`);
    expect(await top.getByText('Signed in as').count()).toBe(0);
    await ctx.close();
  });

  it('a page on an origin not allowed cannot frame it', async () => {
    const ctx = await newContext();
    const page = await ctx.newPage();
    const console: string[] = [];
    page.on('console', (m) => console.push(m.text()));
    await page.goto(stranger.origin);
    await page.getByRole('button', { name: 'Feedback' }).click();
    await until('the refusal to frame', () => console.some((line) => line.includes('frame-ancestors')));
    expect(await page.frameLocator('iframe[title="Feedback board"]').getByRole('heading', { level: 1 }).count()).toBe(0);
    await ctx.close();
  });

  it('the dashboard shows the allowed origins and the snippet', async () => {
    const ctx = await newContext();
    const page = await ctx.newPage();
    await page.goto(await memberSignInLink(t.app, ws.id, ws.member.email));
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.goto(`${base}/admin/widget`);
    expect(await page.getByLabel('Allowed origins').inputValue()).toBe(host.origin);
    await page.getByText(`data-workspace="${ws.slug}"`).waitFor();
    await page.getByLabel('Allowed origins').fill(`${host.origin}\nftp://nope.example`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Line 2').waitFor();
    expect(await t.app.get(WorkspacesService).widgetOrigins(ws.id)).toEqual([host.origin]);
    expect(await axeViolations(page)).toEqual([]);
    await ctx.close();
  });
});
