"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.createApp = createApp;
const core_1 = require("@nestjs/core");
const typeorm_1 = require("typeorm");
const app_module_1 = require("./app.module");
const http_middleware_1 = require("./common/http-middleware");
const logging_1 = require("./common/logging");
const database_1 = require("./database/database");
const http_metrics_middleware_1 = require("./metrics/http-metrics.middleware");
const metrics_service_1 = require("./metrics/metrics.service");
const openapi_1 = require("./openapi");
async function createApp(config, database) {
    const logger = (0, logging_1.createLogger)(config.logLevel);
    const app = await core_1.NestFactory.create(app_module_1.AppModule.forRoot(config, database), {
        bodyParser: false,
        logger: new logging_1.NestPinoLogger(logger),
    });
    app.disable('x-powered-by');
    app.set('etag', false);
    app.set('trust proxy', config.trustProxy);
    app.use(http_middleware_1.requestId);
    app.use((0, logging_1.requestLog)(logger));
    app.use((0, http_metrics_middleware_1.httpMetrics)(app.get(metrics_service_1.MetricsService)));
    app.use(http_middleware_1.jsonBody);
    (0, openapi_1.serveOpenApi)(app);
    await (0, database_1.runMigrations)(app.get(typeorm_1.DataSource), database.embedded);
    return app;
}
//# sourceMappingURL=app.js.map