import { Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import type { EventType } from './outbox-event.entity';

/** The channel on which committed events wake the outbox processors. */
export const OUTBOX_CHANNEL = 'chorus_outbox';

/**
 * Records events in the caller's transaction: the event exists exactly when the change does,
 * and the NOTIFY that wakes the processors is delivered at commit.
 */
@Injectable()
export class EventsService {
  async record(
    manager: EntityManager,
    workspaceId: string,
    type: EventType,
    data: Record<string, unknown>,
    actorId: string | null = null,
  ): Promise<void> {
    await manager.query(`INSERT INTO outbox_events (workspace_id, type, data, actor_id) VALUES ($1, $2, $3, $4)`, [
      workspaceId,
      type,
      JSON.stringify(data),
      actorId,
    ]);
    await manager.query(`SELECT pg_notify($1, '')`, [OUTBOX_CHANNEL]);
  }
}
