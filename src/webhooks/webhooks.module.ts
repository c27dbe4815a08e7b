import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { EndpointsController } from './endpoints.controller';
import { EndpointsService } from './endpoints.service';
import { EventsService } from './events.service';
import { NameResolver, nameResolverProvider } from './name-resolver';
import { OutboxEventEntity } from './outbox-event.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** Events, webhook endpoints and their deliveries: what the API and the CLI manage; the name resolver their checks share with the outbox. */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity, WebhookEndpointEntity, WebhookDeliveryEntity, DeliveryAttemptEntity])],
  controllers: [EndpointsController, DeliveriesController],
  providers: [EventsService, EndpointsService, DeliveriesService, nameResolverProvider],
  exports: [EventsService, EndpointsService, DeliveriesService, NameResolver],
})
export class WebhooksModule {}
