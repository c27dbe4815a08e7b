"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.DATABASE_TARGET = void 0;
exports.openDatabaseTarget = openDatabaseTarget;
exports.runMigrations = runMigrations;
exports.newDataSource = newDataSource;
const typeorm_1 = require("typeorm");
const embedded_postgres_1 = require("./embedded-postgres");
const data_source_options_1 = require("./data-source-options");
exports.DATABASE_TARGET = Symbol('DATABASE_TARGET');
async function openDatabaseTarget(config, options = {}) {
    if (config.databaseUrl) {
        return { url: config.databaseUrl, embedded: false, close: async () => { } };
    }
    const running = options.joinRunning ? (0, embedded_postgres_1.runningInstanceUrl)(config.dataDir) : null;
    if (running)
        return { url: running, embedded: true, close: async () => { } };
    const server = await (0, embedded_postgres_1.startEmbeddedPostgres)(config.dataDir);
    return { url: server.url, embedded: true, close: () => server.stop() };
}
async function runMigrations(dataSource, embedded) {
    if (embedded)
        return migrate(dataSource);
    const lock = dataSource.createQueryRunner();
    try {
        await lock.query(`SET statement_timeout = 0`);
        await lock.query(`SELECT pg_advisory_lock(hashtext('chorus:migrations'))`);
        return await migrate(dataSource, async (runner) => void (await runner.query(`SET statement_timeout = 0`)));
    }
    finally {
        await lock.query(`SELECT pg_advisory_unlock(hashtext('chorus:migrations'))`).catch(() => { });
        await lock.query(`RESET statement_timeout`).catch(() => { });
        await lock.release();
    }
}
async function migrate(dataSource, prepare) {
    const runner = dataSource.createQueryRunner();
    try {
        await prepare?.(runner);
        const executor = new typeorm_1.MigrationExecutor(dataSource, runner);
        executor.transaction = 'all';
        return (await executor.executePendingMigrations()).map((m) => m.name);
    }
    finally {
        if (prepare)
            await runner.query(`RESET statement_timeout`).catch(() => { });
        await runner.release();
    }
}
function newDataSource(target, statementTimeoutMs = 0) {
    return new typeorm_1.DataSource((0, data_source_options_1.dataSourceOptions)(target.url, target.embedded, statementTimeoutMs));
}
//# sourceMappingURL=database.js.map