import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { memberSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { axeViolations, describeInBrowser, startBrowserTest } from './support/browser';
import type { TestWorkspace } from './support/factories';
import { Client } from './support/http';
import type { MailServer } from './support/mail';
import { closeReceivers, Receiver } from './support/receiver';
import type { TestApp } from './support/test-app';
import { until } from './support/wait';

// The dashboard in Chromium with JavaScript off: a team runs its workspace from sign-in to a
// retried delivery, with the events and emails arriving at real local peers; and every
// dashboard page passes axe-core's WCAG 2.2 A/AA rules in light and dark.

const run = randomBytes(3).toString('hex');

describeInBrowser('the dashboard in Chromium', () => {
  let env: Awaited<ReturnType<typeof startBrowserTest>>;
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let browser: Browser;
  let smtp: MailServer;
  let receiver: Receiver;
  let base: string;

  beforeAll(async () => {
    env = await startBrowserTest({ WEBHOOK_RETRY_SCHEDULE: '1h' });
    ({ t, ws, api, browser, smtp, receiver, base } = env);
  }, 180_000);

  afterAll(async () => {
    await env?.stop();
    await closeReceivers();
  });

  async function signedIn(options: { dark?: boolean; javaScript?: boolean } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
    const ctx = await browser.newContext({ javaScriptEnabled: options.javaScript ?? false, colorScheme: options.dark ? 'dark' : 'light' });
    const page = await ctx.newPage();
    await page.goto(await memberSignInLink(t.app, ws.id, ws.member.email));
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL(`${base}/admin`);
    return { ctx, page };
  }

  it('signs in with a code from a real email, and goes back to the admin_url asked for', async () => {
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title: `Asked for first ${run}` })).body.data;
    const ctx = await browser.newContext({ javaScriptEnabled: false });
    const page = await ctx.newPage();
    await page.goto(created.admin_url);
    await page.getByLabel('Email').fill(ws.member.email);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    const mail = await until('the sign-in email', () => smtp.accepted.find((m) => m.envelopeTo.includes(ws.member.email)), 20_000);
    const code = /\n {4}(\d{3}) (\d{3})\n/.exec(mail.mail.text)!.slice(1).join('');
    await page.getByLabel('Code').fill(code);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Asked for first ${run}` }).waitFor();
    expect(page.url()).toBe(created.admin_url);
    await ctx.close();
  });

  it('from an admin_url: changes a status (the event arrives, the voter is emailed), replies, merges', async () => {
    const endpoint = await api.post('/api/v1/webhook_endpoints', { url: `${receiver.url}/status`, events: ['post.status_changed', 'comment.created'] });
    expect(endpoint.status).toBe(201);
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title: `Make it dark ${run}` })).body.data;
    const duplicate = (await api.post('/api/v1/posts', { board: 'ideas', title: `Dark theme please ${run}` })).body.data;
    const voterEmail = `voter-${run}@example.com`;
    await api.post(`/api/v1/posts/${created.id}/votes`, { voter: { name: 'Vera Voter', email: voterEmail } });

    const { ctx, page } = await signedIn();
    await page.goto(created.admin_url);
    await page.getByLabel('Status').selectOption('planned');
    await page.getByRole('button', { name: 'Change status' }).click();
    await page.getByText('The status was changed.').waitFor();
    const change = await until('post.status_changed at the receiver', () =>
      receiver.requests.find((r) => r.body?.type === 'post.status_changed' && r.body.data.post.id === created.id),
    );
    expect(change.body.data).toMatchObject({ previous_status: 'open', post: { status: 'planned' } });
    const voterMail = await until('the voter email', () => smtp.accepted.find((m) => m.envelopeTo.includes(voterEmail)), 20_000);
    expect(voterMail.mail.subject).toContain(`Make it dark ${run}`);

    await page.getByLabel('Reply').fill('Planned for next month.');
    await page.getByRole('button', { name: 'Post reply' }).click();
    await page.getByText('Your reply was posted.').waitFor();
    await until('comment.created at the receiver', () => receiver.requests.find((r) => r.body?.type === 'comment.created' && r.body.data.comment.official === true));

    await page.goto(duplicate.admin_url);
    await page.getByLabel('Merge into', { exact: true }).fill(String(created.id));
    await page.getByRole('button', { name: 'Merge', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: `Merge “Dark theme please ${run}” into “Make it dark ${run}”?` }).waitFor();
    await page.getByRole('button', { name: 'Merge', exact: true }).click();
    await page.getByText('The post was merged.').waitFor();
    expect((await api.get(`/api/v1/posts/${duplicate.id}`)).body.data.merged_into.id).toBe(created.id);
    // The post's page shows what each event became at each endpoint.
    await page.goto(created.admin_url);
    await page.getByText('post.status_changed').first().waitFor();
    expect(await page.locator('text=Delivered').count()).toBeGreaterThan(0);
    await ctx.close();
    await api.request('DELETE', `/api/v1/webhook_endpoints/${endpoint.body.data.id}`);
  });

  it('Developers: a key made, used and revoked; an endpoint made, tested, failing, retried and delivered', async () => {
    const { ctx, page } = await signedIn();
    await page.goto(`${base}/admin/developers`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('code.secret').textContent())!;
    expect(key).toMatch(/^chorus_key_[A-Za-z0-9]{40}$/);
    expect(page.url()).not.toContain(key);
    expect((await api.get('/api/v1/boards', { key })).status).toBe(200);
    await page.goto(`${base}/admin/developers`);
    expect(await page.content()).not.toContain(key);
    await page.getByRole('button', { name: `Revoke ${key.slice(0, 15)}…` }).click();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('The key was revoked').waitFor();
    expect((await api.get('/api/v1/boards', { key })).status).toBe(401);

    // An endpoint for a local receiver that fails until told otherwise.
    let failing = true;
    const hook = await Receiver.start();
    hook.answerWith(() => ({ status: failing ? 500 : 200 }));
    await page.getByLabel('Kind').selectOption('webhook');
    await page.getByLabel('URL').fill(`${hook.url}/chorus`);
    await page.getByLabel('post.created').check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = (await page.locator('code.secret').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32,}$/);
    await page.getByRole('link', { name: 'Your server (signed webhook)' }).click();
    expect(await page.content()).not.toContain(secret);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('The test event did not arrive: the answer was 500.').waitFor();
    failing = false;
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText(/The test event arrived \(200, \d+ ms\)\./).waitFor();

    failing = true;
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title: `Sent to a failing server ${run}` })).body.data;
    await until('the delivery to fail', async () => {
      const [row] = await t.db.query(`SELECT attempt_count FROM webhook_deliveries WHERE workspace_id = $1 AND event_type = 'post.created' AND body LIKE $2`, [ws.id, `%${created.title}%`]);
      return row?.attempt_count >= 1;
    });
    await t.db.query(`UPDATE webhook_deliveries SET status = 'failed', reason = 'retries_exhausted', next_attempt_at = NULL WHERE workspace_id = $1 AND body LIKE $2`, [ws.id, `%${created.title}%`]);
    await page.getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('cell', { name: '500' }).first().waitFor();
    failing = false;
    await page.getByRole('button', { name: /^Retry delivery/ }).first().click();
    await page.getByText('The delivery will be sent again in a moment.').waitFor();
    const ofPost = () => hook.requests.filter((r) => r.body?.type === 'post.created' && r.body.data.post.id === created.id);
    await until('the retried delivery to arrive', () => ofPost().length >= 2);
    await until('the delivery to be recorded as delivered', async () => {
      const [row] = await t.db.query(`SELECT status FROM webhook_deliveries WHERE workspace_id = $1 AND body LIKE $2`, [ws.id, `%${created.title}%`]);
      return row.status === 'delivered';
    });
    await page.reload();
    // Its section now says so, with both attempts: the 500, then the 200.
    const section = page.getByRole('region', { name: /^Delivery / }).filter({ hasText: 'post.created' }).first();
    await section.getByText('Delivered').waitFor();
    expect(await section.getByRole('cell', { name: '500' }).count()).toBe(1);
    expect(await section.getByRole('cell', { name: '200' }).count()).toBe(1);
    await ctx.close();
  });

  it('has no WCAG 2.2 A or AA violation on any dashboard page, in light and in dark', async () => {
    const created = (await api.post('/api/v1/posts', { board: 'ideas', title: `Accessible admin ${run}`, body: 'With https://example.com' })).body.data;
    await api.post(`/api/v1/posts/${created.id}/comments`, { body: 'A reply' });
    const endpoint = (await api.post('/api/v1/webhook_endpoints', { url: `${receiver.url}/axe`, events: ['post.created'] })).body.data;
    await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: 'Second Member', email: `second-${run}@example.com` });
    const pages: [string, string][] = [
      ['posts', '/admin'],
      ['post', `/admin/p/${created.id}`],
      ['boards', '/admin/boards'],
      ['board', '/admin/boards/ideas'],
      ['developers', '/admin/developers'],
      ['endpoint', `/admin/developers/endpoints/${endpoint.id}`],
      ['deliveries', `/admin/developers/endpoints/${endpoint.id}/deliveries`],
      ['members', '/admin/members'],
    ];
    for (const dark of [false, true]) {
      const signedOut = await browser.newContext({ colorScheme: dark ? 'dark' : 'light' });
      const outPage = await signedOut.newPage();
      for (const path of ['/admin/sign-in', '/admin/sign-in/code', '/admin/sign-in/link/not-a-link']) {
        await outPage.goto(base + path);
        expect([path, dark, await axeViolations(outPage)]).toEqual([path, dark, []]);
      }
      await signedOut.close();
      const { ctx, page } = await signedIn({ dark, javaScript: true });
      for (const [name, path] of pages) {
        await page.goto(base + path);
        expect([name, dark, await axeViolations(page)]).toEqual([name, dark, []]);
      }
      // A confirmation, and a form shown again with its errors.
      await page.goto(`${base}/admin/members`);
      await page.getByRole('button', { name: 'Remove Second Member' }).click();
      expect(['confirm', dark, await axeViolations(page)]).toEqual(['confirm', dark, []]);
      await page.goto(`${base}/admin/boards`);
      await page.getByRole('button', { name: 'Create board' }).click();
      await page.getByText('Name is required').waitFor();
      expect(['form with errors', dark, await axeViolations(page)]).toEqual(['form with errors', dark, []]);
      await ctx.close();
    }
  });
});
