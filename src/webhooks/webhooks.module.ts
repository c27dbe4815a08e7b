import { HttpModule } from '@nestjs/axios';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DeliveriesController } from './deliveries.controller';
import { DeliveriesService } from './deliveries.service';
import { DeliveryAttemptEntity } from './delivery-attempt.entity';
import { EndpointToolsService } from './endpoint-tools.service';
import { EndpointsController } from './endpoints.controller';
import { EndpointsService } from './endpoints.service';
import { EventsService } from './events.service';
import { OutboxEventEntity } from './outbox-event.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { WebhookSender } from './webhook-sender';

/** Events, webhook endpoints and their deliveries: what the API and the CLI manage, and the sender that endpoint tests share with the outbox. */
@Module({
  imports: [
    TypeOrmModule.forFeature([OutboxEventEntity, WebhookEndpointEntity, WebhookDeliveryEntity, DeliveryAttemptEntity]),
    HttpModule,
  ],
  controllers: [EndpointsController, DeliveriesController],
  providers: [EventsService, EndpointsService, DeliveriesService, EndpointToolsService, WebhookSender],
  exports: [EventsService, EndpointsService, DeliveriesService, WebhookSender],
})
export class WebhooksModule {}
