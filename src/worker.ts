import 'reflect-metadata';
import { INestApplicationContext, Logger, LoggerService, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createLogger, NestPinoLogger } from './common/logging';
import { MetricsModule } from './metrics/metrics.module';
import { loadConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { migrateDatabase, openDatabaseTarget } from './database/database';
import { closeOnSignals } from './shutdown';
import { exitOnStartupError, tuneHeap } from './startup';
import { OutboxModule } from './outbox/outbox.module';

/** Makes the worker's context from its module; a bench may build it with providers replaced. */
export type WorkerContextFactory = (module: Type<unknown>, logger: LoggerService) => Promise<INestApplicationContext>;

const nestContext: WorkerContextFactory = (module, logger) => NestFactory.createApplicationContext(module, { logger });

/** The outbox processor alone, for deployments that scale API and workers apart. */
export async function runWorker(createContext: WorkerContextFactory = nestContext): Promise<void> {
  const config = loadConfig();
  tuneHeap(config);
  const database = await openDatabaseTarget(config);
  try {
    // Migrated before the context exists: creating it starts the processor.
    await migrateDatabase(database);
    @Module({ imports: [CoreModule.forRoot(config, database), MetricsModule, OutboxModule] })
    class WorkerModule {}
    const app = await createContext(WorkerModule, new NestPinoLogger(createLogger(config.logLevel)));
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

if (require.main === module) runWorker().catch(exitOnStartupError);
