import { LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module';
import { jsonBody, queryValues, requestId } from './common/http-middleware';
import type { AppConfig } from './config/app-config';
import { DatabaseTarget, runMigrations } from './database/database';

export interface AppOptions {
  logger?: LogLevel[] | false;
}

/** The HTTP application, with migrations applied; not yet listening. */
export async function createApp(
  config: AppConfig,
  database: DatabaseTarget,
  options: AppOptions = {},
): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config, database), {
    bodyParser: false,
    logger: options.logger ?? ['log', 'warn', 'error'],
  });
  app.disable('x-powered-by');
  app.set('trust proxy', config.trustProxy);
  app.use(requestId);
  app.use(jsonBody);
  app.use(queryValues);
  await runMigrations(app.get(DataSource), database.embedded);
  return app;
}
