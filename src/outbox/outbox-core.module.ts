import { Module } from '@nestjs/common';
import { byEngine } from '../database/engine';
import { OutboxChannels } from './channel';
import { CitusDeliveriesStore, DeliveriesStore } from './deliveries.store';
import { EndpointTargets } from './endpoint-targets';
import { EndpointsStore } from './endpoints.store';
import { CitusEventsStore, EventsStore } from './events.store';
import { OutboxDeliveries } from './outbox-deliveries.service';
import { OutboxEndpoints } from './outbox-endpoints.service';
import { Quota } from './quota';
import { CitusQuotaStore, QuotaStore } from './quota.store';

/**
 * The outbox's core: its tables (events, deliveries and their attempts, endpoints, the quotas),
 * what the features write events, queue emails and manage endpoints and deliveries through,
 * the quota, and the channels' registry (each channel's module registers it). The processor
 * (OutboxModule) is beside it; the core imports no feature.
 */
@Module({
  providers: [
    ...byEngine(EventsStore, { postgres: EventsStore, citus: CitusEventsStore }),
    ...byEngine(DeliveriesStore, { postgres: DeliveriesStore, citus: CitusDeliveriesStore }),
    ...byEngine(QuotaStore, { postgres: QuotaStore, citus: CitusQuotaStore }),
    EndpointsStore,
    EndpointTargets,
    OutboxEndpoints,
    OutboxDeliveries,
    Quota,
    OutboxChannels,
  ],
  exports: [EventsStore, DeliveriesStore, EndpointsStore, EndpointTargets, OutboxEndpoints, OutboxDeliveries, Quota, OutboxChannels],
})
export class OutboxCoreModule {}
