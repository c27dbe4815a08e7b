import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { createApp } from './app';
import { loadConfig } from './config/app-config';
import { openDatabaseTarget } from './database/database';
import { seedAndAnnounceDemo } from './demo/demo-seed';
import { exitOnStartupError } from './startup';

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await openDatabaseTarget(config);
  try {
    const app = await createApp(config, database);
    if (database.embedded) await seedAndAnnounceDemo(app, config);
    await app.listen(config.port);
    new Logger('Chorus').log(
      `Listening on ${config.baseUrl} (database: ${database.embedded ? `embedded, in ${config.dataDir}` : 'PostgreSQL'})`,
    );
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
