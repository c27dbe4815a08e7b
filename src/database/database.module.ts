import { DynamicModule, Global, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import type { AppConfig } from '../config/app-config';
import { DATABASE_TARGET, DatabaseTarget } from './database';
import { dataSourceOptions } from './data-source-options';
import { detectEngine, ENGINE_KIND, EngineKind } from './engine';
import { Notifications } from './listener';
import { Database } from './sql';

/**
 * The database for every module: the one pool (TypeORM's DataSource makes it and runs the
 * migrations), the `Database` that stores run statements through, the engine learnt once, and
 * LISTEN as the engine allows.
 */
@Global()
@Module({})
export class DatabaseModule {
  static forRoot(config: AppConfig, target: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [TypeOrmModule.forRoot(dataSourceOptions(target.url, target.embedded, config.databaseStatementTimeoutMs))],
      providers: [
        {
          provide: Database,
          inject: [getDataSourceToken()],
          useFactory: (dataSource: DataSource) => new Database((dataSource.driver as unknown as { master: Pool }).master),
        },
        { provide: ENGINE_KIND, inject: [Database, DATABASE_TARGET], useFactory: (db: Database, t: DatabaseTarget) => detectEngine(db, t.embedded) },
        {
          provide: Notifications,
          inject: [ENGINE_KIND, DATABASE_TARGET],
          useFactory: (kind: EngineKind, t: DatabaseTarget) => new Notifications(t.url, kind !== 'embedded'),
        },
      ],
      exports: [TypeOrmModule, Database, ENGINE_KIND, Notifications],
    };
  }
}
