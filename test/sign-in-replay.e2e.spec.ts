import { randomBytes, randomUUID } from 'node:crypto';
import { SessionsService } from '../src/web/shared/sessions.service';
import { memberSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { DASHBOARD_ORIGIN, formToken, pageText, sentSignIn, ssoSigner, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';
import { until } from './support/wait';

// Sign-ins are used once: an SSO token signs in one time until its exp, on any instance; a
// code, a link and the dashboard's choice of workspace are used up by their first success, and
// replaying any of their requests (even after signing out) signs no one in.

const run = randomBytes(3).toString('hex');

describe('a sign-in is used once', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  const site = () => new Visitor(t.baseUrl);
  const dashboard = () => new Visitor(t.baseUrl, DASHBOARD_ORIGIN);
  const signedIn = async (visitor: Visitor) => pageText((await visitor.get(`/${ws.slug}`)).text).includes('Signed in as');

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
  });
  afterAll(() => t?.close());

  describe('an SSO token', () => {
    it('signs in once; the same token again gets the 400 page and no session, even after signing out', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      // No jti: the token itself is what is remembered.
      const token = await sign({ email: `once-${run}@example.com`, name: 'Once', jti: undefined }, { expiresIn: '10m' });
      const first = site();
      expect((await first.get(`/${ws.slug}/sso?token=${token}`)).status).toBe(303);
      expect(await signedIn(first)).toBe(true);
      const page = await first.get(`/${ws.slug}`);
      await first.post(`/${ws.slug}/sign-out`, { _csrf: formToken(page.text, `/${ws.slug}/sign-out`) });

      for (const replayer of [first, site()]) {
        const again = await replayer.get(`/${ws.slug}/sso?token=${token}`);
        expect(again.status).toBe(400);
        expect(pageText(again.text)).toContain('This token was used already');
        expect(await signedIn(replayer)).toBe(false);
      }
    });

    it('knows a token by its jti: another token with a used jti signs no one in', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      const jti = randomUUID();
      expect((await site().get(`/${ws.slug}/sso?token=${await sign({ email: `jti-${run}@example.com`, name: 'J', jti }, { expiresIn: '10m' })}`)).status).toBe(303);
      const other = await sign({ email: `jti-${run}@example.com`, name: 'J again', jti }, { expiresIn: '9m' });
      expect((await site().get(`/${ws.slug}/sso?token=${other}`)).status).toBe(400);
      // A jti is the workspace's: another workspace may see the same one.
      const elsewhere = await createWorkspace(t.app);
      const theirs = await ssoSigner(t.app, elsewhere.id);
      expect((await site().get(`/${elsewhere.slug}/sso?token=${await theirs.sign({ email: `jti-${run}@example.com`, name: 'J', jti }, { expiresIn: '5m' })}`)).status).toBe(303);
    });

    it('is refused on another instance too: the use is kept in the database until the token expires, then forgotten', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      const token = await sign({ email: `twice-${run}@example.com`, name: 'Twice' }, { expiresIn: '10m' });
      const other = await startTestApp();
      try {
        expect((await new Visitor(other.baseUrl).get(`/${ws.slug}/sso?token=${token}`)).status).toBe(303);
        expect((await site().get(`/${ws.slug}/sso?token=${token}`)).status).toBe(400);
      } finally {
        await other.close();
      }
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM sso_token_uses WHERE workspace_id = $1 AND expires_at > now() + interval '9 minutes'`, [ws.id]);
      expect(n).toBeGreaterThanOrEqual(1);
      await t.db.query(`UPDATE sso_token_uses SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND expires_at > now() + interval '9 minutes'`, [ws.id]);
      const before = (await t.db.query(`SELECT count(*)::int AS n FROM sso_token_uses WHERE workspace_id = $1`, [ws.id]))[0].n;
      await t.app.get(SessionsService).purgeExpired();
      const after = (await t.db.query(`SELECT count(*)::int AS n FROM sso_token_uses WHERE workspace_id = $1`, [ws.id]))[0].n;
      expect(before - after).toBe(n);
    });

    it('is not used up by a refusal: a token refused for its signature leaves nothing behind', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      const forged = await sign({ email: `forged-${run}@example.com`, name: 'F' }, { expiresIn: '5m', key: `sso_${'y'.repeat(40)}` });
      const before = (await t.db.query(`SELECT count(*)::int AS n FROM sso_token_uses WHERE workspace_id = $1`, [ws.id]))[0].n;
      expect((await site().get(`/${ws.slug}/sso?token=${forged}`)).status).toBe(400);
      expect((await t.db.query(`SELECT count(*)::int AS n FROM sso_token_uses WHERE workspace_id = $1`, [ws.id]))[0].n).toBe(before);
    });
  });

  describe("the public site's emailed code and link", () => {
    async function askForCode(visitor: Visitor, email: string) {
      const form = await visitor.get(`/${ws.slug}/sign-in`);
      const sent = await visitor.post(`/${ws.slug}/sign-in`, { _csrf: formToken(form.text), email, name: 'Replayed' });
      return visitor.follow(sent);
    }

    it('a code signs in once: its request replayed, even after signing out, signs no one in', async () => {
      const visitor = site();
      const codePage = await askForCode(visitor, `code-${run}@example.com`);
      const { code } = await sentSignIn(t.db, `code-${run}@example.com`);
      const flowCookies = new Map(visitor.cookies);
      const request = { _csrf: formToken(codePage.text), code: code! };
      expect((await visitor.post(`/${ws.slug}/sign-in/code`, request)).status).toBe(303);
      const page = await visitor.get(`/${ws.slug}`);
      await visitor.post(`/${ws.slug}/sign-out`, { _csrf: formToken(page.text, `/${ws.slug}/sign-out`) });
      // The same request, with the cookies it was sent with.
      const replayer = site();
      for (const [name, value] of flowCookies) replayer.cookies.set(name, value);
      const replay = await replayer.post(`/${ws.slug}/sign-in/code`, request);
      expect(replay.status).toBe(400);
      expect(await signedIn(replayer)).toBe(false);
    });

    it('a link signs in once: its request replayed signs no one in', async () => {
      const asker = site();
      await askForCode(asker, `link-${run}@example.com`);
      const path = new URL((await sentSignIn(t.db, `link-${run}@example.com`)).link).pathname;
      const phone = site();
      const page = await phone.get(path);
      const cookies = new Map(phone.cookies);
      expect((await phone.post(path, { _csrf: formToken(page.text) })).status).toBe(303);
      const replayer = site();
      for (const [name, value] of cookies) replayer.cookies.set(name, value);
      expect((await replayer.post(path, { _csrf: formToken(page.text) })).status).toBe(410);
      expect(await signedIn(replayer)).toBe(false);
    });
  });

  describe("the dashboard's code, link and choice of workspace", () => {
    const inDashboard = async (visitor: Visitor) => (await visitor.get('/admin')).status === 200;

    it('a code signs in once: its request replayed, even after signing out, signs no one in', async () => {
      const email = `member-code-${run}@example.com`;
      await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: 'Code Member', email });
      const member = dashboard();
      const form = await member.get('/admin/sign-in');
      const codePage = await member.follow(await member.post('/admin/sign-in', { _csrf: formToken(form.text), email }));
      const { code } = await until('the sign-in email', () => sentSignIn(t.db, email).catch(() => null));
      const cookies = new Map(member.cookies);
      const request = { _csrf: formToken(codePage.text), code: code! };
      expect((await member.post('/admin/sign-in/code', request)).status).toBe(303);
      const admin = await member.get('/admin');
      await member.post('/admin/sign-out', { _csrf: formToken(admin.text, '/admin/sign-out') });
      const replayer = dashboard();
      for (const [name, value] of cookies) replayer.cookies.set(name, value);
      expect((await replayer.post('/admin/sign-in/code', request)).status).toBe(400);
      expect(await inDashboard(replayer)).toBe(false);
    });

    it('the choice of workspace is used up by its first success, even after signing out', async () => {
      const email = `chooser-${run}@example.com`;
      const other = await createWorkspace(t.app);
      for (const w of [ws, other]) await t.app.get(WorkspacesService).addPerson(w.id, { kind: 'member', name: 'Two Places', email });
      const member = dashboard();
      const form = await member.get('/admin/sign-in');
      const codePage = await member.follow(await member.post('/admin/sign-in', { _csrf: formToken(form.text), email }));
      const { code } = await until('the sign-in email', () => sentSignIn(t.db, email).catch(() => null));
      const choice = await member.post('/admin/sign-in/code', { _csrf: formToken(codePage.text), code: code! });
      expect(pageText(choice.text)).toContain(`Open Workspace ${other.slug}`);
      const cookies = new Map(member.cookies);
      const request = { _csrf: formToken(choice.text), workspace: other.id, redirect: '/admin' };
      expect((await member.post('/admin/sign-in/choose', request)).status).toBe(303);
      expect(await inDashboard(member)).toBe(true);
      const admin = await member.get('/admin');
      await member.post('/admin/sign-out', { _csrf: formToken(admin.text, '/admin/sign-out') });

      // The same choice again, the other workspace too: no one is signed in.
      for (const workspace of [other.id, ws.id]) {
        const replayer = dashboard();
        for (const [name, value] of cookies) replayer.cookies.set(name, value);
        const replay = await replayer.post('/admin/sign-in/choose', { ...request, workspace });
        expect([workspace, replay.status]).toEqual([workspace, 403]);
        expect(await inDashboard(replayer)).toBe(false);
      }
    });

    it("the CLI's link signs in once: its request replayed signs no one in", async () => {
      const path = new URL(await memberSignInLink(t.app, ws.id, ws.member.email)).pathname;
      const someone = dashboard();
      const page = await someone.get(path);
      const cookies = new Map(someone.cookies);
      expect((await someone.post(path, { _csrf: formToken(page.text) })).status).toBe(303);
      const replayer = dashboard();
      for (const [name, value] of cookies) replayer.cookies.set(name, value);
      expect((await replayer.post(path, { _csrf: formToken(page.text) })).status).toBe(410);
      expect(await inDashboard(replayer)).toBe(false);
    });
  });
});
