import { Module } from '@nestjs/common';
import { OutboxCoreModule } from '../outbox/outbox-core.module';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryLogStore } from './delivery-log.store';
import { EndpointToolsService } from './endpoint-tools.service';
import { EndpointsController } from './endpoints.controller';
import { EndpointsService } from './endpoints.service';
import { NameResolver, nameResolverProvider } from './name-resolver';
import { WebhookSender } from './webhook-sender';
import { WebhookChannel } from './webhook.channel';

/**
 * Webhook endpoints and their deliveries as the API, the dashboard and the CLI manage them, over
 * the outbox's core; the own-server channel (registered with the core) and the HTTP sender and
 * name resolver it shares with the chat channels.
 */
@Module({
  imports: [OutboxCoreModule],
  controllers: [EndpointsController, DeliveriesController],
  providers: [EndpointsService, DeliveriesService, DeliveryLogStore, nameResolverProvider, EndpointToolsService, WebhookSender, WebhookChannel],
  exports: [EndpointsService, EndpointToolsService, DeliveriesService, NameResolver, WebhookSender],
})
export class WebhooksModule {}
