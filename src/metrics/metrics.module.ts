import { Global, Module } from '@nestjs/common';
import { MetricsService } from './metrics.service';

/** The metrics registry, for the API and the outbox processor alike. */
@Global()
@Module({ providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
