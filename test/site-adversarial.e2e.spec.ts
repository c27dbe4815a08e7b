import { randomBytes } from 'node:crypto';
import { PageCache } from '../src/web/shared/page-cache';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { DASHBOARD_ORIGIN, formToken, pageText, ssoSigner, Visitor } from './support/site';
import { onEmbeddedDatabase, startTestApp, TestApp } from './support/test-app';

// What an adversarial pass over the public site found, each as it was reproduced: a private post
// reached through a public post merged into it, cookie names that collide between workspaces,
// unknown query parameters in canonical links and cache keys, no HSTS over https, and /docs
// without the pages' security headers.

const run = randomBytes(3).toString('hex');
const SITE = 'https://boards.chorus.test';

describe('the public site, as an attacker tries it', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  const site = () => new Visitor(t.baseUrl);

  async function post(fields: Record<string, unknown>) {
    const answer = await api.post('/api/v1/posts', { board: 'ideas', ...fields });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  /** A visitor signed in by SSO to `workspace`, and a form token of their session. */
  async function signedIn(workspace: TestWorkspace, email: string) {
    const { sign } = await ssoSigner(t.app, workspace.id);
    const visitor = site();
    expect((await visitor.get(`/${workspace.slug}/sso?token=${await sign({ email, name: 'Mallory' }, { expiresIn: '5m' })}`)).status).toBe(303);
    const home = await visitor.get(`/${workspace.slug}`);
    return { visitor, token: formToken(home.text, `/${workspace.slug}/sign-out`) };
  }

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t?.close());

  describe('a merged post is a redirect for reading only', () => {
    it.each(['secret', 'ideas'])('voting or commenting on a post merged into a post on the %s board answers the 404 page and changes nothing', async (board) => {
      const source = await post({ title: `Public, merged into ${board} ${run}` });
      const target = await post({ title: `The ${board} target ${run}`, board });
      expect((await api.post(`/api/v1/posts/${source.id}/merge`, { into: target.id })).status).toBe(200);
      const { visitor, token } = await signedIn(ws, `mallory-${board}-${run}@example.com`);
      const before = (await api.get(`/api/v1/posts/${target.id}`)).body.data;
      const path = new URL(source.url).pathname;
      const unknown = `/${ws.slug}/ideas/p/999999999`;
      const answers = {
        vote: await visitor.post(`${path}/vote`, { _csrf: token }),
        unvote: await visitor.post(`${path}/vote`, { _csrf: token, intent: 'remove' }),
        comment: await visitor.post(`${path}/comments`, { _csrf: token, body: `What is ${target.title}?` }),
        bareId: await visitor.post(`/${ws.slug}/ideas/p/${source.id}/vote`, { _csrf: token }),
        otherBoard: await visitor.post(`/${ws.slug}/secret/p/${source.id}/vote`, { _csrf: token }),
      };
      const nothing = await visitor.post(`${unknown}/vote`, { _csrf: token });
      for (const [what, answer] of Object.entries(answers)) {
        expect([what, answer.status, answer.location]).toEqual([what, 404, null]);
        // The same page as for an id that does not exist: nothing tells the merged post apart.
        expect([what, pageText(answer.text)]).toEqual([what, pageText(nothing.text)]);
      }
      const after = (await api.get(`/api/v1/posts/${target.id}`)).body.data;
      expect([after.votes, after.comments]).toEqual([before.votes, before.comments]);
      const [{ votes }] = await t.db.query(
        `SELECT count(*)::int AS votes FROM votes v JOIN people p ON p.workspace_id = v.workspace_id AND p.id = v.person_id
          WHERE v.workspace_id = $1 AND p.email = $2`,
        [ws.id, `mallory-${board}-${run}@example.com`],
      );
      expect(votes).toBe(0);
      // Reading still moves to the target's address when it is public.
      const read = await site().get(path);
      expect([read.status, read.location]).toEqual(board === 'ideas' ? [301, new URL(target.url).pathname] : [404, null]);
    });
  });

  describe('cookie names', () => {
    it('no cookie of one workspace has the name of another\'s, whatever their slugs (acme and signin-acme)', async () => {
      const workspaces = t.app.get(WorkspacesService);
      const acme = `acme${run}`;
      const made: TestWorkspace[] = [];
      for (const slug of [acme, `signin-${acme}`]) {
        const created = await workspaces.create({ name: slug, slug, plan: 'pro' });
        made.push({ ...ws, id: created.id, slug });
      }
      const names = new Map<string, string[]>();
      for (const w of made) {
        const { visitor } = await signedIn(w, `cookie-${run}@example.com`);
        await visitor.get(`/${w.slug}/sign-in`);
        names.set(w.slug, [...visitor.cookies.keys()]);
      }
      const [first, second] = [names.get(acme)!, names.get(`signin-${acme}`)!];
      expect(first).toHaveLength(2);
      expect(second).toHaveLength(2);
      expect(first.filter((name) => second.includes(name))).toEqual([]);
      // What the collision did: signed in to signin-acme, opening acme's sign-in form signed them out.
      const { visitor } = await signedIn(made[1], `both-${run}@example.com`);
      await visitor.get(`/${acme}/sign-in`);
      expect(pageText((await visitor.get(`/signin-${acme}`)).text)).toContain('Signed in as Mallory');
      // Nor is any of them the dashboard's: its cookies are sent to /admin with the site's.
      const member = new Visitor(t.baseUrl, DASHBOARD_ORIGIN);
      const form = await member.get('/admin/sign-in');
      const dashboard = [...member.cookies.keys()];
      expect(dashboard).toHaveLength(1);
      expect([...first, ...second].filter((name) => dashboard.includes(name))).toEqual([]);
      void form;
    });
  });

  describe('canonical links and the page cache', () => {
    const canonical = (html: string) => [/<link rel="canonical" href="([^"]+)">/.exec(html)?.[1], /<meta property="og:url" content="([^"]+)">/.exec(html)?.[1]];

    it('leave out query parameters a page does not use: the same canonical link, og:url and ETag', async () => {
      const created = await post({ title: `Shared with tracking ${run}` });
      const postPath = new URL(created.url).pathname;
      const extra = 'utm_source=news&fbclid=abc&redirect=%2F%2Fevil.example&x=%3Cscript%3E';
      const cases: [string, string, string][] = [
        [`/${ws.slug}`, `/${ws.slug}?${extra}`, `${SITE}/${ws.slug}`],
        [`/${ws.slug}/roadmap`, `/${ws.slug}/roadmap?${extra}`, `${SITE}/${ws.slug}/roadmap`],
        [`/${ws.slug}/ideas?sort=top`, `/${ws.slug}/ideas?${extra}&sort=top`, `${SITE}/${ws.slug}/ideas?sort=top`],
        [postPath, `${postPath}?${extra}`, created.url],
      ];
      for (const [plain, noisy, address] of cases) {
        // The plain page before and after the noisy one, until nothing changed meanwhile (the
        // post made above reaches this instance's page cache a moment after its commit).
        let [a, b, again] = [await site().get(plain), await site().get(noisy), await site().get(plain)];
        for (let i = 0; a.headers.get('etag') !== again.headers.get('etag') && i < 50; i++) [a, b, again] = [again, await site().get(noisy), await site().get(plain)];
        expect([noisy, b.status, canonical(b.text)]).toEqual([noisy, 200, [address, address]]);
        expect([noisy, b.text.includes('utm_source') || b.text.includes('evil.example') || b.text.includes('fbclid')]).toEqual([noisy, false]);
        expect([noisy, b.headers.get('etag')]).toEqual([noisy, a.headers.get('etag')]);
        // A copy of one spelling is current for the other.
        expect([noisy, (await site().get(noisy, { 'if-none-match': a.headers.get('etag')! })).status]).toEqual([noisy, 304]);
      }
    });

    (onEmbeddedDatabase() ? it.skip : it)('keys the page cache by the parameters a page uses, not by every spelling of its address', async () => {
      const cache = t.app.get(PageCache);
      const path = `/${ws.slug}/roadmap`;
      await site().get(`${path}?utm_campaign=${run}`);
      expect(cache.current(`${path}?utm_campaign=${run}`)).toBeNull();
      expect(cache.current(path)).not.toBeNull();
    });
  });

  describe('transport security', () => {
    it('pages and the dashboard send Strict-Transport-Security when served over https', async () => {
      for (const path of [`/${ws.slug}`, `/${ws.slug}/ideas`, `/${ws.slug}/sign-in`, `/${ws.slug}/nothing-here`, '/admin/sign-in', '/docs/', '/robots.txt']) {
        const answer = await site().get(path);
        expect([path, answer.headers.get('strict-transport-security')]).toEqual([path, 'max-age=31536000']);
      }
    });

    it('sends none over plain http', async () => {
      const plain = await startTestApp({ BASE_URL: 'http://chorus.test', PUBLIC_BASE_URL: 'http://boards.chorus.test' });
      try {
        for (const path of [`/${ws.slug}`, '/admin/sign-in', '/docs/']) {
          const answer = await new Visitor(plain.baseUrl).get(path);
          expect([path, answer.headers.get('strict-transport-security')]).toEqual([path, null]);
        }
      } finally {
        await plain.close();
      }
    });

    it('/docs sends the pages\' security headers, with a CSP that lets its own scripts run and nothing else', async () => {
      for (const path of ['/docs', '/docs/', '/docs/swagger-ui-init.js']) {
        const answer = await site().get(path);
        expect([path, answer.status < 400]).toEqual([path, true]);
        const csp = answer.headers.get('content-security-policy') ?? '';
        expect([path, csp]).toEqual([path, expect.stringContaining("script-src 'self';")]);
        for (const part of ["default-src 'none'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'self'", "connect-src 'self'"]) expect([path, csp]).toEqual([path, expect.stringContaining(part)]);
        expect([path, csp.includes('unsafe-eval'), /script-src[^;]*unsafe-inline/.test(csp)]).toEqual([path, false, false]);
        expect([path, answer.headers.get('x-content-type-options')]).toEqual([path, 'nosniff']);
        expect([path, answer.headers.get('referrer-policy')]).toEqual([path, 'strict-origin-when-cross-origin']);
      }
      // Its page loads no script of its own text: every script is a file of /docs.
      const page = (await site().get('/docs/')).text;
      expect(page.match(/<script(?![^>]*\bsrc=)[^>]*>/g)).toBeNull();
    });
  });
});
