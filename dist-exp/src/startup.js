"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.exitOnStartupError = exitOnStartupError;
const app_config_1 = require("./config/app-config");
const embedded_postgres_1 = require("./database/embedded-postgres");
function exitOnStartupError(error, what = 'Chorus could not start') {
    if (error instanceof app_config_1.ConfigError || error instanceof embedded_postgres_1.DataDirInUseError) {
        process.stderr.write(`${error.message}\n`);
    }
    else {
        process.stderr.write(`${what}: ${error instanceof Error ? error.stack : String(error)}\n`);
    }
    process.exit(1);
}
//# sourceMappingURL=startup.js.map