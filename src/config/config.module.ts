import { DynamicModule, Global, Module } from '@nestjs/common';
import { DATABASE_TARGET, DatabaseTarget } from '../database/database';
import { APP_CONFIG, AppConfig } from './app-config';
import { Links } from './links';

/** The configuration and the database target, everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: APP_CONFIG, useValue: config }, { provide: DATABASE_TARGET, useValue: database }, Links],
      exports: [APP_CONFIG, DATABASE_TARGET, Links],
    };
  }
}
