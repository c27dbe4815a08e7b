import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { BodyErrorInterceptor } from './common/body-error.interceptor';
import { ErrorFilter } from './common/error.filter';
import type { AppConfig } from './config/app-config';
import { CoreModule } from './core.module';
import type { DatabaseTarget } from './database/database';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, database: DatabaseTarget): DynamicModule {
    return {
      module: AppModule,
      imports: [CoreModule.forRoot(config, database)],
      providers: [
        { provide: APP_FILTER, useClass: ErrorFilter },
        { provide: APP_INTERCEPTOR, useClass: BodyErrorInterceptor },
      ],
    };
  }
}
