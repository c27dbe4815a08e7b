const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { Client } = require('pg');

function startEmbeddedServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(__dirname, 'embedded-db-server.js')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ child, url: out.trim() });
    });
    child.once('exit', (code) => reject(new Error(`embedded test database exited with ${code}`)));
  });
}

/** A database of its own for this run: on PostgreSQL a fresh one, dropped at the end. */
function announceRedis() {
  process.stdout.write(
    process.env.CHORUS_TEST_REDIS_URL
      ? `Redis for shared rate limits: ${process.env.CHORUS_TEST_REDIS_URL}.\n`
      : 'No Redis answers: the tests of rate limits shared through Redis are SKIPPED.\n',
  );
}

/** Whether the pages' browser tests run (test/support/browser.ts skips them, by name, without Chromium). */
function announceBrowser() {
  const chromium = process.env.CHORUS_CHROMIUM || '/usr/bin/chromium';
  process.stdout.write(
    require('node:fs').existsSync(chromium)
      ? `Browser for the pages' tests: Chromium at ${chromium}.\n`
      : `No Chromium at ${chromium}: the pages' browser tests are SKIPPED (apt-get install chromium to run them).\n`,
  );
}

module.exports = async () => {
  const database = JSON.parse(process.env.CHORUS_TEST_DATABASE);
  announceRedis();
  announceBrowser();
  if (database.kind === 'embedded') {
    const { child, url } = await startEmbeddedServer();
    globalThis.__chorusEmbeddedDb = child;
    process.env.CHORUS_TEST_DATABASE_URL = url;
    const why = process.env.CHORUS_TEST_EMBEDDED === 'true' ? 'CHORUS_TEST_EMBEDDED=true' : 'no PostgreSQL was configured or reachable';
    process.stdout.write(`\nTests run on: the embedded PGlite database (${why}).\n`);
    return;
  }
  const name = `chorus_test_${Date.now()}_${process.pid}`;
  const admin = new Client({ connectionString: database.serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(database.serverUrl);
  url.pathname = `/${name}`;
  process.env.CHORUS_TEST_DATABASE_URL = url.toString();
  globalThis.__chorusTestDatabase = { serverUrl: database.serverUrl, name };
  process.stdout.write(`\nTests run on: PostgreSQL at ${url.host}, database ${name}.\n`);
};
