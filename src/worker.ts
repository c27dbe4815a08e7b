import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource } from 'typeorm';
import { loadConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { openDatabaseTarget, runMigrations } from './database/database';
import { exitOnStartupError } from './startup';
import { OutboxModule } from './webhooks/outbox.module';

/** The outbox processor alone, for deployments that scale API and workers apart. */
async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabaseTarget(config);
  try {
    @Module({ imports: [CoreModule.forRoot(config, database), OutboxModule] })
    class WorkerModule {}
    const app = await NestFactory.createApplicationContext(WorkerModule, { logger: ['log', 'warn', 'error'] });
    await runMigrations(app.get(DataSource), database.embedded);
    await app.init();
    new Logger('Chorus').log('Outbox processor running.');
    let stopping = false;
    const stop = async () => {
      if (stopping) return;
      stopping = true;
      try {
        await app.close();
        await database.close();
        process.exit(0);
      } catch (error) {
        new Logger('Chorus').error(`Shutdown failed: ${(error as Error).stack}`);
        process.exit(1);
      }
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  } catch (error) {
    await database.close();
    throw error;
  }
}

main().catch(exitOnStartupError);
