// A PGlite server for the test run, in a process of its own (outside Jest's module system).
// Prints its connection URL on stdout once listening; stops on SIGTERM.
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { PGlite } = require('@electric-sql/pglite');
const { btree_gin } = require('@electric-sql/pglite/contrib/btree_gin');
const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm');
const { PGLiteSocketServer } = require('@electric-sql/pglite-socket');

(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-test-pglite-'));
  const db = await PGlite.create({ dataDir: dir, extensions: { pg_trgm, btree_gin } });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 4 });
  await server.start();
  process.stdout.write(`postgresql://postgres@${server.getServerConn()}/postgres\n`);
  const stop = async () => {
    await server.stop();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
