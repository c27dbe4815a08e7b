import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PostsService } from '../src/posts/posts.service';
import { memberSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { axeViolations, describeInBrowser, startBrowserTest } from './support/browser';
import type { TestWorkspace } from './support/factories';
import { Client } from './support/http';
import type { MailServer } from './support/mail';
import { ssoSigner } from './support/site';
import type { TestApp } from './support/test-app';
import { until } from './support/wait';

// The changelog in Chromium: the dashboard's "New entry" (Save draft, Schedule, Publish now) with
// JavaScript off, the email it sends, the public pages a visitor reads and subscribes on, hostile
// Markdown shown as text, and axe-core's WCAG 2.2 A/AA rules in light and dark.

const run = randomBytes(3).toString('hex');

describeInBrowser('the changelog in Chromium', () => {
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
  }, 180_000);

  afterAll(() => env?.stop());

  async function member(options: { dark?: boolean; javaScript?: boolean } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ javaScriptEnabled: options.javaScript ?? false, colorScheme: options.dark ? 'dark' : 'light' });
    const page = await ctx.newPage();
    await page.goto(await memberSignInLink(t.app, ws.id, ws.member.email));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/admin`);
    return { ctx, page };
  }

  it('with JavaScript off: New entry, Save draft, Schedule, Publish now; a voter is emailed; the post pages show it', async () => {
    const wanted = (await api.post('/api/v1/posts', { board: 'ideas', title: `Wanted in the browser ${run}` })).body.data;
    const voter = await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'guest', name: 'Vee', email: `vee-${run}@example.com` });
    await t.app.get(PostsService).vote(ws.actor, wanted.id, voter.id);
    const { ctx, page } = await member();
    await page.getByRole('link', { name: 'Changelog' }).click();
    await page.getByRole('heading', { level: 1, name: 'Changelog' }).waitFor();

    // A refused form comes back with its errors and what was typed.
    await page.getByLabel('Title').fill('ab');
    await page.getByLabel('Linked posts').fill('12x');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Title must be 4 to 120 characters').waitFor();
    await page.getByText('Linked posts must be post ids (numbers), separated by commas').waitFor();
    // More posts than an entry may link: the API's own rule, in its words.
    await page.getByLabel('Title').fill('Too many links');
    await page.getByLabel('Linked posts').fill(Array.from({ length: 101 }, (_, i) => i + 1).join(', '));
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Linked posts must be an array of post ids (positive integers), at most 100').waitFor();

    await page.getByLabel('Title').fill(`Shipped from the browser ${run}`);
    await page.getByLabel('Details').fill('It **works**.\n\n<script>window.__xss=1</script>');
    await page.getByLabel('Type').selectOption('improved');
    await page.getByLabel('Linked posts').fill(String(wanted.id));
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('The draft was saved.').waitFor();
    const id = Number(/\/admin\/changelog\/(\d+)/.exec(page.url())![1]);
    expect((await api.get(`/api/v1/changelog/${id}`)).body.data).toMatchObject({ state: 'draft', type: 'improved', posts: [{ id: wanted.id }] });

    await page.getByText('A date and time in UTC').first().waitFor();
    await page.getByLabel('Publish at').fill('2099-01-02T03:04');
    await page.getByRole('button', { name: 'Schedule' }).click();
    await page.getByText('The entry was scheduled.').waitFor();
    expect((await api.get(`/api/v1/changelog/${id}`)).body.data).toMatchObject({ state: 'scheduled', publish_at: '2099-01-02T03:04:00.000Z' });

    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText('The entry was published.').waitFor();
    const entry = (await api.get(`/api/v1/changelog/${id}`)).body.data;
    expect(entry.state).toBe('published');
    const mail = await until('the voter\'s email', () => smtp.accepted.find((m) => m.envelopeTo.includes(`vee-${run}@example.com`)), 20_000);
    expect(mail.mail.text).toContain(entry.url);

    // The post's dashboard page lists the entry; its public page says "Shipped in".
    await page.goto(wanted.admin_url);
    await page.getByRole('link', { name: `Shipped from the browser ${run}` }).waitFor();
    await page.goto(wanted.url);
    await page.getByText('Shipped in').waitFor();
    await page.getByRole('link', { name: `Shipped from the browser ${run}` }).click();
    await page.getByRole('heading', { level: 1, name: `Shipped from the browser ${run}` }).waitFor();
    await page.getByText('<script>window.__xss=1</script>').waitFor();
    await ctx.close();

    // A new entry published at once from "New entry".
    const second = await member();
    await second.page.goto(`${base}/admin/changelog`);
    await second.page.getByLabel('Title').fill(`Published at once ${run}`);
    await second.page.getByRole('button', { name: 'Publish now' }).click();
    await second.page.getByText('The entry was published.').waitFor();
    await second.ctx.close();
  });

  it('a signed-in visitor subscribes to updates with JavaScript off; hostile Markdown runs nothing', async () => {
    await api.post('/api/v1/changelog', {
      title: `Hostile body ${run}`,
      type: 'fixed',
      publish_at: new Date().toISOString(),
      body: '<img src=x onerror="window.__xss=2">\n\n[x](javascript:window.__xss=3)\n\n![y](https://example.com/y.png)\n\n<a href="javascript:window.__xss=4">z</a>',
    });
    const { sign } = await ssoSigner(t.app, ws.id);
    for (const javaScript of [false, true]) {
      const ctx = await browser.newContext({ javaScriptEnabled: javaScript });
      const page = await ctx.newPage();
      await page.goto(`${base}/${ws.slug}/sso?token=${await sign({ email: `sub-${run}-${javaScript}@example.com`, name: 'Sue Scriber' }, { expiresIn: '5m' })}`);
      await page.goto(`${base}/${ws.slug}/changelog`);
      await page.getByRole('button', { name: 'Subscribe to updates' }).click();
      await page.getByRole('button', { name: 'Unsubscribe from updates' }).waitFor();
      await page.getByRole('heading', { level: 2, name: `Hostile body ${run}` }).waitFor();
      await page.getByText('<img src=x onerror="window.__xss=2">').waitFor();
      expect(await page.locator('.markdown img, .markdown a[href^="javascript"]').count()).toBe(0);
      if (javaScript) expect(await page.evaluate(() => (globalThis as unknown as { __xss?: number }).__xss)).toBeUndefined();
      await ctx.close();
    }
  });

  it('passes axe in light and dark: the changelog, an entry, a post "Shipped in" it, the dashboard\'s changelog and an entry there', async () => {
    const linked = (await api.post('/api/v1/posts', { board: 'ideas', title: `Axe post ${run}` })).body.data;
    const entry = (
      await api.post('/api/v1/changelog', {
        post_ids: [linked.id],
        title: `Axe entry ${run}`,
        type: 'new',
        publish_at: new Date().toISOString(),
        body: '# Heading\n\nText with a [link](https://example.com) and `code`.\n\n- a\n- b\n\n> quoted',
      })
    ).body.data;
    const { sign } = await ssoSigner(t.app, ws.id);
    for (const dark of [false, true]) {
      const ctx = await browser.newContext({ javaScriptEnabled: true, colorScheme: dark ? 'dark' : 'light' });
      const page = await ctx.newPage();
      for (const [name, path] of [
        ['changelog', `/${ws.slug}/changelog`],
        ['entry', new URL(entry.url).pathname],
        ['post, shipped', new URL(linked.url).pathname],
      ]) {
        await page.goto(base + path);
        expect([name, dark, await axeViolations(page)]).toEqual([name, dark, []]);
      }
      await page.goto(`${base}/${ws.slug}/sso?token=${await sign({ email: `axe-${run}@example.com`, name: 'Axe Reader' }, { expiresIn: '5m' })}`);
      await page.goto(`${base}/${ws.slug}/changelog`);
      expect(['changelog, signed in', dark, await axeViolations(page)]).toEqual(['changelog, signed in', dark, []]);
      await ctx.close();
      const admin = await member({ dark, javaScript: true }); // axe runs in the page
      for (const [name, path] of [
        ['admin changelog', '/admin/changelog'],
        ['admin entry', `/admin/changelog/${entry.id}`],
        ['admin post', `/admin/p/${linked.id}`],
      ]) {
        await admin.page.goto(base + path);
        expect([name, dark, await axeViolations(admin.page)]).toEqual([name, dark, []]);
      }
      await admin.ctx.close();
    }
  }, 120_000);
});
