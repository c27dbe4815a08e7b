import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Logger as PinoLogger } from 'nestjs-pino';
import { DataSource } from 'typeorm';
import { loggerModule } from './common/logging';
import { MetricsModule } from './metrics/metrics.module';
import { loadConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { openDatabaseTarget, runMigrations } from './database/database';
import { closeOnSignals } from './shutdown';
import { exitOnStartupError } from './startup';
import { OutboxModule } from './webhooks/outbox.module';

/** The outbox processor alone, for deployments that scale API and workers apart. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabaseTarget(config);
  try {
    @Module({ imports: [loggerModule(config), CoreModule.forRoot(config, database), MetricsModule, OutboxModule] })
    class WorkerModule {}
    const app = await NestFactory.createApplicationContext(WorkerModule, { bufferLogs: true });
    app.useLogger(app.get(PinoLogger));
    await runMigrations(app.get(DataSource), database.embedded);
    await app.init();
    new Logger('Chorus').log('Outbox processor running.');
    closeOnSignals(async () => {
      await app.close();
      await database.close();
    });
  } catch (error) {
    await database.close();
    throw error;
  }
}

main().catch(exitOnStartupError);
