import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PostgreSQL inside this process (PGlite), served on a loopback port so that TypeORM's
 * ordinary `postgres` driver talks to it. PGlite is one session: callers use a pool of one.
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export class DataDirInUseError extends Error {}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes DATA_DIR/pglite.lock for this process; PGlite would corrupt a folder two processes share. */
function takeLock(lockPath: string): () => void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(readFileSync(lockPath, 'utf8').trim());
      if (holder && holder !== process.pid && processIsAlive(holder)) {
        throw new DataDirInUseError(
          `The embedded database in ${lockPath.replace(/\/pglite\.lock$/, '')} is in use by process ${holder}. ` +
            'Stop that process first, or set DATABASE_URL to use a PostgreSQL server.',
        );
      }
      rmSync(lockPath, { force: true }); // left behind by a process that died
    }
  }
  throw new DataDirInUseError(`Could not take ${lockPath}`);
}

/** Starts PGlite on `<dataDir>/pgdata` (or in memory when dataDir is null). */
export async function startEmbeddedPostgres(dataDir: string | null): Promise<EmbeddedPostgres> {
  let releaseLock = () => {};
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    releaseLock = takeLock(join(dataDir, 'pglite.lock'));
  }
  try {
    const db = await PGlite.create({
      dataDir: dataDir ? join(dataDir, 'pgdata') : undefined,
      extensions: { pg_trgm, btree_gin },
    });
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
    await server.start();
    const address = server.getServerConn(); // "127.0.0.1:<port>"
    let stopped = false;
    return {
      url: `postgresql://postgres@${address}/postgres`,
      async stop() {
        if (stopped) return;
        stopped = true;
        await server.stop();
        await db.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}
