"use strict";
var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
Object.defineProperty(exports, "__esModule", { value: true });
require("reflect-metadata");
const common_1 = require("@nestjs/common");
const core_1 = require("@nestjs/core");
const logging_1 = require("./common/logging");
const metrics_module_1 = require("./metrics/metrics.module");
const app_config_1 = require("./config/app-config");
const core_module_1 = require("./core.module");
const database_1 = require("./database/database");
const shutdown_1 = require("./shutdown");
const startup_1 = require("./startup");
const outbox_module_1 = require("./outbox/outbox.module");
async function main() {
    const config = (0, app_config_1.loadConfig)();
    const database = await (0, database_1.openDatabaseTarget)(config);
    try {
        const migrator = (0, database_1.newDataSource)(database);
        await migrator.initialize();
        await (0, database_1.runMigrations)(migrator, database.embedded);
        await migrator.destroy();
        let WorkerModule = class WorkerModule {
        };
        WorkerModule = __decorate([
            (0, common_1.Module)({ imports: [core_module_1.CoreModule.forRoot(config, database), metrics_module_1.MetricsModule, outbox_module_1.OutboxModule] })
        ], WorkerModule);
        const app = await core_1.NestFactory.createApplicationContext(WorkerModule, {
            logger: new logging_1.NestPinoLogger((0, logging_1.createLogger)(config.logLevel)),
        });
        new common_1.Logger('Chorus').log('Outbox processor running.');
        (0, shutdown_1.closeOnSignals)(async () => {
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
//# sourceMappingURL=worker.js.map