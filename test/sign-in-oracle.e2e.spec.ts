import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client as PgClient } from 'pg';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { DASHBOARD_ORIGIN, formToken, pageText, Visitor } from './support/site';
import { startTestApp, TestApp } from './support/test-app';
import { until } from './support/wait';

// Nothing the sign-in answers tells whether an address is a member's (or known): the same page,
// the same cookies (an opaque secret, no workspace or person id), and the same work before the
// answer, which is what timing could tell. The work is compared as the SQL statements run while
// each request is answered (not as durations, which would flake): they must be the same list.
// test/bench/sign-in-timing.ts measures the durations and prints them.

const run = randomBytes(3).toString('hex');
/** A sign-in cookie's value: a random secret of 32 bytes, base64url, nothing more. */
const OPAQUE = /^[A-Za-z0-9_-]{43}$/;
const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * Records the statements this process sends to PostgreSQL while the server answers a request
 * whose path is `path`: from the request's arrival until its answer is sent (`finish`), when the
 * recording stops before anything the answer left for later starts.
 */
function statementsWhileAnswering(server: import('node:http').Server) {
  const original = PgClient.prototype.query;
  let recording: string[] | null = null;
  let wanted: string | null = null;
  let done: ((statements: string[]) => void) | null = null;
  PgClient.prototype.query = function (this: PgClient, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    if (recording) recording.push((typeof config === 'string' ? config : (config?.text ?? '')).replace(/\s+/g, ' ').trim());
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST' || req.url !== wanted) return;
    recording = [];
    res.once('finish', () => {
      const statements = recording ?? [];
      recording = null;
      done?.(statements);
    });
  };
  server.prependListener('request', onRequest);
  return {
    /** The statements run while `send` is answered. */
    async during(path: string, send: () => Promise<unknown>): Promise<string[]> {
      wanted = path;
      const statements = new Promise<string[]>((resolve) => (done = resolve));
      await send();
      const list = await statements;
      wanted = null;
      return list;
    },
    stop() {
      PgClient.prototype.query = original;
      server.removeListener('request', onRequest);
    },
  };
}

