import { DynamicModule, Global, Module } from '@nestjs/common';
import { DATABASE_TARGET, DatabaseTarget } from '../database/database';
import { SecretBox } from '../common/secret-box';
import { APP_CONFIG, AppConfig } from './app-config';
import { encryptionKey } from './encryption-key';
import { Links } from './links';

/** The configuration, the database target and the key for secrets at rest, everywhere. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: DATABASE_TARGET, useValue: database },
        { provide: SecretBox, useValue: new SecretBox(encryptionKey(config, database)) },
        Links,
      ],
      exports: [APP_CONFIG, DATABASE_TARGET, SecretBox, Links],
    };
  }
}
