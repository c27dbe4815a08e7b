import { randomBytes } from 'node:crypto';
import { SessionsStore } from '../src/web/shared/sessions.store';
import { createDashboardSignInLink, memberSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { DASHBOARD_ORIGIN, formToken, pageText, sentSignIn, signedInMember, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';
import { until } from './support/wait';

// The dashboard over HTTP, as a browser without JavaScript uses it: members sign in, answer
// posts and run the workspace through the API's services; nobody reaches another workspace.

const run = randomBytes(3).toString('hex');

describe('the dashboard', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let member: Visitor;
  const browser = () => new Visitor(t.baseUrl, DASHBOARD_ORIGIN);

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
    member = await signedInMember(t.baseUrl, t.app, ws.id, ws.member.email);
  });
  afterAll(() => t?.close());

  /** Posts the form on `page` whose action is `action`, with its token. */
  async function submit(who: Visitor, page: string, action: string, fields: Record<string, string | string[]> = {}) {
    const shown = await who.get(page);
    return who.post(action, { _csrf: formToken(shown.text, action), ...fields });
  }

  describe('signing in', () => {
    it('sends someone not signed in to sign in, and back afterwards', async () => {
      const answer = await browser().get('/admin/p/1?x=1');
      expect([answer.status, answer.location]).toEqual([303, '/admin/sign-in?redirect=%2Fadmin%2Fp%2F1%3Fx%3D1']);
      const refused = await browser().post('/admin/boards', { name: 'No', slug: 'no' });
      expect(refused.status).toBe(403);
    });

    it('signs in with the CLI\'s one-time link: a page with a "Sign in" button, good once', async () => {
      const path = new URL(await memberSignInLink(t.app, ws.id, ws.member.email)).pathname;
      const scanner = browser();
      expect((await scanner.get(path)).status).toBe(200); // opening it uses nothing up
      const someone = browser();
      const page = await someone.get(path);
      expect(page.text).toContain('<button type="submit">Sign in</button>');
      const used = await someone.post(path, { _csrf: formToken(page.text) });
      expect([used.status, used.location]).toEqual([303, '/admin']);
      const cookie = used.headers.getSetCookie().find((c) => c.startsWith('__Secure-chorus.admin='))!;
      expect(cookie).toMatch(/Path=\/admin;/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/Secure/);
      expect(cookie).toMatch(/SameSite=Lax/);
      expect(cookie).toMatch(/Max-Age=43200/);
      expect(pageText((await someone.get('/admin')).text)).toContain('Olive Owner');
      const again = await browser().get(path);
      expect(again.status).toBe(410);
      expect(pageText(again.text)).toContain('used already');
      // An expired link says so.
      const token = await createDashboardSignInLink(t.app.get(SessionsStore), ws.id, ws.member.email);
      await t.db.query(`UPDATE dashboard_sign_ins SET expires_at = now() - interval '1 second' WHERE id = $1`, [token.split('.')[0]]);
      expect(pageText((await browser().get(`/admin/sign-in/link/${token}`)).text)).toContain('has expired');
    });

    it('signs in with an emailed code; an address that is no member\'s sees the same pages and gets no email', async () => {
      const codeFor = async (email: string) => {
        const someone = browser();
        const sent = await submit(someone, '/admin/sign-in', '/admin/sign-in', { email });
        expect([sent.status, sent.location]).toEqual([303, '/admin/sign-in/code']);
        return { someone, page: await someone.follow(sent) };
      };
      const stranger = await codeFor(`stranger-${run}@example.com`);
      const owner = await codeFor(ws.member.email);
      expect(pageText(stranger.page.text)).toBe(pageText(owner.page.text));
      // Whether an address is a member's is looked up once the answer is out.
      await until('both sign-ins to be looked after', async () => {
        const [row] = await t.db.query(
          `SELECT count(*) FILTER (WHERE handled_at IS NULL)::int AS waiting, count(*) FILTER (WHERE email = $2)::int AS stranger
             FROM dashboard_sign_ins WHERE email = ANY ($1::text[])`,
          [[`stranger-${run}@example.com`, ws.member.email], `stranger-${run}@example.com`],
        );
        return row.waiting === 0 && row.stranger === 1;
      });
      expect((await t.db.query(`SELECT 1 FROM webhook_deliveries WHERE recipient = $1`, [`stranger-${run}@example.com`])).length).toBe(0);
      const wrong = await stranger.someone.post('/admin/sign-in/code', { _csrf: formToken(stranger.page.text), code: '123456' });
      expect(wrong.status).toBe(400);

      const { code, subject } = await sentSignIn(t.db, ws.member.email);
      expect(subject).toContain(`for Workspace ${ws.slug}`);
      const signedIn = await owner.someone.post('/admin/sign-in/code', { _csrf: formToken(owner.page.text), code: code! });
      expect([signedIn.status, signedIn.location]).toEqual([303, '/admin']);
      expect((await owner.someone.get('/admin')).status).toBe(200);
    });

    it('lets a member of several workspaces choose one', async () => {
      const email = `two-${run}@example.com`;
      const other = await createWorkspace(t.app);
      for (const w of [ws, other]) await t.app.get(WorkspacesService).addPerson(w.id, { kind: 'member', name: 'Two Places', email });
      const someone = browser();
      const sent = await submit(someone, '/admin/sign-in', '/admin/sign-in', { email });
      const page = await someone.follow(sent);
      const { code } = await until('the sign-in email', () => sentSignIn(t.db, email).catch(() => null));
      const choice = await someone.post('/admin/sign-in/code', { _csrf: formToken(page.text), code: code! });
      expect(choice.status).toBe(200);
      expect(pageText(choice.text)).toContain(`Open Workspace ${other.slug}`);
      const chosen = await someone.post('/admin/sign-in/choose', { _csrf: formToken(choice.text), workspace: other.id, redirect: '/admin' });
      expect([chosen.status, chosen.location]).toEqual([303, '/admin']);
      expect(pageText((await someone.get('/admin')).text)).toContain(`Workspace ${other.slug}`);
      // The choice is for the workspaces the address is a member of, and for this sign-in only.
      const outsider = await createWorkspace(t.app);
      const again = browser();
      const form = await submit(again, '/admin/sign-in', '/admin/sign-in', { email });
      const codePage = await again.follow(form);
      await until('the second email', async () => (await t.db.query(`SELECT 1 FROM dashboard_sign_ins WHERE email = $1 AND handled_at IS NOT NULL AND used_at IS NULL`, [email])).length > 0);
      const second = await again.post('/admin/sign-in/code', { _csrf: formToken(codePage.text), code: (await sentSignIn(t.db, email)).code! });
      expect((await again.post('/admin/sign-in/choose', { _csrf: formToken(second.text), workspace: outsider.id })).status).toBe(403);
    });

    it('ends the session at once when the member signs out or is removed', async () => {
      const email = `leaving-${run}@example.com`;
      await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: 'Lee Leaving', email });
      const leaving = await signedInMember(t.baseUrl, t.app, ws.id, email);
      const other = await signedInMember(t.baseUrl, t.app, ws.id, email);
      expect((await leaving.get('/admin')).status).toBe(200);
      const out = await submit(leaving, '/admin', '/admin/sign-out');
      expect([out.status, out.location]).toEqual([303, '/admin/sign-in']);
      expect((await leaving.get('/admin')).status).toBe(303);

      const person = (await t.app.get(WorkspacesService).listMembers(ws.id)).find((m) => m.email === email)!;
      const confirm = await submit(member, '/admin/members', `/admin/members/${person.id}/remove`);
      expect(pageText(confirm.text)).toContain('Remove Lee Leaving from the members?');
      const kept = new Map(other.cookies);
      const removed = await member.post(`/admin/members/${person.id}/remove`, { _csrf: formToken(confirm.text), confirm: 'yes' });
      expect(removed.status).toBe(303);
      expect((await other.get('/admin')).status).toBe(303);
      // Their sessions ended with the removal, not just refused while they are no member: made a
      // member again, they must sign in anew, and the old session's cookie stays refused.
      expect((await t.db.query(`SELECT 1 FROM sessions WHERE workspace_id = $1 AND person_id = $2`, [ws.id, person.id])).length).toBe(0);
      await t.app.get(WorkspacesService).addMember(ws.id, { email, name: 'Lee Leaving' });
      const returning = browser();
      for (const [name, value] of kept) returning.cookies.set(name, value);
      expect(returning.cookies.size).toBeGreaterThan(0);
      expect((await returning.get('/admin')).status).toBe(303);
    });
  });

  describe('posts', () => {
    it('lists every post, private boards included, with the API list\'s filters', async () => {
      const open = (await api.post('/api/v1/posts', { board: 'ideas', title: `Listed publicly ${run}` })).body.data;
      const hidden = (await api.post('/api/v1/posts', { board: 'secret', title: `Listed privately ${run}` })).body.data;
      const all = pageText((await member.get(`/admin?q=${run}`)).text);
      expect(all).toContain(`Listed publicly ${run}`);
      expect(all).toContain(`Listed privately ${run} Secret (private)`);
      const secretOnly = pageText((await member.get(`/admin?q=${run}&board=secret&status=`)).text);
      expect(secretOnly).not.toContain(`Listed publicly ${run}`);
      expect(secretOnly).toContain(hidden.title);
      expect((await member.get(`/admin?status=bogus`)).status).toBe(400);
      expect(open.admin_url).toBe(`https://chorus.test/admin/p/${open.id}`);
    });

    it('changes a status, as this member, with the event and the change recorded', async () => {
      const post = (await api.post('/api/v1/posts', { board: 'ideas', title: `Move me along ${run}` })).body.data;
      const path = new URL(post.admin_url).pathname;
      const answer = await submit(member, path, `${path}/status`, { status: 'planned' });
      expect([answer.status, answer.location]).toEqual([303, `${path}?done=status`]);
      expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.status).toBe('planned');
      const [change] = await t.db.query(`SELECT changed_by, from_status, to_status FROM status_changes WHERE workspace_id = $1 AND post_id = $2`, [ws.id, post.id]);
      expect(change).toEqual({ changed_by: ws.member.id, from_status: 'open', to_status: 'planned' });
      const [event] = await t.db.query(
        `SELECT actor_id, data->>'previous_status' AS previous FROM outbox_events WHERE workspace_id = $1 AND type = 'post.status_changed' AND (data->'post'->>'id')::int = $2`,
        [ws.id, post.id],
      );
      expect(event).toEqual({ actor_id: ws.member.id, previous: 'open' });
      expect(pageText((await member.get(`${path}?done=status`)).text)).toContain('The status was changed.');
      const bad = await submit(member, path, `${path}/status`, { status: 'sideways' });
      expect(bad.status).toBe(400);
      expect(bad.text).toContain('Status must be one of open, planned, in_progress, done, closed');
    });

    it('posts an official reply, and shows a bad one\'s problem beside the field', async () => {
      const post = (await api.post('/api/v1/posts', { board: 'ideas', title: `Answer me ${run}` })).body.data;
      const path = `/admin/p/${post.id}`;
      const replied = await submit(member, path, `${path}/reply`, { body: 'We are on it.' });
      expect(replied.status).toBe(303);
      expect((await api.get(`/api/v1/posts/${post.id}/comments`)).body.data).toEqual([
        expect.objectContaining({ body: 'We are on it.', official: true, author: { name: 'Olive Owner' } }),
      ]);
      const refused = await submit(member, path, `${path}/reply`, { body: 'x'.repeat(2001) });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Reply must be 1 to 2000 characters');
      expect(refused.text).toContain('x'.repeat(2001));
    });

    it('merges after a confirmation, and refuses a bad target beside the field', async () => {
      const source = (await api.post('/api/v1/posts', { board: 'ideas', title: `Duplicate ${run}` })).body.data;
      const target = (await api.post('/api/v1/posts', { board: 'ideas', title: `Original ${run}` })).body.data;
      const path = `/admin/p/${source.id}`;
      const confirm = await submit(member, path, `${path}/merge`, { into: String(target.id) });
      expect(confirm.status).toBe(200);
      expect(pageText(confirm.text)).toContain(`Merge “Duplicate ${run}” into “Original ${run}”?`);
      expect((await api.get(`/api/v1/posts/${source.id}`)).body.data.merged_into).toBeNull();
      const merged = await member.post(`${path}/merge`, { _csrf: formToken(confirm.text), into: String(target.id), confirm: 'yes' });
      expect(merged.status).toBe(303);
      expect((await api.get(`/api/v1/posts/${source.id}`)).body.data).toMatchObject({ status: 'closed', merged_into: { id: target.id } });
      for (const [into, problem] of [['abc', 'must be a post id'], [String(source.id), 'must be another post'], ['999999999', 'no post 999999999']]) {
        const other = (await api.post('/api/v1/posts', { board: 'ideas', title: `Another ${run} ${into}` })).body.data;
        const refused = await submit(member, `/admin/p/${other.id}`, `/admin/p/${other.id}/merge`, { into: into === String(source.id) ? String(other.id) : into });
        expect([into, refused.status]).toEqual([into, 400]);
        expect(refused.text).toContain(`Merge into ${problem}`);
      }
    });
  });

  describe('boards', () => {
    it('creates and edits boards, with the problems beside the fields; a board made private leaves the public site', async () => {
      const refused = await submit(member, '/admin/boards', '/admin/boards', { name: 'x'.repeat(101), slug: 'Not A Slug', description: '' });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Name must be 1 to 100 characters');
      expect(refused.text).toContain('Slug must be lower-case letters, digits and dashes');
      expect(pageText((await submit(member, '/admin/boards', '/admin/boards', { name: 'Road', slug: 'roadmap' })).text)).toContain("Slug must not be one of the public site's own pages");
      expect((await submit(member, '/admin/boards', '/admin/boards', { name: 'Dup', slug: 'ideas' })).text).toContain('Slug is taken by another board of this workspace');
      const made = await submit(member, '/admin/boards', '/admin/boards', { name: 'Bugs', slug: `bugs-${run}`, description: 'Things that break', notify_voters: 'true' });
      expect(made.status).toBe(303);
      const publicPage = () => new Visitor(t.baseUrl).get(`/${ws.slug}/bugs-${run}`);
      expect((await publicPage()).status).toBe(200);
      const edited = await submit(member, `/admin/boards/bugs-${run}`, `/admin/boards/bugs-${run}`, { name: 'Bugs', slug: `bugs-${run}`, description: '', private: 'true' });
      expect(edited.status).toBe(303);
      const boards = (await api.get('/api/v1/boards')).body.data;
      expect(boards.find((b: { slug: string }) => b.slug === `bugs-${run}`)).toMatchObject({ public: false, description: null });
      expect((await publicPage()).status).toBe(404);
    });
  });

  describe('developers', () => {
    it('makes a key shown once, which works against the API until it is revoked after a confirmation', async () => {
      const made = await submit(member, '/admin/developers', '/admin/developers/keys');
      expect(made.status).toBe(201);
      expect(made.headers.get('cache-control')).toBe('private, no-store');
      const key = /<code class="secret">(chorus_key_[A-Za-z0-9]{40})<\/code>/.exec(made.text)![1];
      expect(made.text).toContain('it is shown only on this page');
      expect((await api.get('/api/v1/boards', { key })).status).toBe(200);
      const later = await member.get('/admin/developers');
      expect(later.text).not.toContain(key);
      expect(later.text).toContain(`${key.slice(0, 15)}…`);
      const [{ id }] = await t.db.query(`SELECT id FROM api_keys WHERE key_prefix = $1`, [key.slice(0, 15)]);
      const confirm = await submit(member, '/admin/developers', `/admin/developers/keys/${id}/revoke`);
      expect(pageText(confirm.text)).toContain(`Revoke the key ${key.slice(0, 15)}…?`);
      expect((await api.get('/api/v1/boards', { key })).status).toBe(200);
      const revoked = await member.post(`/admin/developers/keys/${id}/revoke`, { _csrf: formToken(confirm.text), confirm: 'yes' });
      expect(revoked.status).toBe(303);
      expect((await api.get('/api/v1/boards', { key })).status).toBe(401);
    });

    it('refuses endpoints the API refuses, with the API\'s message beside the field', async () => {
      const strict = await startTestApp();
      try {
        const someone = await signedInMember(strict.baseUrl, strict.app, ws.id, ws.member.email);
        const cases: [Record<string, string | string[]>, string][] = [
          [{ kind: 'webhook', url: 'http://example.com/hook', events: ['post.created'] }, 'URL must'],
          [{ kind: 'webhook', url: 'https://127.0.0.1/hook', events: ['post.created'] }, 'URL'],
          [{ kind: 'webhook', url: 'https://example.com/hook' }, 'Events must name at least one event type'],
          [{ kind: 'slack', url: 'https://example.com/not-slack', events: ['post.created'] }, 'URL'],
        ];
        for (const [fields, message] of cases) {
          const answer = await submit(someone, '/admin/developers', '/admin/developers/endpoints', fields);
          expect([fields, answer.status]).toEqual([fields, 400]);
          expect([fields, /<span class="error" id="endpoint-(url|events)-error">([^<]+)</.exec(answer.text)?.[2]]).toEqual([fields, expect.stringContaining(message)]);
        }
        expect((await strict.db.query(`SELECT count(*)::int AS n FROM webhook_endpoints WHERE workspace_id = $1`, [ws.id]))[0].n).toBe(0);
      } finally {
        await strict.close();
      }
    });

    it('shows a free workspace which plan Developers needs, and refuses its keys', async () => {
      const free = await createWorkspace(t.app, { plan: 'free' });
      const someone = await signedInMember(t.baseUrl, t.app, free.id, free.member.email);
      const page = pageText((await someone.get('/admin/developers')).text);
      expect(page).toContain('are on the pro plan and above');
      expect(page).toContain('Single sign-on');
      const refused = await someone.post('/admin/developers/keys', { _csrf: formToken((await someone.get('/admin/developers')).text, '/admin/developers/sso') });
      expect(refused.status).toBe(403);
      const sso = await submit(someone, '/admin/developers', '/admin/developers/sso');
      expect(sso.text).toMatch(/<code class="secret">sso_[A-Za-z0-9]{40}<\/code>/);
    });
  });

  describe('members', () => {
    it('adds a member (an existing voter becomes one), refuses a bad address, and never removes the last', async () => {
      await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name: 'Vic Voter', email: `vic-${run}@example.com` });
      const added = await submit(member, '/admin/members', '/admin/members', { email: `VIC-${run}@example.com`, name: 'Victoria' });
      expect(added.status).toBe(303);
      expect((await t.app.get(WorkspacesService).listMembers(ws.id)).map((m) => m.email)).toContain(`vic-${run}@example.com`);
      const again = await submit(member, '/admin/members', '/admin/members', { email: `vic-${run}@example.com`, name: 'Vic' });
      expect(again.text).toContain('Email is a member already');
      expect((await submit(member, '/admin/members', '/admin/members', { email: 'nope', name: '' })).text).toContain('Email must be a valid email address');

      const solo = await createWorkspace(t.app);
      const only = await signedInMember(t.baseUrl, t.app, solo.id, solo.member.email);
      const page = await only.get('/admin/members');
      expect(pageText(page.text)).toContain('The last member');
      const refused = await only.post(`/admin/members/${solo.member.id}/remove`, { _csrf: formToken(page.text, '/admin/sign-out'), confirm: 'yes' });
      expect(refused.status).toBe(409);
      expect(pageText(refused.text)).toContain('The last member of a workspace cannot be removed.');
    });
  });

  it('gives a member of one workspace 404 for every page and action of another, by any id', async () => {
    const other = await createWorkspace(t.app);
    const otherApi = new Client(t.baseUrl, other.key);
    const post = (await otherApi.post('/api/v1/posts', { board: 'ideas', title: `Not yours ${run}` })).body.data;
    const endpoint = (await otherApi.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/x', events: ['post.created'] })).body.data;
    await otherApi.post('/api/v1/posts', { board: 'ideas', title: `Delivered elsewhere ${run}` });
    const [delivery] = await t.db.query(`SELECT id FROM webhook_deliveries WHERE workspace_id = $1 LIMIT 1`, [other.id]);
    const [key] = await t.db.query(`SELECT id FROM api_keys WHERE workspace_id = $1`, [other.id]);
    const token = formToken((await member.get('/admin')).text, '/admin/sign-out');
    const gets = [`/admin/p/${post.id}`, '/admin/boards/secret-of-nobody', `/admin/developers/endpoints/${endpoint.id}`, `/admin/developers/endpoints/${endpoint.id}/deliveries`];
    for (const path of gets) expect([path, (await member.get(path)).status]).toEqual([path, 404]);
    const posts: [string, Record<string, string>][] = [
      [`/admin/p/${post.id}/status`, { status: 'done' }],
      [`/admin/p/${post.id}/reply`, { body: 'Hi' }],
      [`/admin/p/${post.id}/merge`, { into: '1', confirm: 'yes' }],
      [`/admin/developers/keys/${key.id}/revoke`, { confirm: 'yes' }],
      [`/admin/developers/endpoints/${endpoint.id}`, { events: 'post.voted' }],
      [`/admin/developers/endpoints/${endpoint.id}/disable`, {}],
      [`/admin/developers/endpoints/${endpoint.id}/rotate`, {}],
      [`/admin/developers/endpoints/${endpoint.id}/test`, {}],
      [`/admin/developers/endpoints/${endpoint.id}/delete`, { confirm: 'yes' }],
      [`/admin/developers/endpoints/${endpoint.id}/recover`, { since: '2026-11-20 10:00' }],
      [`/admin/developers/deliveries/${delivery?.id ?? '00000000-0000-0000-0000-000000000000'}/retry`, {}],
      [`/admin/members/${other.member.id}/remove`, { confirm: 'yes' }],
      [`/admin/boards/ideas-of-nobody`, { name: 'x', slug: 'x' }],
    ];
    for (const [path, fields] of posts) expect([path, (await member.post(path, { _csrf: token, ...fields })).status]).toEqual([path, 404]);
    // Nothing there changed.
    expect((await otherApi.get(`/api/v1/posts/${post.id}`)).body.data).toMatchObject({ status: 'open', comments: 0 });
    expect((await otherApi.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).body.data).toMatchObject({ enabled: true, events: ['post.created'] });
    expect((await otherApi.get('/api/v1/boards')).status).toBe(200);
    expect((await t.app.get(WorkspacesService).listMembers(other.id)).length).toBe(1);
  });

  it('refuses cross-site posts and another session\'s token, and changes nothing', async () => {
    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: `Guarded ${run}` })).body.data;
    const path = `/admin/p/${post.id}`;
    const token = formToken((await member.get(path)).text, `${path}/status`);
    const other = await signedInMember(t.baseUrl, t.app, ws.id, ws.member.email);
    const othersToken = formToken((await other.get(path)).text, `${path}/status`);
    for (const answer of [
      await member.post(`${path}/status`, { _csrf: token, status: 'done' }, { origin: 'https://evil.example' }),
      await member.post(`${path}/status`, { _csrf: token, status: 'done' }, { origin: 'https://boards.chorus.test' }),
      await member.post(`${path}/status`, { _csrf: othersToken, status: 'done' }),
      await member.post(`${path}/status`, { status: 'done' }),
    ]) {
      expect(answer.status).toBe(403);
    }
    expect((await api.get(`/api/v1/posts/${post.id}`)).body.data.status).toBe('open');
  });
});
