import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { EndpointsController } from './endpoints.controller';
import { EndpointsService } from './endpoints.service';
import { EventsService } from './events.service';
import { OutboxEventEntity } from './outbox-event.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

/** Events, webhook endpoints and their deliveries: what the API and the CLI manage. */
@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity, WebhookEndpointEntity, WebhookDeliveryEntity, DeliveryAttemptEntity])],
  controllers: [EndpointsController, DeliveriesController],
  providers: [EventsService, EndpointsService, DeliveriesService],
  exports: [EventsService, EndpointsService, DeliveriesService],
})
export class WebhooksModule {}
