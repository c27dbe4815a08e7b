import { DynamicModule, Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { Pool } from 'pg';
import type { AppConfig } from '../config/app-config';
import { DATABASE_TARGET, DatabaseTarget } from './database';
import { poolOptions } from './data-source-options';
import { detectEngine, ENGINE_KIND, EngineKind } from './engine';
import { Notifications } from './listener';
import { Database } from './sql';

/**
 * The database for every module: the one pool (made here, in pipeline mode), the `Database` that
 * stores run statements through, the engine learnt once, and LISTEN as the engine allows. The
 * migrations have run before (`migrateDatabase`), so nothing here loads TypeORM.
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(Database) private readonly db: Database) {}

  static forRoot(config: AppConfig, target: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: Database,
          useFactory: () => {
            const pool = new Pool(poolOptions(target.url, target.embedded, config.databaseStatementTimeoutMs));
            // An idle connection that fails (the server restarted, say) leaves the pool; the next
            // statement takes a new one. Without a listener, the error would end the process.
            const logger = new Logger('Database');
            pool.on('error', (error) => logger.warn(`An idle connection failed and left the pool: ${error.message}`));
            return new Database(pool);
          },
        },
        { provide: ENGINE_KIND, inject: [Database, DATABASE_TARGET], useFactory: (db: Database, t: DatabaseTarget) => detectEngine(db, t.embedded) },
        {
          provide: Notifications,
          inject: [ENGINE_KIND, DATABASE_TARGET],
          useFactory: (kind: EngineKind, t: DatabaseTarget) => new Notifications(t.url, kind !== 'embedded'),
        },
      ],
      exports: [Database, ENGINE_KIND, Notifications],
    };
  }

  /** The pool ends after every module's own shutdown (the outbox processor's last sends). */
  async onApplicationShutdown(): Promise<void> {
    await this.db.end();
  }
}
