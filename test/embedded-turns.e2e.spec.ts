import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The embedded database serves one connection at a time: one that comes while the session is
// taken waits its turn (the service's pool opening just as the migrations' connection closes).
// PGlite runs in a process of its own here (the built code): Jest's sandbox cannot load it.
const SCRIPT = `
const { Client } = require('pg');
const { startEmbeddedPostgres } = require('./dist/src/database/embedded-postgres');
(async () => {
  const server = await startEmbeddedPostgres(process.argv[1]);
  const first = new Client({ connectionString: server.url });
  const second = new Client({ connectionString: server.url });
  second.on('error', (error) => { console.log(JSON.stringify({ error: error.message })); process.exit(1); });
  await first.connect();
  const waiting = second.connect(); // waits: the session is the first one's
  await new Promise((resolve) => setTimeout(resolve, 300));
  await first.end();
  await waiting;
  const one = (await second.query('SELECT 1 AS one')).rows;
  // Past the 5 s that a connection may wait for its turn: it was given it, so it stays.
  await new Promise((resolve) => setTimeout(resolve, 6000));
  const two = (await second.query('SELECT 2 AS two')).rows;
  await second.end();
  await server.stop();
  console.log(JSON.stringify({ one, two }));
})().catch((error) => { console.log(JSON.stringify({ error: error.message })); process.exit(1); });
`;

describe('the embedded database, one connection at a time', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-turns-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('gives a waiting connection its turn, and keeps it past the wait limit once it has it', async () => {
    const out = await new Promise<string>((resolve) =>
      execFile(process.execPath, ['-e', SCRIPT, dir], { cwd: join(__dirname, '..'), timeout: 60_000 }, (_error, stdout) => resolve(stdout)),
    );
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual({ one: [{ one: 1 }], two: [{ two: 2 }] });
  }, 90_000);
});
