import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { readableLines } from '../src/common/logging';
import { freePort, ROOT, runBuilt, runIn, Running } from './support/processes';

/** Nest's own start-up lines: each module initialised, each controller and route mapped. */
const NEST_START_UP = ['NestFactory', 'InstanceLoader', 'RoutesResolver', 'RouterExplorer', 'NestApplication'];
const BANNER = /Created the demo workspace "demo" \(plan pro\) with a key:|Demo workspace "demo", key:/;
/** A start on a busy 2-core machine has taken most of a minute. */
const START_MS = 110_000;
const stripColours = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

/**
 * What `npm start` prints, on an embedded database of its own: JSON lines for a pipe (log
 * collectors, containers, these tests), readable lines for a person at a terminal, and in both
 * the demo's banner without Nest's sixty lines of start-up first.
 */
describe('what the built service prints as it starts', () => {
  let dataDir: string;
  let server: Running | undefined;

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('Build first: npm run build');
    dataDir = mkdtempSync(join(tmpdir(), 'chorus-logging-'));
  });
  afterEach(async () => {
    if (server && server.child.exitCode === null) await server.stop('SIGKILL');
    server = undefined;
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('piped: JSON lines at info around the banner, and none of Nest\'s start-up', async () => {
    const port = await freePort();
    server = runBuilt('main', [], { PORT: String(port), DATA_DIR: dataDir });
    await server.waitFor(/Listening on/, START_MS);
    const answer = await fetch(`http://localhost:${port}/healthz`);
    expect(answer.status).toBe(200);
    await server.waitFor(/request completed/);
    expect(await server.stop('SIGTERM')).toBe(0);

    const stdout = server.stdout();
    const bannerAt = stdout.search(BANNER);
    expect(bannerAt).toBeGreaterThanOrEqual(0);
    const bannerEnd = stdout.indexOf('\n\n', bannerAt);
    const logLines = (stdout.slice(0, bannerAt) + stdout.slice(bannerEnd))
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as { level: number; context?: string; msg: string; req?: { url: string } });
    expect(logLines.find((line) => line.msg.startsWith('Listening on'))).toMatchObject({ level: 30, context: 'Chorus' });
    expect(logLines.find((line) => line.req?.url === '/healthz')).toMatchObject({ level: 30, msg: 'request completed' });
    expect(logLines.filter((line) => NEST_START_UP.includes(line.context ?? '') || /^Mapped \{/.test(line.msg))).toEqual([]);
    // Chorus's own lines through Nest's Logger stay at info.
    expect(logLines.some((line) => /SIGTERM/.test(line.msg))).toBe(true);
  }, START_MS + 10_000);

  it('goes on answering when its standard output is closed (a log collector gone): the lines are lost, not the service', async () => {
    const port = await freePort();
    server = runBuilt('main', [], { PORT: String(port), DATA_DIR: dataDir });
    await server.waitFor(/Listening on/, START_MS);
    // The pipe's reading end: every later write fails with EPIPE (pino then stops writing; the
    // periodic flush and the flush at exit must not throw either).
    server.child.stdout!.destroy();
    // A request line is about 300 bytes: 100 requests fill the 4 KB buffer several times over,
    // and the periodic flush writes too.
    for (let i = 0; i < 100; i++) expect((await fetch(`http://localhost:${port}/healthz`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`http://localhost:${port}/healthz`)).status).toBe(200);
    expect(await server.stop('SIGTERM')).toBe(0);
  }, START_MS + 10_000);

  it('LOG_LEVEL=debug adds Nest\'s start-up, every route mapped, at debug', async () => {
    const port = await freePort();
    server = runBuilt('main', [], { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'debug' });
    await server.waitFor(/Listening on/, START_MS);
    expect(await server.stop('SIGTERM')).toBe(0);
    const lines = server
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; context?: string; msg: string });
    const mapped = lines.filter((line) => line.context === 'RouterExplorer');
    expect(mapped.map((line) => line.msg)).toContain('Mapped {/api/v1/posts, GET} route');
    expect(new Set(mapped.map((line) => line.level))).toEqual(new Set([20]));
    expect(lines.find((line) => line.context === 'NestApplication')).toMatchObject({ level: 20 });
  }, START_MS + 10_000);

  it('in a terminal: readable lines, the banner, and none of Nest\'s start-up', async () => {
    const port = await freePort();
    // `script` (util-linux) gives the service a pseudo-terminal, as a person's shell does.
    server = runIn(ROOT, 'script', ['-qfec', `exec ${process.execPath} dist/src/main.js`, '/dev/null'], {
      PORT: String(port),
      DATA_DIR: dataDir,
      TERM: 'xterm',
    });
    await server.waitFor(/Listening on/, START_MS);
    const output = stripColours(server.output()).replaceAll('\r\n', '\n');
    await server.stop('SIGTERM');
    expect(output).toMatch(BANNER);
    expect(output).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Chorus: Listening on http:\/\/localhost:\d+ \(database: embedded, in /m);
    expect(output.indexOf('Demo workspace')).toBeLessThan(output.indexOf('Listening on'));
    expect(output).not.toMatch(/^\{"level"/m);
    expect(output).not.toMatch(/Mapped \{|dependencies initialized|RoutesResolver/);
  }, START_MS + 10_000);
});

describe('readable lines (a terminal\'s log)', () => {
  function logged(write: (logger: pino.Logger) => void): string {
    let text = '';
    write(pino({ level: 'debug' }, readableLines({ write: (line: string) => (text += line) })));
    return stripColours(text);
  }

  it('names the level and the class, shows a request in one line and a stack below its line', () => {
    const text = logged((logger) => {
      logger.info({ context: 'Outbox', delivery_id: 'd1', error: null }, 'delivery attempt');
      logger.warn(
        { req: { id: 'req_abc', method: 'GET', url: '/api/v1/nothing' }, res: { statusCode: 404 }, responseTime: 3, workspace_id: 'w1' },
        'request completed',
      );
      logger.error({ context: 'ErrorFilter', stack: 'Error: boom\n    at somewhere (file.ts:1:1)' }, 'failed');
      logger.debug({ context: 'RouterExplorer' }, 'Mapped {/x, GET} route');
    });
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Outbox: delivery attempt \{"delivery_id":"d1","error":null\}$/);
    expect(lines[1]).toMatch(/\] WARN: request completed: GET \/api\/v1\/nothing 404 in 3 ms \(req_abc\) \{"workspace_id":"w1"\}$/);
    expect(lines[2]).toMatch(/\] ERROR: ErrorFilter: failed\s*$/);
    expect(lines[3]).toMatch(/^\s+stack: Error: boom$/);
    expect(lines[4]).toMatch(/^\s+at somewhere \(file\.ts:1:1\)$/);
    expect(lines[5]).toMatch(/\] DEBUG: RouterExplorer: Mapped \{\/x, GET\} route$/);
  });
});
