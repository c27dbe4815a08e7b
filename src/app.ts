import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { ChorusExpressAdapter } from './common/express-adapter';
import { inTurn, jsonBody } from './common/http-middleware';
import { Links } from './config/links';
import { createLogger, NestPinoLogger, observeRequests } from './common/logging';
import type { AppConfig } from './config/app-config';
import { DatabaseTarget, migrateDatabase } from './database/database';
import { recordHttpRequest } from './metrics/http-metrics';
import { MetricsService } from './metrics/metrics.service';
import { serveOpenApi } from './openapi';
import { pageRequests } from './web/shared/page-requests';
import { isPagePath } from './web/shared/routes';
import { securityHeaders } from './web/shared/security-headers';
import { embedRequests } from './web/site/embed';
import { orderRoutes } from './common/route-order';

/** The HTTP application, with migrations applied first, initialised; not yet listening. Logs at LOG_LEVEL. */
export async function createApp(config: AppConfig, database: DatabaseTarget): Promise<NestExpressApplication> {
  const logger = createLogger(config.logLevel);
  // Before the application exists: its pool, and the processor it may start, find the tables made.
  await migrateDatabase(database);
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, database), new ChorusExpressAdapter(), {
    bodyParser: false,
    logger: new NestPinoLogger(logger),
  });
  app.disable('x-powered-by');
  // Express would hash every GET body for an ETag that no client of this API sends back.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  const metrics = app.get(MetricsService);
  // What every request passes before its route, in this order, as one layer of the router.
  app.use(
    inTurn(
      observeRequests(logger, (req, res, seconds) => recordHttpRequest(metrics, req, res, seconds)),
      // `/embed/<workspace>/…` (the widget's frame) is answered by the site's routes (site/embed.ts).
      embedRequests(),
      securityHeaders(app.get(Links)),
      // Pages (the site, the dashboard, the email links) take forms: pageRequests reads them.
      jsonBody(isPagePath),
      pageRequests(app.get(Links)),
    ),
  );
  serveOpenApi(app);
  await app.init();
  orderRoutes(app);
  return app;
}
