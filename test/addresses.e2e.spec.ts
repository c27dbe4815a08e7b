import { randomBytes } from 'node:crypto';
import { SecretBox } from '../src/common/secret-box';
import { unsubscribeToken } from '../src/notifications/unsubscribe-token';
import { sealedBodyContext } from '../src/notifications/sign-in-email';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { LOOKALIKES, NOT_ADDRESSES } from './support/address-corpus';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { runToEnd } from './support/processes';
import { DASHBOARD_ORIGIN, formToken, pageText, ssoSigner, Visitor } from './support/site';
import { startTestApp, TEST_ENCRYPTION_KEY, testDatabaseUrl, TestApp } from './support/test-app';
import { until } from './support/wait';

// "An email address is one address": whoever types a lookalike of a person's address (one that
// reaches another mailbox) is another person, by the API, by an emailed code, by SSO, in the
// dashboard and the CLI; the real address, in any ASCII case, is still that person. The
// corpus is test/support/address-corpus.ts. Addresses that get codes are this run's own (the
// limits per address live in Redis for 15 minutes): each gets a domain suffix of the run.

const run = randomBytes(3).toString('hex');
/**
 * An address of the corpus, made this run's own: its domain under the run's suffix (and a
 * `scope` of its own for the dashboard's tests, the limit per address counting both sign-ins).
 */
const own = (address: string, scope = '') => `${address}.${scope}r${run}.example`;

