"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DataDirInUseError = void 0;
exports.runningInstanceUrl = runningInstanceUrl;
exports.startEmbeddedPostgres = startEmbeddedPostgres;
const node_fs_1 = require("node:fs");
const node_net_1 = require("node:net");
const node_path_1 = require("node:path");
const pglite_1 = require("@electric-sql/pglite");
const btree_gin_1 = require("@electric-sql/pglite/contrib/btree_gin");
const pg_trgm_1 = require("@electric-sql/pglite/contrib/pg_trgm");
const pglite_socket_1 = require("@electric-sql/pglite-socket");
class DataDirInUseError extends Error {
}
exports.DataDirInUseError = DataDirInUseError;
const SOCKET_PORT = 5432;
const socketPath = (dataDir) => (0, node_path_1.join)(dataDir, `.s.PGSQL.${SOCKET_PORT}`);
class SessionQueue {
    db;
    owner = null;
    waiting = [];
    constructor(db) {
        this.db = db;
    }
    async enqueue(handlerId, message, onData) {
        await this.acquire(handlerId);
        let bytes = 0;
        try {
            await this.db.runExclusive(() => this.db.execProtocolRawStream(message, {
                onRawData: (data) => {
                    bytes += data.length;
                    onData(data);
                },
            }));
        }
        finally {
            const endsExchange = [0x53, 0x51, 0x58, 0x00].includes(message[0]);
            if (endsExchange && !this.db.isInTransaction())
                this.release(handlerId);
        }
        return bytes;
    }
    getQueueLength() {
        return this.waiting.length;
    }
    clearQueueForHandler(handlerId) {
        for (let i = this.waiting.length - 1; i >= 0; i--) {
            if (this.waiting[i].handlerId === handlerId)
                this.waiting.splice(i, 1)[0].reject(new Error('Handler disconnected'));
        }
    }
    async clearTransactionIfNeeded(handlerId) {
        if (this.owner !== handlerId)
            return;
        if (this.db.isInTransaction())
            await this.db.exec('ROLLBACK');
        this.release(handlerId);
    }
    acquire(handlerId) {
        if (this.owner === null || this.owner === handlerId) {
            this.owner = handlerId;
            return Promise.resolve();
        }
        return new Promise((resolve, reject) => this.waiting.push({ handlerId, resolve, reject }));
    }
    release(handlerId) {
        if (this.owner !== handlerId)
            return;
        const next = this.waiting.shift();
        this.owner = next?.handlerId ?? null;
        next?.resolve();
    }
}
function serve(queue, maxConnections) {
    const options = { queryQueue: queue, closeOnDetach: true };
    const sockets = new Set();
    const server = (0, node_net_1.createServer)((socket) => {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        void new pglite_socket_1.PGLiteSocketHandler(options).attach(socket).catch(() => socket.destroy());
    });
    server.maxConnections = maxConnections;
    return {
        server,
        close: () => new Promise((resolve) => {
            server.close(() => resolve());
            sockets.forEach((socket) => socket.destroy());
        }),
    };
}
const listen = (server, ...args) => new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...args, () => {
        server.off('error', reject);
        resolve();
    });
});
function runningInstanceUrl(dataDir) {
    const holder = lockHolder((0, node_path_1.join)(dataDir, 'pglite.lock'));
    if (holder === null || !(0, node_fs_1.existsSync)(socketPath(dataDir)))
        return null;
    return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dataDir)}&port=${SOCKET_PORT}`;
}
function lockHolder(lockPath) {
    let holder;
    try {
        holder = Number((0, node_fs_1.readFileSync)(lockPath, 'utf8').trim());
    }
    catch {
        return null;
    }
    return holder && holder !== process.pid && processIsAlive(holder) ? holder : null;
}
function processIsAlive(pid) {
    try {
        process.kill(pid, 0);
        return true;
    }
    catch (error) {
        return error.code === 'EPERM';
    }
}
function takeLock(lockPath) {
    for (let attempt = 0; attempt < 2; attempt++) {
        try {
            const fd = (0, node_fs_1.openSync)(lockPath, 'wx');
            (0, node_fs_1.writeSync)(fd, String(process.pid));
            (0, node_fs_1.closeSync)(fd);
            return () => (0, node_fs_1.rmSync)(lockPath, { force: true });
        }
        catch (error) {
            if (error.code !== 'EEXIST')
                throw error;
            const holder = lockHolder(lockPath);
            if (holder !== null) {
                throw new DataDirInUseError(`The embedded database in ${lockPath.replace(/\/pglite\.lock$/, '')} is in use by process ${holder}. ` +
                    'Stop that process first, or set DATABASE_URL to use a PostgreSQL server.');
            }
            (0, node_fs_1.rmSync)(lockPath, { force: true });
        }
    }
    throw new DataDirInUseError(`Could not take ${lockPath}`);
}
async function startEmbeddedPostgres(dataDir) {
    let releaseLock = () => { };
    if (dataDir) {
        (0, node_fs_1.mkdirSync)(dataDir, { recursive: true });
        releaseLock = takeLock((0, node_path_1.join)(dataDir, 'pglite.lock'));
    }
    try {
        const db = await pglite_1.PGlite.create({
            dataDir: dataDir ? (0, node_path_1.join)(dataDir, 'pgdata') : undefined,
            extensions: { pg_trgm: pg_trgm_1.pg_trgm, btree_gin: btree_gin_1.btree_gin },
        });
        const queue = new SessionQueue(db);
        const tcp = serve(queue, 1);
        await listen(tcp.server, 0, '127.0.0.1');
        const { port } = tcp.server.address();
        let local = null;
        if (dataDir) {
            local = serve(queue, 4);
            (0, node_fs_1.rmSync)(socketPath(dataDir), { force: true });
            try {
                await listen(local.server, socketPath(dataDir));
                (0, node_fs_1.chmodSync)(socketPath(dataDir), 0o600);
            }
            catch {
                local = null;
            }
        }
        let stopped = false;
        return {
            url: `postgresql://postgres@127.0.0.1:${port}/postgres`,
            async stop() {
                if (stopped)
                    return;
                stopped = true;
                await local?.close();
                await tcp.close();
                await db.close();
                releaseLock();
            },
        };
    }
    catch (error) {
        releaseLock();
        throw error;
    }
}
//# sourceMappingURL=embedded-postgres.js.map