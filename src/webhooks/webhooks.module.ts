import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { EventsService } from './events.service';
import { OutboxEventEntity } from './outbox-event.entity';

@Module({
  imports: [TypeOrmModule.forFeature([OutboxEventEntity])],
  providers: [EventsService],
  exports: [EventsService],
})
export class WebhooksModule {}
