"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
require("reflect-metadata");
const common_1 = require("@nestjs/common");
const app_1 = require("./app");
const app_config_1 = require("./config/app-config");
const database_1 = require("./database/database");
const demo_seed_1 = require("./demo/demo-seed");
const shutdown_1 = require("./shutdown");
const outbox_processor_1 = require("./outbox/outbox.processor");
const startup_1 = require("./startup");
async function main() {
    const config = (0, app_config_1.loadConfig)();
    const database = await (0, database_1.openDatabaseTarget)(config);
    try {
        const app = await (0, app_1.createApp)(config, database);
        if (database.embedded)
            await (0, demo_seed_1.seedAndAnnounceDemo)(app, config);
        await app.listen(config.port);
        new common_1.Logger('Chorus').log(`Listening on ${config.baseUrl} (database: ${database.embedded ? `embedded, in ${config.dataDir}` : 'PostgreSQL'})`);
        (0, shutdown_1.closeOnSignals)(async () => {
            if (config.runWorker)
                app.get(outbox_processor_1.OutboxProcessor).stopClaiming();
            await (0, shutdown_1.stopListening)(app.getHttpServer());
            await app.close();
            await database.close();
        });
    }
    catch (error) {
        await database.close();
        throw error;
    }
}
main().catch(startup_1.exitOnStartupError);
//# sourceMappingURL=main.js.map