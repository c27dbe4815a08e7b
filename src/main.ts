import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { loadConfig } from './config/app-config';
import { openDatabaseTarget } from './database/database';
import { seedAndAnnounceDemo } from './demo/demo-seed';
import { closeOnSignals, stopListening } from './shutdown';
import { OutboxProcessor } from './outbox/outbox.processor';
import { exitOnStartupError, tuneHeap } from './startup';

async function main(): Promise<void> {
  const config = loadConfig();
  tuneHeap(config);
  const database = await openDatabaseTarget(config);
  try {
    const app = await createApp(config, database);
    if (database.embedded) await seedAndAnnounceDemo(app, config);
    await app.listen(config.port);
    new Logger('Chorus').log(
      `Listening on ${config.baseUrl} (database: ${database.embedded ? `embedded, in ${config.dataDir}` : 'PostgreSQL'})`,
    );
    closeOnSignals(async () => {
      // The outbox processor takes no new work; new connections are refused at once; requests
      // in flight are answered. Then the processor finishes its sends, and the database closes.
      if (config.runWorker) app.get(OutboxProcessor).stopClaiming();
      await stopListening(app.getHttpServer());
      await app.close();
      await database.close();
    });
  } catch (error) {
    await database.close();
    throw error;
  }
}

main().catch(exitOnStartupError);
