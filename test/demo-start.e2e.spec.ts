import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT, runBuilt, Running, runToEnd } from './support/processes';

/**
 * What a newcomer gets from `npm start` on a fresh machine: the built service on the
 * embedded database, a demo workspace, and a curl line that works.
 */
/** A start on a busy 2-core machine has taken most of a minute; this test makes three. */
const START_MS = 110_000;

describe('first start on the embedded database', () => {
  let dataDir: string;
  const servers: Running[] = [];

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('Build first: npm run build');
    dataDir = mkdtempSync(join(tmpdir(), 'chorus-demo-'));
  });
  afterAll(async () => {
    // A failed test must not leave its server running.
    for (const server of servers) if (server.child.exitCode === null) await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  const curlLine = /curl -H "Authorization: Bearer (chorus_key_[A-Za-z0-9]{40})" (http:\/\/\S+)/;

  async function curl(match: RegExpMatchArray) {
    const res = await fetch(match[2], { headers: { authorization: `Bearer ${match[1]}` } });
    return { status: res.status, body: (await res.json()) as any };
  }

  it('creates the demo workspace, prints a working curl line, and prints it again after a restart', async () => {
    const port = await freePort();
    const env = { PORT: String(port), DATA_DIR: dataDir };
    const first = runBuilt('main', [], env);
    servers.push(first);
    const printed = await first.waitFor(curlLine, START_MS);
    await first.waitFor(/Listening on/);
    expect(printed[2]).toBe(`http://localhost:${port}/api/v1/boards`);
    // And the demo board's public address, which opens the board anyone can read.
    const board = (await first.waitFor(/Its public board[^\n]*\n\s+(http:\/\/\S+)/))[1];
    expect(board).toBe(`http://localhost:${port}/demo/feedback`);
    const page = await fetch(board);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1 class="user-text">Feedback</h1>');
    // And a sign-in link to its dashboard, which opens the page with the "Sign in" button; the
    // request's log line does not keep the link's token (printed once, in the banner above).
    const link = (await first.waitFor(/Its dashboard[^\n]*\n\s+(http:\/\/\S+\/admin\/sign-in\/link\/\S+)/))[1];
    const linkPage = await fetch(link);
    expect(linkPage.status).toBe(200);
    expect(await linkPage.text()).toContain('<button type="submit">Sign in</button>');
    await first.waitFor(/sign-in\/link\/\[redacted\]/);
    expect(first.output().split(link.slice(link.lastIndexOf('/') + 1)).length - 1).toBe(1);
    // A refused SSO token is the visitor's mistake: only the request's own line tells of it,
    // without the token, and nothing is logged as a failure.
    const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJmb3JnZWQiOnRydWV9.Zm9yZ2Vk';
    expect((await fetch(`http://localhost:${port}/demo/sso?token=${forged}`)).status).toBe(400);
    await first.waitFor(/demo\/sso\?token=\[redacted\]/);
    expect(first.output()).not.toContain(forged);
    expect(first.output()).not.toMatch(/failed \(request/);
    const answer = await curl(printed);
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((b: { slug: string; public: boolean }) => [b.slug, b.public])).toEqual([
      ['feedback', true],
      ['internal', false],
    ]);
    const posts = await fetch(`http://localhost:${port}/api/v1/posts?include_merged=true`, {
      headers: { authorization: `Bearer ${printed[1]}` },
    }).then((r) => r.json() as Promise<any>);
    expect(posts.data.length).toBeGreaterThanOrEqual(3);
    expect(posts.data.some((p: { votes: number }) => p.votes > 1)).toBe(true);
    expect(posts.data.some((p: { comments: number }) => p.comments > 0)).toBe(true);

    // A second process on the same folder is refused while the first holds it.
    const second = await runToEnd('main', [], { PORT: String(await freePort()), DATA_DIR: dataDir });
    expect(second.output).toMatch(/in use by process \d+/);
    expect(second.code).toBe(1);

    expect(await first.stop('SIGTERM')).toBe(0);

    const again = runBuilt('main', [], env);
    servers.push(again);
    const reprinted = await again.waitFor(curlLine, START_MS);
    expect(reprinted[1]).toBe(printed[1]);
    expect(again.output()).not.toMatch(/Created the demo workspace/);
    await again.waitFor(/Listening on/);
    expect((await curl(reprinted)).status).toBe(200);
    expect(await again.stop('SIGTERM')).toBe(0);
  }, 3 * START_MS);

  it('stops with the variable named when the configuration is wrong', async () => {
    const bad = await runToEnd('main', [], { PORT: 'eighty', DATA_DIR: dataDir, WEBHOOK_RETRY_SCHEDULE: '1 minute' });
    expect(bad.code).toBe(1);
    expect(bad.output).toMatch(/PORT="eighty": must be a port number/);
    expect(bad.output).toMatch(/WEBHOOK_RETRY_SCHEDULE="1 minute": must be a comma-separated list/);
  });
});
