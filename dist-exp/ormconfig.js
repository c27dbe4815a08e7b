"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const app_config_1 = require("./src/config/app-config");
const database_1 = require("./src/database/database");
exports.default = (async () => {
    const target = await (0, database_1.openDatabaseTarget)((0, app_config_1.loadConfig)());
    const dataSource = (0, database_1.newDataSource)(target);
    const destroy = dataSource.destroy.bind(dataSource);
    dataSource.destroy = async () => {
        await destroy();
        await target.close();
    };
    return dataSource;
})();
//# sourceMappingURL=ormconfig.js.map