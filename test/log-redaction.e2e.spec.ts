import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loggedUrl } from '../src/common/logging';
import { freePort, ROOT, Running, runBuilt } from './support/processes';
import { onEmbeddedDatabase, TEST_ENCRYPTION_KEY, testDatabaseUrl } from './support/test-app';

// Logs never hold a secret or a token, however the request spells it. The built server's own
// JSON lines (pino, on its standard output) are read after requests that carry credentials in
// every spelling an attacker (or a careless client) might use.

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJlbWFpbCI6ImFAYi5jIn0.c2lnbmF0dXJlLW9mLWEtdG9rZW4';
const KEY = 'chorus_key_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789ABCD';
const WHSEC = 'whsec_c2VjcmV0LW9mLWEtd2ViaG9vaw';
const SSO = 'sso_Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa98765';
const LINK = '6f1c2c4e-1b7a-4a57-9a0f-0d9e6a1b2c3d.q1w2e3r4t5y6u7i8o9p0a1s2d3f4g5h6j7k8l9z0x1c2v';

/** Requests carrying a credential, and the credential each must keep out of the log. */
const SPELLINGS: [string, string][] = [
  // The three the adversarial pass found.
  [`/demo/sso?%74oken=${JWT}`, JWT],
  [`/admin/SIGN-IN/LINK/${LINK}`, LINK],
  [`/api/v1/boards?api_key=${KEY}`, KEY],
  // And their neighbours.
  [`/demo/sso?token=${JWT}&redirect=%2Fdemo`, JWT],
  [`/demo/sso?TOKEN=${JWT}`, JWT],
  [`/demo/sso?%54%4F%4B%45%4E=${JWT}`, JWT],
  [`/demo/sso?t%6Fken=${encodeURIComponent(JWT)}`, JWT],
  [`/demo/sso?token[]=${JWT}`, JWT],
  [`/Demo/SSO?Token=${JWT}`, JWT],
  [`/admin/sign-in/link/${LINK}`, LINK],
  [`/admin/sign-in/%6Cink/${LINK}`, LINK],
  [`/demo/sign-in/link/${LINK}?x=1`, LINK],
  [`/api/v1/boards?key=${KEY}`, KEY],
  [`/api/v1/boards?API_KEY=${KEY}`, KEY],
  [`/api/v1/boards?anything=${KEY}`, KEY],
  [`/api/v1/boards?x=${encodeURIComponent(`Bearer ${KEY}`)}`, KEY],
  [`/api/v1/webhook_endpoints?secret=${WHSEC}`, WHSEC],
  [`/api/v1/webhook_endpoints?s=${WHSEC}`, WHSEC],
  [`/demo/sso?sso_secret=${SSO}`, SSO],
  [`/demo/x?q=${SSO}`, SSO],
  [`/demo/sign-in/code?code=123456`, '123456'],
  [`/demo?access_token=${JWT}`, JWT],
  [`/demo?password=hunter2hunter2`, 'hunter2hunter2'],
  [`/email/unsubscribe/${LINK}`, LINK],
  [`/demo/ideas?session=${LINK}`, LINK],
];

describe('logged request addresses', () => {
  it.each(SPELLINGS)('%s keeps its credential out', (url, secret) => {
    const logged = loggedUrl(url);
    expect(logged).not.toContain(secret);
    expect(decodeURIComponent(logged.replace(/%(?![0-9a-f]{2})/gi, '%25'))).not.toContain(secret);
    expect(logged).toContain('[redacted]');
  });

  it('keeps what tells requests apart: the path, and the query parameters that carry nothing secret', () => {
    expect(loggedUrl('/demo/ideas?sort=top&q=export%20csv&offset=25')).toBe('/demo/ideas?sort=top&q=export%20csv&offset=25');
    expect(loggedUrl('/api/v1/posts?board=ideas&limit=5')).toBe('/api/v1/posts?board=ideas&limit=5');
    expect(loggedUrl(`/admin/sign-in/link/${LINK}`)).toBe('/admin/sign-in/link/[redacted]');
    expect(loggedUrl(`/demo/sso?token=${JWT}&redirect=%2Fdemo`)).toBe('/demo/sso?token=[redacted]&redirect=%2Fdemo');
  });
});

describe('the built server\'s log', () => {
  let server: Running | undefined;
  let dataDir: string | undefined;

  afterAll(async () => {
    if (server && server.child.exitCode === null) await server.stop('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('has a line for every request and none of their credentials, however spelled', async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('Build first: npm run build');
    const port = await freePort();
    // On the embedded database the server has a database of its own (one process holds PGlite).
    if (onEmbeddedDatabase()) dataDir = mkdtempSync(join(tmpdir(), 'chorus-logs-'));
    const database = dataDir ? { DATA_DIR: dataDir } : { DATABASE_URL: testDatabaseUrl() };
    server = runBuilt('main', [], { ...database, ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, PORT: String(port), RUN_WORKER: 'false', LOG_LEVEL: 'info', BASE_URL: `http://127.0.0.1:${port}` });
    await server.waitFor(/Listening on/, 120_000);
    const ids: string[] = [];
    for (const [url] of SPELLINGS) {
      const answer = await fetch(`http://127.0.0.1:${port}${url}`, { redirect: 'manual', headers: { authorization: `Bearer ${KEY}` } });
      await answer.arrayBuffer();
      ids.push(answer.headers.get('request-id')!);
    }
    for (const id of ids) await server.waitFor(new RegExp(`"id":"${id}"`));
    const output = server.output();
    // (A 6-digit code could be part of a timestamp by chance: the server's check is for the long ones.)
    for (const [url, secret] of SPELLINGS.filter(([, secret]) => secret.length >= 12)) expect([url, output.includes(secret)]).toEqual([url, false]);
    // Each request's line, as JSON, with its redacted address.
    const lines = output.split('\n').filter((line) => ids.some((id) => line.includes(`"id":"${id}"`)));
    expect(lines).toHaveLength(ids.length);
    for (const line of lines) expect(JSON.parse(line).req.url).toEqual(expect.any(String));
    expect(await server.stop('SIGTERM')).toBe(0);
  });
});
