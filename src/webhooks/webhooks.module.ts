import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { EndpointToolsService } from './endpoint-tools.service';
import { EndpointsController } from './endpoints.controller';
import { EndpointsService } from './endpoints.service';
import { NameResolver, nameResolverProvider } from './name-resolver';
import { OutboxEventEntity } from './outbox-event.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookSender } from './webhook-sender';
import { WebhookChannel } from './webhook.channel';
import { DiscordChannel, SlackChannel } from '../notifications/chat.channels';
import { Quota } from '../outbox/quota';

/** Events, webhook endpoints and their deliveries: what the API and the CLI manage; the name resolver their checks share with the outbox. */
@Module({
  imports: [
    TypeOrmModule.forFeature([OutboxEventEntity, WebhookEndpointEntity, WebhookDeliveryEntity, DeliveryAttemptEntity]),
  ],
  controllers: [EndpointsController, DeliveriesController],
  // Endpoint tests send through the outbox's channels and count against its quota: one instance
  // of each, which the outbox takes from here.
  providers: [
    EndpointsService,
    DeliveriesService,
    nameResolverProvider,
    EndpointToolsService,
    WebhookSender,
    WebhookChannel,
    SlackChannel,
    DiscordChannel,
    Quota,
  ],
  exports: [
    EndpointsService,
    EndpointToolsService,
    DeliveriesService,
    NameResolver,
    WebhookSender,
    WebhookChannel,
    SlackChannel,
    DiscordChannel,
    Quota,
  ],
})
export class WebhooksModule {}