describe('an email address is one address', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t?.close());

  /** The code and link of the sign-in email queued for exactly this recipient, if any. */
  async function mailTo(recipient: string): Promise<{ code: string | null; link: string } | null> {
    const [row] = await t.db.query(
      `SELECT id, body FROM webhook_deliveries WHERE event_type = 'sign_in' AND recipient = $1 ORDER BY created_at DESC LIMIT 1`,
      [recipient],
    );
    if (!row) return null;
    const mail = JSON.parse(new SecretBox(TEST_ENCRYPTION_KEY).open(row.body, sealedBodyContext(row.id)));
    return { code: /\n {4}(\d{3}) (\d{3})\n/.exec(mail.text)?.slice(1).join('') ?? null, link: /https?:\/\/\S+\/sign-in\/link\/\S+/.exec(mail.text)![0] };
  }

  /** The sign-in emails queued in a workspace's outbox to any of these recipients. */
  const signInEmails = async (workspaceId: string, recipients: string[]) =>
    (
      await t.db.query(`SELECT recipient FROM webhook_deliveries WHERE workspace_id = $1 AND event_type = 'sign_in' AND recipient = ANY ($2::text[])`, [
        workspaceId,
        recipients,
      ])
    ).map((row: { recipient: string }) => row.recipient);

  describe("the API's author.email and voter email", () => {
    it.each(LOOKALIKES)('$what: $typed is the real person only if it reaches the same mailbox', async ({ real, typed, normal, same }) => {
      const ws = await createWorkspace(t.app);
      const api = new Client(t.baseUrl, ws.key);
      const first = await api.post('/api/v1/posts', { board: 'ideas', title: 'By the real person', author: { email: real, name: 'Real Person' } });
      expect(first.status).toBe(201);
      const second = await api.post('/api/v1/posts', { board: 'ideas', title: 'By whoever typed it', author: { email: typed, name: 'Someone Else' } });
      expect(second.status).toBe(201);
      expect(second.body.data.author.name).toBe(same ? 'Real Person' : 'Someone Else');
      const people = await t.db.query(`SELECT email FROM people WHERE workspace_id = $1 AND kind = 'guest' ORDER BY created_at`, [ws.id]);
      expect(people.map((p: { email: string }) => p.email)).toEqual(same ? [real] : [real, normal]);
      // A vote by the lookalike is the lookalike's, and taking it back needs the lookalike.
      const post = first.body.data.id;
      expect((await api.post(`/api/v1/posts/${post}/votes`, { voter: { email: typed, name: 'Someone Else' } })).body.data.votes).toBe(same ? 1 : 2);
      // The real address in another case is still the real person.
      const upper = real.replace(/^[a-z]/, (c) => c.toUpperCase()).replace(/\.[a-z]+$/, (tld) => tld.toUpperCase());
      const third = await api.post('/api/v1/posts', { board: 'ideas', title: 'Real, shouting', author: { email: upper, name: 'Ignored' } });
      expect(third.body.data.author.name).toBe('Real Person');
    });

    it.each(NOT_ADDRESSES)('refuses $what with 400 author.email (and voter.email)', async ({ typed }) => {
      const ws = await createWorkspace(t.app);
      const api = new Client(t.baseUrl, ws.key);
      const refused = await api.post('/api/v1/posts', { board: 'ideas', title: 'Refused address', author: { email: typed, name: 'N' } });
      expect([refused.status, refused.body.error]).toEqual([400, { code: 'invalid_request', message: 'author.email: must be a valid email address' }]);
      const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Something to vote on' })).body.data;
      const vote = await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { email: typed, name: 'N' } });
      expect([vote.status, vote.body.error?.message]).toEqual([400, 'voter.email: must be a valid email address']);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM people WHERE workspace_id = $1`, [ws.id]);
      expect(n).toBe(1);
    });
  });

  describe('the database', () => {
    it('keeps one person per normal form, refuses a row not in it, and holds lookalikes apart', async () => {
      const ws = await createWorkspace(t.app);
      const insert = (email: string) => t.db.query(`INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'user', 'X', $2)`, [ws.id, email]);
      await insert('kim@example.com');
      await expect(insert('kim@example.com')).rejects.toThrow(/people_email_key/);
      for (const raw of ['Kim@example.com', 'kim@EXAMPLE.com', 'kim@exampl\u0130.com', 'kim @example.com']) {
        await expect([raw, await insert(raw).then(() => 'stored', (e: Error) => e.message)]).toEqual([raw, expect.stringMatching(/people_email_normal/)]);
      }
      // The Kelvin sign and İ, which PostgreSQL's lower() takes for k and i: other people.
      await insert('\u212Aim@example.com');
      await insert('k\u0130m@example.com');
      await insert('kim@xn--vendir-tyd.com');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM people WHERE workspace_id = $1 AND kind = 'user'`, [ws.id]);
      expect(n).toBe(4);
    });
  });

  describe('signing in to the public site by an emailed code', () => {
    let ws: TestWorkspace;
    beforeAll(async () => {
      ws = await createWorkspace(t.app);
      const workspaces = t.app.get(WorkspacesService);
      for (const real of new Set(LOOKALIKES.map((l) => own(l.real)))) await workspaces.addPerson(ws.id, { kind: 'user', name: `Real ${real}`, email: real });
    });

    async function signIn(typed: string, name: string): Promise<{ visitor: Visitor; sentTo: string[] }> {
      const visitor = new Visitor(t.baseUrl);
      const form = await visitor.get(`/${ws.slug}/sign-in`);
      const asked = await visitor.post(`/${ws.slug}/sign-in`, { _csrf: formToken(form.text), email: typed, name });
      expect(asked.status).toBe(303);
      const codePage = await visitor.follow(asked);
      const [row] = await t.db.query(`SELECT recipient FROM webhook_deliveries WHERE event_type = 'sign_in' AND workspace_id = $1 ORDER BY created_at DESC LIMIT 1`, [ws.id]);
      const mail = await mailTo(row.recipient);
      const done = await visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(codePage.text), code: mail!.code! });
      expect(done.status).toBe(303);
      return { visitor, sentTo: [row.recipient] };
    }

    it.each(LOOKALIKES)('$what: the code goes to $normal, and signs in the real person only if that is their mailbox', async ({ real, typed, normal, same, what }) => {
      const { visitor, sentTo } = await signIn(own(typed), `Typed ${what}`);
      expect(sentTo).toEqual([own(normal)]);
      const shown = pageText((await visitor.get(`/${ws.slug}`)).text);
      expect(shown.includes(`Signed in as Real ${own(real)}`)).toBe(same);
      const [signedIn] = await t.db.query(
        `SELECT p.email FROM sessions s JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id
          WHERE s.workspace_id = $1 ORDER BY s.created_at DESC LIMIT 1`,
        [ws.id],
      );
      expect(signedIn.email).toBe(own(same ? real : normal));
      const [person] = await t.db.query(`SELECT name FROM people WHERE workspace_id = $1 AND email = $2`, [ws.id, own(real)]);
      expect(person.name).toBe(`Real ${own(real)}`);
    });
  });

  describe('signing in to the public site by SSO', () => {
    let ws: TestWorkspace;
    let sign: Awaited<ReturnType<typeof ssoSigner>>['sign'];
    beforeAll(async () => {
      ws = await createWorkspace(t.app);
      ({ sign } = await ssoSigner(t.app, ws.id));
      const workspaces = t.app.get(WorkspacesService);
      for (const real of new Set(LOOKALIKES.map((l) => l.real))) await workspaces.addPerson(ws.id, { kind: 'user', name: `Real ${real}`, email: real });
    });

    it.each(LOOKALIKES)('$what: a token for $typed neither signs in nor renames the real person unless it is their address', async ({ real, typed, normal, same, what }) => {
      const visitor = new Visitor(t.baseUrl);
      const answer = await visitor.get(`/${ws.slug}/sso?token=${await sign({ email: typed, name: `Token ${what}` }, { expiresIn: '5m' })}`);
      expect(answer.status).toBe(303);
      expect(pageText((await visitor.get(`/${ws.slug}`)).text)).toContain(`Signed in as Token ${what}`);
      const [person] = await t.db.query(`SELECT name FROM people WHERE workspace_id = $1 AND email = $2`, [ws.id, real]);
      // SSO sets the name shown: only the real person's own address may.
      expect(person.name).toBe(same ? `Token ${what}` : `Real ${real}`);
      const [signedIn] = await t.db.query(
        `SELECT p.email FROM sessions s JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id
          WHERE s.workspace_id = $1 ORDER BY s.created_at DESC LIMIT 1`,
        [ws.id],
      );
      expect(signedIn.email).toBe(same ? real : normal);
      if (same) await t.db.query(`UPDATE people SET name = $3 WHERE workspace_id = $1 AND email = $2`, [ws.id, real, `Real ${real}`]);
    });

    it('refuses a token whose email has no normal form', async () => {
      const answer = await new Visitor(t.baseUrl).get(`/${ws.slug}/sso?token=${await sign({ email: 'kim@exampl_e.com', name: 'K' }, { expiresIn: '5m' })}`);
      expect(answer.status).toBe(400);
      expect(pageText(answer.text)).toContain('no valid "email" claim');
    });
  });

  describe('signing in to the dashboard by an emailed code', () => {
    const ownAdmin = (address: string) => own(address, 'admin-');
    let ws: TestWorkspace;
    beforeAll(async () => {
      ws = await createWorkspace(t.app);
      const workspaces = t.app.get(WorkspacesService);
      for (const real of new Set(LOOKALIKES.map((l) => ownAdmin(l.real)))) await workspaces.addPerson(ws.id, { kind: 'member', name: `Member ${real}`, email: real });
    });

    it.each(LOOKALIKES)('$what: a code reaches the member only at their own address', async ({ real, typed, normal, same }) => {
      const someone = new Visitor(t.baseUrl, DASHBOARD_ORIGIN);
      const form = await someone.get('/admin/sign-in');
      const asked = await someone.post('/admin/sign-in', { _csrf: formToken(form.text), email: ownAdmin(typed) });
      expect([asked.status, asked.location]).toEqual([303, '/admin/sign-in/code']);
      const codePage = await someone.follow(asked);
      // The email is looked after once the answer is sent: wait until this sign-in has been.
      await until('the sign-in to be looked after', async () => {
        const [row] = await t.db.query(`SELECT count(*)::int AS n, count(*) FILTER (WHERE handled_at IS NULL)::int AS waiting FROM dashboard_sign_ins WHERE email = $1`, [ownAdmin(normal)]);
        return row.n > 0 && row.waiting === 0;
      });
      const sent = await signInEmails(ws.id, [ownAdmin(real), ownAdmin(normal), ownAdmin(typed)]);
      if (!same) {
        expect(sent).toEqual([]);
        return;
      }
      expect(sent).toEqual([ownAdmin(real)]);
      const mail = await mailTo(ownAdmin(real));
      const done = await someone.post('/admin/sign-in/code', { _csrf: formToken(codePage.text), code: mail!.code! });
      expect([done.status, done.location]).toEqual([303, '/admin']);
      expect(pageText((await someone.get('/admin/members')).text)).toContain(`Member ${ownAdmin(real)}`);
      await t.db.query(`DELETE FROM webhook_deliveries WHERE recipient = $1`, [ownAdmin(real)]);
    });
  });

  describe('the CLI', () => {
    const cli = (...args: string[]) => runToEnd('cli', args, { DATABASE_URL: testDatabaseUrl(), ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });

    it('adds a lookalike as another member, refuses the same address in another case, and finds a member by their normal form', async () => {
      const ws = await createWorkspace(t.app);
      const added = await cli('member', 'add', '--workspace', ws.slug, '--name', 'Dana', '--email', 'Dana@Vendir.COM');
      expect(added.code).toBe(0);
      const again = await cli('member', 'add', '--workspace', ws.slug, '--name', 'Dana Again', '--email', 'dana@VENDIR.com');
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain('already in this workspace');
      const lookalike = await cli('member', 'add', '--workspace', ws.slug, '--name', 'Not Dana', '--email', 'dana@vend\u0130r.com');
      expect(lookalike.code).toBe(0);
      const invalid = await cli('member', 'add', '--workspace', ws.slug, '--name', 'Nobody', '--email', 'dana@vendir_x.com');
      expect(invalid.code).not.toBe(0);
      expect(invalid.stderr).toContain('--email must be an email address');
      const members = await t.db.query(`SELECT name, email FROM people WHERE workspace_id = $1 AND kind = 'member' ORDER BY created_at`, [ws.id]);
      expect(members.slice(1)).toEqual([
        { name: 'Dana', email: 'dana@vendir.com' },
        { name: 'Not Dana', email: 'dana@xn--vendir-tyd.com' },
      ]);
      // The link is for the member the normal form finds, and signs in as them.
      const link = await cli('member', 'sign-in-link', '--workspace', ws.slug, '--email', 'DANA@vendir.com');
      expect(link.code).toBe(0);
      const path = new URL(/https?:\/\/\S+/.exec(link.stdout)![0]).pathname;
      const browser = new Visitor(t.baseUrl, DASHBOARD_ORIGIN);
      const page = await browser.get(path);
      expect((await browser.post(path, { _csrf: formToken(page.text) })).status).toBe(303);
      const [session] = await t.db.query(
        `SELECT p.name FROM sessions s JOIN people p ON p.workspace_id = s.workspace_id AND p.id = s.person_id WHERE s.workspace_id = $1 AND s.kind = 'member'`,
        [ws.id],
      );
      expect(session.name).toBe('Dana');
    }, 180_000); // six runs of the built CLI, each a process that starts Nest
  });

  describe('unsubscribing', () => {
    it('stops email to the address the link names, in its normal form, and never to a lookalike', async () => {
      const ws = await createWorkspace(t.app);
      const workspaces = t.app.get(WorkspacesService);
      await workspaces.addPerson(ws.id, { kind: 'user', name: 'Dana', email: 'dana@vendir.com' });
      await workspaces.addPerson(ws.id, { kind: 'user', name: 'Kim', email: 'kim@example.com' });
      const box = new SecretBox(TEST_ENCRYPTION_KEY);
      const unsubscribe = (email: string) => fetch(`${t.baseUrl}/email/unsubscribe/${unsubscribeToken(box, { workspaceId: ws.id, email })}`, { method: 'POST' });
      expect((await unsubscribe('dana@vend\u0130r.com')).status).toBe(200);
      expect((await unsubscribe('\u212Aim@example.com')).status).toBe(200);
      const still = await t.db.query(`SELECT email FROM people WHERE workspace_id = $1 AND email_unsubscribed_at IS NOT NULL`, [ws.id]);
      expect(still).toEqual([]);
      expect((await unsubscribe('Dana@VENDIR.com')).status).toBe(200);
      const stopped = await t.db.query(`SELECT email FROM people WHERE workspace_id = $1 AND email_unsubscribed_at IS NOT NULL`, [ws.id]);
      expect(stopped).toEqual([{ email: 'dana@vendir.com' }]);
    });
  });
});