describe('sign-in answers say nothing about who is a member', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  const dashboard = () => new Visitor(t.baseUrl, DASHBOARD_ORIGIN);

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: 'Mo Member', email: `member-${run}@example.com` });
    await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'user', name: 'Kay Known', email: `known-${run}@example.com` });
  });
  afterAll(() => t?.close());

  /** Every Set-Cookie of an answer, its value replaced by its shape. */
  const cookieShapes = (headers: Headers) =>
    headers.getSetCookie().map((line) => {
      const [pair, ...attributes] = line.split(';');
      const [name, value] = [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)];
      return { name, opaque: value === '' || OPAQUE.test(value), holdsAnId: UUID_ANYWHERE.test(value), attributes: attributes.map((a) => a.trim()).filter((a) => !/^expires=/i.test(a)).join('; ') };
    });

  async function askDashboard(email: string) {
    const someone = dashboard();
    const form = await someone.get('/admin/sign-in');
    const asked = await someone.post('/admin/sign-in', { _csrf: formToken(form.text), email });
    return { someone, form, asked, code: await someone.follow(asked) };
  }

  it("the dashboard's sign-in cookie is an opaque secret, the same shape for a member and a stranger, at every step", async () => {
    const member = await askDashboard(`member-${run}@example.com`);
    const stranger = await askDashboard(`stranger-${run}@example.com`);
    for (const step of ['form', 'asked', 'code'] as const) {
      const shapes = [cookieShapes(member[step].headers), cookieShapes(stranger[step].headers)];
      expect([step, shapes[0]]).toEqual([step, shapes[1]]);
      for (const shape of shapes[0]) expect([step, shape.name, shape.opaque, shape.holdsAnId]).toEqual([step, shape.name, true, false]);
    }
    expect(cookieShapes(member.asked.headers).length).toBeGreaterThan(0);
    expect([member.asked.status, member.asked.location]).toEqual([stranger.asked.status, stranger.asked.location]);
    expect(pageText(member.code.text)).toBe(pageText(stranger.code.text));
    // A link that is not one sets the same kind of cookie.
    const link = await dashboard().get(`/admin/sign-in/link/${ws.id}.00000000-0000-0000-0000-000000000000.${'x'.repeat(43)}`);
    for (const shape of cookieShapes(link.headers)) expect([shape.opaque, shape.holdsAnId]).toEqual([true, false]);
  });

  it('a wrong code is counted and told the same way for a member and a stranger', async () => {
    const member = await askDashboard(`member-${run}@example.com`);
    const stranger = await askDashboard(`stranger-${run}@example.com`);
    await until('both sign-ins to be looked after', async () => (await t.db.query(`SELECT 1 FROM dashboard_sign_ins WHERE handled_at IS NULL`)).length === 0);
    for (let i = 0; i < 6; i++) {
      const answers = await Promise.all(
        [member, stranger].map((who) => who.someone.post('/admin/sign-in/code', { _csrf: formToken(who.code.text), code: '99999x' })),
      );
      expect([i, answers[0].status, pageText(answers[0].text)]).toEqual([i, answers[1].status, pageText(answers[1].text)]);
    }
  });

  it("asking the dashboard for a code runs the same statements for a member and a stranger before it answers", async () => {
    const recorder = statementsWhileAnswering(t.app.getHttpServer());
    try {
      // What an answer leaves for later runs after it: waited for, so that it is not taken for the next request's work.
      const settled = () => until('the sign-ins to be looked after', async () => (await t.db.query(`SELECT 1 FROM dashboard_sign_ins WHERE handled_at IS NULL`)).length === 0);
      const ask = async (email: string) => {
        const someone = dashboard();
        const form = await someone.get('/admin/sign-in');
        await settled();
        let status = 0;
        const statements = await recorder.during('/admin/sign-in', async () => (status = (await someone.post('/admin/sign-in', { _csrf: formToken(form.text), email })).status));
        expect([email, status]).toEqual([email, 303]);
        await settled();
        return statements;
      };
      // Addresses of their own (3 emails per address in 15 minutes); each kind twice, so that
      // what is read once per process (and cached) is read before.
      for (const n of [1, 2]) await t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'member', name: `Member ${n}`, email: `statements-member${n}-${run}@example.com` });
      await ask(`statements-member1-${run}@example.com`);
      await ask(`statements-stranger1-${run}@example.com`);
      const member = await ask(`statements-member2-${run}@example.com`);
      const stranger = await ask(`statements-stranger2-${run}@example.com`);
      expect(member.length).toBeGreaterThan(0);
      expect(member).toEqual(stranger);
      // And the member still gets the email, once the answer is out; the stranger none.
      const sent = await t.db.query(`SELECT recipient FROM webhook_deliveries WHERE event_type = 'sign_in' AND recipient LIKE $1 ORDER BY recipient`, [`statements-%-${run}@example.com`]);
      expect(sent.map((r: { recipient: string }) => r.recipient)).toEqual([`statements-member1-${run}@example.com`, `statements-member2-${run}@example.com`]);
    } finally {
      recorder.stop();
    }
  });

  it("the public site's sign-in runs the same statements and sets the same cookies whether or not the address is known", async () => {
    const recorder = statementsWhileAnswering(t.app.getHttpServer());
    try {
      const ask = async (email: string) => {
        const visitor = new Visitor(t.baseUrl);
        const form = await visitor.get(`/${ws.slug}/sign-in`);
        let answer: Awaited<ReturnType<Visitor['post']>> | undefined;
        const statements = await recorder.during(`/${ws.slug}/sign-in`, async () => {
          answer = await visitor.post(`/${ws.slug}/sign-in`, { _csrf: formToken(form.text), email, name: 'Someone' });
        });
        return { statements, cookies: cookieShapes(answer!.headers), page: pageText((await visitor.follow(answer!)).text).replace(/\S+@example\.com/, 'ADDRESS') };
      };
      await ask(`known-${run}@example.com`);
      const known = await ask(`known-${run}@example.com`);
      const unknown = await ask(`unknown-${run}@example.com`);
      expect(known.statements.length).toBeGreaterThan(0);
      expect(known.statements).toEqual(unknown.statements);
      expect(known.cookies).toEqual(unknown.cookies);
      for (const shape of known.cookies) expect([shape.opaque, shape.holdsAnId]).toEqual([true, false]);
      expect(known.page).toBe(unknown.page);
    } finally {
      recorder.stop();
    }
  });
});
