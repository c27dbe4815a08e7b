import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createServer, Server, Socket } from 'node:net';
import { join } from 'node:path';
// Types only: PGlite is loaded when it is started (startEmbeddedPostgres), so that a process on a
// PostgreSQL server does not spend 5 MB of memory on it.
import type { PGlite } from '@electric-sql/pglite';
import type { PGLiteSocketHandler, PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';

/**
 * PostgreSQL inside this process (PGlite), served on a loopback port so that TypeORM's
 * ordinary `postgres` driver talks to it. PGlite is one session: callers use a pool of one.
 * The operator's CLI reaches the same database, while the service runs, through a Unix socket
 * in DATA_DIR (see `runningInstanceUrl`).
 */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

export class DataDirInUseError extends Error {}

/** The folder's socket, named as libpq and pg expect (`<dir>/.s.PGSQL.<port>`). */
const SOCKET_PORT = 5432;
const socketPath = (dataDir: string) => join(dataDir, `.s.PGSQL.${SOCKET_PORT}`);

/**
 * Gives PGlite's one session to one connection at a time, from its first message until it is
 * ready for a new query outside a transaction. (pglite-socket's own queue interleaves messages:
 * another client's Parse could land between a Parse and its Bind.)
 */
class SessionQueue {
  private owner: number | null = null;
  private readonly waiting: { handlerId: number; resolve: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly db: PGlite) {}

  async enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    await this.acquire(handlerId);
    let bytes = 0;
    try {
      await this.db.runExclusive(() =>
        this.db.execProtocolRawStream(message, {
          onRawData: (data) => {
            bytes += data.length;
            onData(data);
          },
        }),
      );
    } finally {
      // Sync, a simple Query, Terminate or the startup packet end an exchange with ReadyForQuery.
      const endsExchange = [0x53, 0x51, 0x58, 0x00].includes(message[0]);
      if (endsExchange && !this.db.isInTransaction()) this.release(handlerId);
    }
    return bytes;
  }

  getQueueLength(): number {
    return this.waiting.length;
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i].handlerId === handlerId) this.waiting.splice(i, 1)[0].reject(new Error('Handler disconnected'));
    }
  }

  /** A client gone mid-transaction: its work is rolled back and the session passed on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec('ROLLBACK');
    this.release(handlerId);
  }

  private acquire(handlerId: number): Promise<void> {
    if (this.owner === null || this.owner === handlerId) {
      this.owner = handlerId;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => this.waiting.push({ handlerId, resolve, reject }));
  }

  private release(handlerId: number): void {
    if (this.owner !== handlerId) return;
    const next = this.waiting.shift();
    this.owner = next?.handlerId ?? null;
    next?.resolve();
  }
}

interface Listener {
  server: Server;
  /** Stops listening and ends the clients' connections (their transactions are rolled back). */
  close(): Promise<void>;
}

/** How long a connection waits for its turn before it is closed (see `serve`). */
const TURN_WAIT_MS = 5_000;

/**
 * Serves the session to at most `maxConnections` clients at once, on a port or a socket path. A
 * connection that comes while they are all taken waits its turn for up to TURN_WAIT_MS (the one
 * before may be closing: the migrations' connection, say, just before the service's pool opens its
 * own), then is closed; so a connection kept for good still keeps every other out.
 */
function serve(queue: SessionQueue, maxConnections: number, Handler: typeof PGLiteSocketHandler): Listener {
  const options = { queryQueue: queue, closeOnDetach: true } as unknown as PGLiteSocketHandlerOptions;
  const sockets = new Set<Socket>();
  /** Connections waiting their turn, each with the timer that closes it if the turn does not come. */
  const waiting = new Map<Socket, NodeJS.Timeout>();
  let serving = 0;
  const attach = (socket: Socket) => {
    serving++;
    socket.once('close', () => {
      serving--;
      const [next] = waiting.keys();
      if (next) {
        clearTimeout(waiting.get(next));
        waiting.delete(next);
        attach(next);
      }
    });
    void new Handler(options).attach(socket).catch(() => socket.destroy());
  };
  const server = createServer((socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (serving < maxConnections) return attach(socket);
    const turn = setTimeout(() => socket.destroy(), TURN_WAIT_MS);
    turn.unref();
    waiting.set(socket, turn);
    socket.once('close', () => {
      clearTimeout(turn);
      waiting.delete(socket);
    });
  });
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        sockets.forEach((socket) => socket.destroy());
      }),
  };
}

const listen = (server: Server, ...args: [number, string] | [string]) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(...(args as [number, string]), () => {
      server.off('error', reject);
      resolve();
    });
  });

/**
 * The connection URL of the service that holds DATA_DIR now, for the CLI: its Unix socket, or
 * null when no live process holds the folder (the CLI then opens the database itself).
 */
export function runningInstanceUrl(dataDir: string): string | null {
  const holder = lockHolder(join(dataDir, 'pglite.lock'));
  if (holder === null || !existsSync(socketPath(dataDir))) return null;
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}&port=${SOCKET_PORT}`;
}

function lockHolder(lockPath: string): number | null {
  let holder: number;
  try {
    holder = Number(readFileSync(lockPath, 'utf8').trim());
  } catch {
    return null;
  }
  return holder && holder !== process.pid && processIsAlive(holder) ? holder : null;
}

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
      const holder = lockHolder(lockPath);
      if (holder !== null) {
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
    // Required as the static imports were (their CommonJS builds), only now.
    const { PGlite } = require('@electric-sql/pglite') as typeof import('@electric-sql/pglite');
    const { btree_gin } = require('@electric-sql/pglite/contrib/btree_gin') as typeof import('@electric-sql/pglite/contrib/btree_gin');
    const { pg_trgm } = require('@electric-sql/pglite/contrib/pg_trgm') as typeof import('@electric-sql/pglite/contrib/pg_trgm');
    const { PGLiteSocketHandler } = require('@electric-sql/pglite-socket') as typeof import('@electric-sql/pglite-socket');
    const db = await PGlite.create({
      dataDir: dataDir ? join(dataDir, 'pgdata') : undefined,
      extensions: { pg_trgm, btree_gin },
    });
    const queue = new SessionQueue(db);
    // The service's own pool: one connection, kept for good, so no other process takes its place.
    const tcp = serve(queue, 1, PGLiteSocketHandler);
    await listen(tcp.server, 0, '127.0.0.1');
    const { port } = tcp.server.address() as { port: number };
    // Local tools (the CLI) in turn, through a socket only DATA_DIR's owner can open.
    let local: Listener | null = null;
    if (dataDir) {
      local = serve(queue, 4, PGLiteSocketHandler);
      rmSync(socketPath(dataDir), { force: true });
      try {
        await listen(local.server, socketPath(dataDir));
        chmodSync(socketPath(dataDir), 0o600);
      } catch {
        local = null; // a path too long for a socket, say: the CLI then finds the folder in use, as before
      }
    }
    let stopped = false;
    return {
      url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
      async stop() {
        if (stopped) return;
        stopped = true;
        await local?.close(); // removes the socket file
        await tcp.close();
        await db.close();
        releaseLock();
      },
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}
