import { randomBytes } from 'node:crypto';
import { SessionsService } from '../src/web/shared/sessions.service';
import { SessionsStore } from '../src/web/shared/sessions.store';
import { createSignInLink } from '../src/web/shared/sign-in.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, getFrom } from './support/http';
import { formToken, pageText, sentSignIn, ssoSigner, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';

// Signing in to a workspace's public site: SSO from the customer's app, and an emailed code or
// link; what each refuses, and the limits that keep sign-in email from flooding anyone. The
// addresses that get codes are this run's own: limits per address live in Redis for 15 minutes.

const run = randomBytes(3).toString('hex');

describe('signing in to the public site', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  const site = () => new Visitor(t.baseUrl);
  const sessionCookie = () => `__Host-chorus-${ws.slug}`;

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
  });
  afterAll(() => t?.close());

  describe('by SSO', () => {
    it('signs in the person the token names, sets an HttpOnly, SameSite=Lax, Secure __Host- cookie, and goes back to the page asked for', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      const visitor = site();
      const token = await sign({ email: 'Sam.Sso@Example.com', name: 'Sam from the app' }, { expiresIn: '10m' });
      const redirect = `/${ws.slug}/ideas?sort=top`;
      const answer = await visitor.get(`/${ws.slug}/sso?token=${token}&redirect=${encodeURIComponent(redirect)}`);
      expect([answer.status, answer.location]).toEqual([303, redirect]);
      const cookie = answer.headers.getSetCookie().find((c) => c.startsWith(`${sessionCookie()}=`))!;
      expect(cookie).toMatch(/; Path=\/;/);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; SameSite=Lax/);
      expect(cookie).not.toMatch(/Domain=/i);
      const page = await visitor.get(redirect);
      expect(pageText(page.text)).toContain('Signed in as Sam from the app');

      // The same person as the API's author.email finds, any case; SSO sets the name shown.
      const api = new Client(t.baseUrl, ws.key);
      const post = await api.post('/api/v1/posts', { board: 'ideas', title: 'By the SSO person', author: { email: 'sam.sso@example.com', name: 'ignored' } });
      expect(post.body.data.author.name).toBe('Sam from the app');
      await visitor.get(`/${ws.slug}/sso?token=${await sign({ email: 'SAM.SSO@example.com', name: 'Sam Renamed' }, { expiresIn: '10m' })}`);
      expect((await api.get(`/api/v1/posts/${post.body.data.id}`)).body.data.author.name).toBe('Sam Renamed');
      const people = await t.db.query(`SELECT count(*)::int AS n FROM people WHERE workspace_id = $1 AND email = 'sam.sso@example.com'`, [ws.id]);
      expect(people[0].n).toBe(1);
    });

    it('gives a new session id at every sign-in, and signing out ends the session', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      const visitor = site();
      await visitor.get(`/${ws.slug}/sso?token=${await sign({ email: 'twice@example.com', name: 'Twice' }, { expiresIn: '5m' })}`);
      const first = visitor.cookies.get(sessionCookie())!;
      await visitor.get(`/${ws.slug}/sso?token=${await sign({ email: 'twice@example.com', name: 'Twice' }, { expiresIn: '5m' })}`);
      const second = visitor.cookies.get(sessionCookie())!;
      expect(second).not.toBe(first);
      // The first session ended with the second sign-in: its cookie is refused (and cleared).
      const stale = new Visitor(t.baseUrl);
      stale.cookies.set(sessionCookie(), first);
      expect(pageText((await stale.get(`/${ws.slug}`)).text)).not.toContain('Signed in as');
      expect(stale.cookies.has(sessionCookie())).toBe(false);

      const page = await visitor.get(`/${ws.slug}`);
      const out = await visitor.post(`/${ws.slug}/sign-out`, { _csrf: formToken(page.text, `/${ws.slug}/sign-out`) });
      expect([out.status, out.location]).toEqual([303, `/${ws.slug}`]);
      expect(visitor.cookies.has(sessionCookie())).toBe(false);
      const reused = new Visitor(t.baseUrl);
      reused.cookies.set(sessionCookie(), second);
      expect(pageText((await reused.get(`/${ws.slug}`)).text)).not.toContain('Signed in as');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM sessions WHERE workspace_id = $1 AND person_id = (SELECT id FROM people WHERE workspace_id = $1 AND email = 'twice@example.com')`, [ws.id]);
      expect(n).toBe(0);
    });

    it('refuses every broken or forged token with a 400 page saying which, and signs no one in', async () => {
      const { sign, secret } = await ssoSigner(t.app, ws.id);
      const good = { email: 'refused@example.com', name: 'Refused' };
      const now = Math.floor(Date.now() / 1000);
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...good, exp: now + 60 })).toString('base64url')}.`;
      const cases: [string, string | Promise<string>, RegExp][] = [
        ['a wrong signature', sign(good, { expiresIn: '5m', key: `sso_${'x'.repeat(40)}` }), /signature does not match/],
        ['alg none', unsigned, /must be signed with HS256/],
        ['another algorithm', sign(good, { expiresIn: '5m', alg: 'HS512', key: secret + secret }), /must be signed with HS256/],
        ['a past exp', sign(good, { expiresIn: now - 120 }), /has expired/],
        ['no exp', sign(good), /no "exp" claim/],
        ['an exp more than 24 h ahead', sign(good, { expiresIn: '25h' }), /more than 24 hours/],
        ['no email', sign({ name: 'No Email' }, { expiresIn: '5m' }), /no valid "email"/],
        ['a bad email', sign({ name: 'Bad', email: 'not-an-address' }, { expiresIn: '5m' }), /no valid "email"/],
        ['no name', sign({ email: 'noname@example.com' }, { expiresIn: '5m' }), /"name" claim/],
        ['not a JWT', 'not.a.jwt', /not a valid JWT/],
        ['no token', '', /no token/],
      ];
      for (const [what, token, message] of cases) {
        const visitor = site();
        const answer = await visitor.get(`/${ws.slug}/sso?token=${await token}`);
        expect([what, answer.status]).toEqual([what, 400]);
        expect([what, pageText(answer.text)]).toEqual([what, expect.stringMatching(message)]);
        expect([what, visitor.cookies.has(sessionCookie())]).toEqual([what, false]);
      }
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM people WHERE workspace_id = $1 AND email LIKE '%refused%'`, [ws.id]);
      expect(n).toBe(0);
      // A workspace without SSO says so.
      const other = await createWorkspace(t.app);
      expect(pageText((await site().get(`/${other.slug}/sso?token=${await sign(good, { expiresIn: '5m' })}`)).text)).toContain('has not set up single sign-on');
    });

    it('keeps the secret before a rotation working for 24 hours, and then no more', async () => {
      const before = await ssoSigner(t.app, ws.id);
      const after = await ssoSigner(t.app, ws.id);
      expect(after.secret).toMatch(/^sso_[A-Za-z0-9]{40}$/);
      expect(after.secret).not.toBe(before.secret);
      for (const signer of [before, after]) {
        const answer = await site().get(`/${ws.slug}/sso?token=${await signer.sign({ email: 'rotating@example.com', name: 'Rot' }, { expiresIn: '5m' })}`);
        expect(answer.status).toBe(303);
      }
      await t.db.query(`UPDATE sso_secrets SET previous_expires_at = now() - interval '1 second' WHERE workspace_id = $1`, [ws.id]);
      const late = await site().get(`/${ws.slug}/sso?token=${await before.sign({ email: 'rotating@example.com', name: 'Rot' }, { expiresIn: '5m' })}`);
      expect(late.status).toBe(400);
      // Only a sealed copy is stored.
      const [row] = await t.db.query(`SELECT secret_sealed FROM sso_secrets WHERE workspace_id = $1`, [ws.id]);
      expect(row.secret_sealed).not.toContain(after.secret);
    });

    it('sends the visitor only to a page of this workspace\'s site: anything else goes to its home', async () => {
      const { sign } = await ssoSigner(t.app, ws.id);
      for (const redirect of ['https://evil.example/', '//evil.example/x', '/\\evil.example', '/%5Cevil.example', `/${ws.slug}/../api/v1/boards`, '/another-workspace', `/${ws.slug}evil`, 'http:evil.example', `/${ws.slug}/\u0000`]) {
        const answer = await site().get(`/${ws.slug}/sso?token=${await sign({ email: 'redirect@example.com', name: 'R' }, { expiresIn: '5m' })}&redirect=${encodeURIComponent(redirect)}`);
        expect([redirect, answer.status, answer.location]).toEqual([redirect, 303, `/${ws.slug}`]);
      }
    });
  });

  describe('by an emailed code', () => {
    async function askForCode(visitor: Visitor, email: string, name = 'Coded Visitor', redirect?: string) {
      const form = await visitor.get(`/${ws.slug}/sign-in${redirect ? `?redirect=${encodeURIComponent(redirect)}` : ''}`);
      expect(form.headers.get('cache-control')).toBe('private, no-store');
      return visitor.post(`/${ws.slug}/sign-in`, { _csrf: formToken(form.text), email, name, redirect: redirect ?? '' });
    }

    it('emails a 6-digit code and a link through the outbox; the code signs in the browser that asked for it, once', async () => {
      const visitor = site();
      const redirect = `/${ws.slug}/roadmap`;
      const sent = await askForCode(visitor, `Coder-${run}@Example.com`, 'Cody Coder', redirect);
      expect([sent.status, sent.location]).toEqual([303, `/${ws.slug}/sign-in/code?redirect=${encodeURIComponent(redirect)}`]);
      const codePage = await visitor.follow(sent);
      // The address in its normal form: where the code went, and whom it signs in.
      expect(pageText(codePage.text)).toContain(`If coder-${run}@example.com can receive email, a 6-digit code and a sign-in link are on their way.`);
      const mail = await sentSignIn(t.db, `coder-${run}@example.com`);
      expect(mail.code).toMatch(/^\d{6}$/);
      expect(mail.subject).toBe(`${mail.code!.slice(0, 3)} ${mail.code!.slice(3)} is your code for Workspace ${ws.slug}`);
      // The email waits in the outbox sealed: its code is nowhere in the database as text.
      const [{ body }] = await t.db.query(`SELECT body FROM webhook_deliveries WHERE id = $1`, [mail.deliveryId]);
      expect(body).not.toContain(mail.code);
      // Not an event's delivery: the API's delivery log does not list it, nor retries it.
      const api = new Client(t.baseUrl, ws.key);
      expect((await api.get('/api/v1/deliveries?channel=email&limit=100')).body.data.map((d: { id: string }) => d.id)).not.toContain(mail.deliveryId);
      expect((await api.post(`/api/v1/deliveries/${mail.deliveryId}/retry`)).status).toBe(404);
      const [code] = await t.db.query(`SELECT code_hash FROM sign_in_codes WHERE workspace_id = $1 AND email = $2`, [ws.id, `coder-${run}@example.com`]);
      expect(code.code_hash.toString('utf8')).not.toContain(mail.code);

      // Another browser cannot use it: the code belongs to the sign-in that asked for it.
      const thief = site();
      const thiefPage = await thief.get(`/${ws.slug}/sign-in/code`);
      const stolen = await thief.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(thiefPage.text), code: mail.code! });
      expect(stolen.status).toBe(400);
      expect(pageText(stolen.text)).toContain('it is not for this browser');

      const signedIn = await visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(codePage.text), code: `${mail.code!.slice(0, 3)} ${mail.code!.slice(3)}`, redirect });
      expect([signedIn.status, signedIn.location]).toEqual([303, redirect]);
      expect(pageText((await visitor.get(redirect)).text)).toContain('Signed in as Cody Coder');

      // Used once: the same code again in a new sign-in page of the same browser is refused.
      const again = site();
      again.cookies.set(`__Host-chorus-signin.${ws.slug}`, visitor.cookies.get(`__Host-chorus-signin.${ws.slug}`) ?? 'x');
      const replayPage = await again.get(`/${ws.slug}/sign-in/code`);
      const replay = await again.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(replayPage.text), code: mail.code! });
      expect(replay.status).toBe(400);
    });

    it('ends a code after 5 wrong ones, even the right one after them, and counts every try however many come at once', async () => {
      const visitor = site();
      await askForCode(visitor, `guesser-${run}@example.com`);
      const { code } = await sentSignIn(t.db, `guesser-${run}@example.com`);
      const page = await visitor.get(`/${ws.slug}/sign-in/code`);
      const token = formToken(page.text);
      const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
      const answers = await Promise.all(Array.from({ length: 8 }, () => visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: token, code: wrong })));
      expect(answers.every((a) => a.status === 400)).toBe(true);
      const [{ failed_attempts }] = await t.db.query(`SELECT failed_attempts FROM sign_in_codes WHERE workspace_id = $1 AND email = $2`, [ws.id, `guesser-${run}@example.com`]);
      expect(failed_attempts).toBe(5);
      const right = await visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: token, code: code! });
      expect(right.status).toBe(400);
      expect(pageText(right.text)).toContain('Too many wrong codes');
      expect(visitor.cookies.has(sessionCookie())).toBe(false);
    });

    it('tells how many tries are left, and refuses an expired code', async () => {
      const visitor = site();
      await askForCode(visitor, `slow-${run}@example.com`);
      const page = await visitor.get(`/${ws.slug}/sign-in/code`);
      const wrong = await visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(page.text), code: '12345x' });
      expect(pageText(wrong.text)).toContain('That code is not right. 4 tries left.');
      const { code } = await sentSignIn(t.db, `slow-${run}@example.com`);
      await t.db.query(`UPDATE sign_in_codes SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND email = $2`, [ws.id, `slow-${run}@example.com`]);
      const late = await visitor.post(`/${ws.slug}/sign-in/code`, { _csrf: formToken(page.text), code: code! });
      expect(pageText(late.text)).toContain('has expired');
    });

    it('the emailed link opens a page with a "Sign in" button (a mail scanner uses nothing up), and works once', async () => {
      const asker = site();
      await askForCode(asker, `linker-${run}@example.com`, 'Lin Linker');
      const { link } = await sentSignIn(t.db, `linker-${run}@example.com`);
      const path = new URL(link).pathname;
      const scanner = site();
      for (let i = 0; i < 3; i++) expect((await scanner.get(path)).status).toBe(200);
      const phone = site();
      const page = await phone.get(path);
      expect(page.text).toContain('<button type="submit">Sign in</button>');
      const used = await phone.post(path, { _csrf: formToken(page.text) });
      expect([used.status, used.location]).toEqual([303, `/${ws.slug}`]);
      expect(pageText((await phone.get(`/${ws.slug}`)).text)).toContain('Signed in as Lin Linker');
      const second = site();
      const again = await second.get(path);
      expect(again.status).toBe(410);
      expect(pageText(again.text)).toContain('used already');
      expect((await second.post(path, { _csrf: 'anything' })).status).toBe(403);
      for (const bad of [`/${ws.slug}/sign-in/link/nonsense`, `${path.slice(0, -3)}abc`]) {
        expect((await site().get(bad)).status).toBe(410);
      }
    });

    it('says the same whether or not the address is known, and shows problems beside the fields', async () => {
      await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name: 'Known Person', email: `known-${run}@example.com` });
      const known = await site().follow(await askForCode(site(), `known-${run}@example.com`));
      const unknown = await site().follow(await askForCode(site(), `unknown-${run}@example.com`));
      const words = (html: string) => pageText(html).replace(/\S+@example\.com/g, 'ADDRESS');
      expect(words(known.text)).toBe(words(unknown.text));

      const visitor = site();
      const form = await visitor.get(`/${ws.slug}/sign-in`);
      const refused = await visitor.post(`/${ws.slug}/sign-in`, { _csrf: formToken(form.text), email: 'not an email', name: '' });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('Email must be a valid email address');
      expect(refused.text).toContain('Name is required');
      expect(refused.text).toContain('value="not an email"');
      const forged = await visitor.post(`/${ws.slug}/sign-in`, { _csrf: 'forged', email: 'a@example.com', name: 'A' });
      expect(forged.status).toBe(403);
      const crossSite = await visitor.post(`/${ws.slug}/sign-in`, { _csrf: formToken(form.text), email: 'a@example.com', name: 'A' }, { origin: 'https://evil.example' });
      expect(crossSite.status).toBe(403);
      expect((await t.db.query(`SELECT 1 FROM sign_in_codes WHERE email = 'a@example.com'`)).length).toBe(0);
    });

    it('sends at most 3 emails to one address per 15 minutes, whatever the workspace, then refuses and sends nothing', async () => {
      const other = await createWorkspace(t.app);
      const answers = [];
      for (const slug of [ws.slug, ws.slug, other.slug, other.slug]) {
        const visitor = site();
        const form = await visitor.get(`/${slug}/sign-in`);
        answers.push(await visitor.post(`/${slug}/sign-in`, { _csrf: formToken(form.text), email: `flooded-${run}@example.com`, name: 'F' }));
      }
      expect(answers.map((a) => a.status)).toEqual([303, 303, 303, 429]);
      expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThan(800);
      expect(pageText(answers[3].text)).toContain('3 sign-in emails were sent to this address in the last 15 minutes');
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE event_type = 'sign_in' AND recipient = $1`, [`flooded-${run}@example.com`]);
      expect(n).toBe(3);
    });
  });

  it('forgets ended sessions and codes a day past their end, and nothing else', async () => {
    const sessions = t.app.get(SessionsService);
    const person = await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name: 'Purge Me', email: `purge-${run}@example.com` });
    const live = await sessions.start(ws.id, 'visitor', person.id);
    const ended = await sessions.start(ws.id, 'visitor', person.id);
    await t.db.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE workspace_id = $1 AND id = $2`, [ws.id, ended.token.split('.')[1]]);
    const token = await createSignInLink(t.app.get(SessionsStore), ws.id, 'visitor', `purge-${run}@example.com`);
    const fresh = await createSignInLink(t.app.get(SessionsStore), ws.id, 'visitor', `purge-${run}@example.com`);
    await t.db.query(`UPDATE sign_in_codes SET expires_at = now() - interval '25 hours' WHERE workspace_id = $1 AND id = $2`, [ws.id, token.split('.')[0]]);
    await sessions.purgeExpired();
    const left = await t.db.query(`SELECT id FROM sessions WHERE workspace_id = $1 AND person_id = $2`, [ws.id, person.id]);
    expect(left.map((r: { id: string }) => r.id)).toEqual([live.token.split('.')[1]]);
    const codes = await t.db.query(`SELECT id FROM sign_in_codes WHERE workspace_id = $1 AND email = $2`, [ws.id, `purge-${run}@example.com`]);
    expect(codes.map((r: { id: string }) => r.id)).toEqual([fresh.split('.')[0]]);
  });

  it('sends at most SIGN_IN_CLIENT_LIMIT sign-in emails an hour for one client address', async () => {
    const limited = await startTestApp({ SIGN_IN_CLIENT_LIMIT: '2' });
    try {
      // Each run of this file speaks from an address of its own, so that the hour's count starts empty.
      const from = `127.0.${Math.floor(Math.random() * 250) + 1}.${Math.floor(Math.random() * 250) + 2}`;
      const send = async (i: number) => {
        const form = await getFrom(from, `${limited.baseUrl}/${ws.slug}/sign-in`, {});
        const flow = String(form.headers['set-cookie']).match(/(__Host-chorus-signin\.[^=]+)=([^;]+)/)!;
        const token = /name="_csrf" value="([^"]+)"/.exec(form.body)![1];
        return postFrom(from, `${limited.baseUrl}/${ws.slug}/sign-in`, `${flow[1]}=${flow[2]}`, `_csrf=${token}&email=client${i}-${from}%40example.com&name=C`);
      };
      expect([await send(1), await send(2), await send(3)]).toEqual([303, 303, 429]);
    } finally {
      await limited.close();
    }
  });
});

/** A form post from a chosen loopback address; answers the status. */
function postFrom(localAddress: string, url: string, cookie: string, body: string): Promise<number> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const http = require('node:http') as typeof import('node:http');
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', localAddress, agent: false, headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://boards.chorus.test' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}
