import { Module } from '@nestjs/common';
import { byEngine } from '../database/engine';
import { CitusEventsStore, EventsStore } from './events.store';

/** The outbox's core, which the features write events through. */
@Module({
  providers: [...byEngine(EventsStore, { postgres: EventsStore, citus: CitusEventsStore })],
  exports: [EventsStore],
})
export class OutboxCoreModule {}
