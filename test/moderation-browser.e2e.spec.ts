import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { memberSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { axeViolations, describeInBrowser, startBrowserTest } from './support/browser';
import type { TestWorkspace } from './support/factories';
import type { Client } from './support/http';
import type { MailServer } from './support/mail';
import { formToken, ssoSigner, Visitor } from './support/site';
import type { TestApp } from './support/test-app';
import { sleep } from './support/wait';

// The dashboard's moderation page in Chromium with JavaScript off: the settings saved by "Save",
// the queue's "Approve", "Reject" and "Block", "Unblock"; the page and the refused sign-in page
// pass axe-core's WCAG 2.2 A/AA rules in light and dark and fit a 320 px screen. Screenshots go to
// CHORUS_SCREENSHOTS (a folder) when it is set, to be looked at.

const run = randomBytes(3).toString('hex');
const shots = process.env.CHORUS_SCREENSHOTS;

describeInBrowser('the moderation page in Chromium', () => {
  let env: Awaited<ReturnType<typeof startBrowserTest>>;
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let browser: Browser;
  let smtp: MailServer;
  let base: string;

  beforeAll(async () => {
    env = await startBrowserTest();
    ({ t, ws, api, browser, smtp, base } = env);
    if (shots) mkdirSync(shots, { recursive: true });
  }, 180_000);

  afterAll(() => env?.stop());

  async function signedIn(options: { dark?: boolean; width?: number; javaScript?: boolean } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({
      javaScriptEnabled: options.javaScript ?? false,
      colorScheme: options.dark ? 'dark' : 'light',
      viewport: { width: options.width ?? 1280, height: 900 },
    });
    ctx.setDefaultTimeout(15_000);
    const page = await ctx.newPage();
    await page.goto(await memberSignInLink(t.app, ws.id, ws.member.email));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/admin`);
    return { ctx, page };
  }

  /** What overflows a narrow screen sideways (the page itself; a table scrolls in its frame). */
  const overflow = (page: Page) =>
    page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document.documentElement;
      return root.scrollWidth - root.clientWidth;
    });

  const shot = async (page: Page, name: string) => {
    if (shots) await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  };

  /** A visitor signed in by SSO who posts and comments through the site's forms (over HTTP). */
  let visitors = 0;
  async function heldItems(): Promise<{ posts: number[]; comment: number; email: string }> {
    const { sign } = await ssoSigner(t.app, ws.id);
    const visitor = new Visitor(base, base);
    // A new person each time: a visitor may post 10 times an hour.
    const email = `held-${++visitors}-${run}@example.com`;
    await visitor.get(`/${ws.slug}/sso?token=${await sign({ email, name: 'Hal Held' }, { expiresIn: '5m' })}`);
    const posts: number[] = [];
    for (const title of [`Cheap watches here ${run}`, `Please add a dark theme ${run}`]) {
      const board = await visitor.get(`/${ws.slug}/ideas`);
      const answer = await visitor.post(`/${ws.slug}/ideas/posts`, { _csrf: formToken(board.text, `/${ws.slug}/ideas/posts`), title, body: 'See https://example.com for more.', category: 'feature', similar: 'seen' });
      posts.push(Number(/\/p\/(\d+)/.exec(answer.location!)![1]));
      await sleep(5); // distinct creation times: the queue is oldest first
    }
    const target = (await api.post('/api/v1/posts', { board: 'ideas', title: `Export to CSV ${run}` })).body.data;
    const page = await visitor.follow(await visitor.get(`/${ws.slug}/ideas/p/${target.id}`));
    const action = /action="([^"]*\/comments)"/.exec(page.text)![1];
    const answer = await visitor.post(action, { _csrf: formToken(page.text, action), body: `A long comment with a very-long-word-${'x'.repeat(80)} ${run}` });
    return { posts, comment: Number(/#comment-(\d+)/.exec(answer.location!)![1]), email };
  }

  it('saves the settings, and works the queue with JavaScript off: Approve, Reject, Block (confirmed), Unblock', async () => {
    const { ctx, page } = await signedIn();
    await page.getByRole('link', { name: 'Moderation' }).click();
    await page.getByRole('heading', { level: 1, name: 'Moderation' }).waitFor();
    expect(await page.getByLabel('Refuse disposable email addresses').isChecked()).toBe(true);
    await page.getByLabel('Moderation', { exact: true }).selectOption('all');
    await page.getByLabel('Blocked email domains').fill(`Spam-${run}.example\nbücher-${run}.example`);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('The settings were saved.').waitFor();
    expect(await page.getByLabel('Moderation', { exact: true }).inputValue()).toBe('all');
    expect(await page.getByLabel('Blocked email domains').inputValue()).toMatch(new RegExp(`^spam-${run}\\.example\\nxn--`));

    const { posts, comment, email } = await heldItems();
    await page.reload();
    const queue = page.getByRole('region', { name: 'Waiting for review' });
    await queue.getByText(`Cheap watches here ${run}`).waitFor();
    expect(await queue.getByRole('listitem').count()).toBe(3);
    await shot(page, 'moderation-light');

    // Approve the second post (its buttons are described by its heading).
    const second = queue.getByRole('listitem').filter({ hasText: `Please add a dark theme ${run}` });
    await second.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved: it is published now.').waitFor();
    expect((await api.get(`/api/v1/posts/${posts[1]}`)).body.data.moderation).toBe('approved');
    // Reject the comment.
    await queue.getByRole('listitem').filter({ hasText: 'Comment on:' }).getByRole('button', { name: 'Reject' }).click();
    await page.getByText('Rejected: it stays out').waitFor();
    expect((await t.db.query(`SELECT moderation FROM comments WHERE id = $1`, [comment]))[0].moderation).toBe('rejected');
    // Block the author of the first post: confirmed, then blocked; the post is rejected.
    await queue.getByRole('listitem').filter({ hasText: `Cheap watches here ${run}` }).getByRole('button', { name: 'Block' }).click();
    await page.getByRole('heading', { level: 1, name: 'Block Hal Held?' }).waitFor();
    await page.getByRole('button', { name: 'Block' }).click();
    await page.getByText('The person was blocked').waitFor();
    expect((await api.get(`/api/v1/posts/${posts[0]}`)).body.data.moderation).toBe('rejected');
    await page.getByText('Nothing is waiting for review.').waitFor();
    const blocked = page.getByRole('table', { name: 'Blocked people' });
    await blocked.getByText(email).waitFor();
    await shot(page, 'moderation-blocked');
    await blocked.getByRole('button', { name: 'Unblock' }).click();
    await page.getByText('The person was unblocked').waitFor();
    await page.getByText('Nobody is blocked.').waitFor();
    await ctx.close();
  }, 240_000);

  it('refuses a disposable address\'s sign-in with "You cannot post here." and sends nothing (JavaScript off, then on with axe, light and dark)', async () => {
    const tried: string[] = [];
    for (const [javaScript, dark] of [[false, false], [true, false], [true, true]]) {
      const ctx = await browser.newContext({ javaScriptEnabled: javaScript, colorScheme: dark ? 'dark' : 'light' });
      ctx.setDefaultTimeout(15_000);
      const page = await ctx.newPage();
      await page.goto(`${base}/${ws.slug}/sign-in`);
      const email = `throwaway-${tried.length}-${run}@mailinator.com`;
      tried.push(email);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Name').fill('Thro Away');
      await page.getByRole('button', { name: 'Email me a code' }).click();
      await page.getByRole('heading', { level: 1, name: 'Sign-in refused' }).waitFor();
      expect(await page.title()).toBe('Sign-in refused');
      await page.getByText('You cannot post here.', { exact: true }).waitFor();
      if (javaScript) expect([dark, await axeViolations(page)]).toEqual([dark, []]);
      await shot(page, `sign-in-refused-${dark ? 'dark' : 'light'}`);
      await ctx.close();
    }
    await sleep(1000);
    expect(smtp.accepted.filter((m) => m.envelopeTo.some((to) => tried.includes(to)))).toEqual([]);
    expect(await t.db.query(`SELECT id FROM webhook_deliveries WHERE recipient = ANY($1::text[])`, [tried])).toEqual([]);
  }, 240_000);

  it('has no WCAG 2.2 A or AA violation, light and dark, and fits 320 px', async () => {
    await t.app.get(WorkspacesService).setModeration(ws.slug, 'all');
    await heldItems();
    for (const dark of [false, true]) {
      for (const width of [1280, 320]) {
        const { ctx, page } = await signedIn({ dark, width, javaScript: true }); // axe runs as a script
        await page.goto(`${base}/admin/moderation`);
        await page.getByRole('region', { name: 'Waiting for review' }).getByRole('listitem').first().waitFor();
        expect(['page with its queue', dark, width, await axeViolations(page)]).toEqual(['page with its queue', dark, width, []]);
        expect(['overflow', dark, width, await overflow(page)]).toEqual(['overflow', dark, width, 0]);
        await shot(page, `moderation-queue-${dark ? 'dark' : 'light'}-${width}`);
        await page.getByRole('region', { name: 'Waiting for review' }).getByRole('listitem').first().getByRole('button', { name: 'Block' }).click();
        expect(['confirm', dark, width, await axeViolations(page)]).toEqual(['confirm', dark, width, []]);
        await page.getByRole('button', { name: 'Block' }).click();
        await page.getByText('The person was blocked').waitFor();
        await page.getByLabel('Blocked email domains').fill('not a domain');
        await page.getByRole('button', { name: 'Save' }).click();
        await page.getByText('Blocked email domains line 1').waitFor();
        expect(['page with an error', dark, width, await axeViolations(page)]).toEqual(['page with an error', dark, width, []]);
        expect(['overflow', dark, width, await overflow(page)]).toEqual(['overflow', dark, width, 0]);
        await page.goto(`${base}/admin/moderation`);
        expect(['page with a blocked person', dark, width, await axeViolations(page)]).toEqual(['page with a blocked person', dark, width, []]);
        expect(['overflow', dark, width, await overflow(page)]).toEqual(['overflow', dark, width, 0]);
        await shot(page, `moderation-${dark ? 'dark' : 'light'}-${width}`);
        // Unblocked again, with new items for the next round.
        await page.getByRole('table', { name: 'Blocked people' }).getByRole('button', { name: 'Unblock' }).first().click();
        await page.getByText('The person was unblocked').waitFor();
        await ctx.close();
        await heldItems();
      }
    }
  }, 240_000);
});
