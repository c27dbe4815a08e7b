import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Database, Tx } from '../database/sql';
import { CHAT_PACE_MS, Outcome } from './channel';
import { DeliveriesStore } from './deliveries.store';
import { EndpointsStore } from './endpoints.store';

/** An email for the outbox to send, as the feature that asks for it makes it. */
export interface EmailToQueue {
  workspaceId: string;
  /** Its id, when the body was sealed for it (`randomUUID()` otherwise). */
  id?: string;
  recipient: string;
  /** What it is about (a sign-in's id). */
  eventId: string;
  eventType: string;
  body: string;
}

/** An endpoint's test, made outside the outbox: one attempt, sent already. */
export interface EndpointTest {
  workspaceId: string;
  id: string;
  endpointId: string;
  /** Slack or Discord: the channel's pace holds after a test too. */
  chat: boolean;
  createdAt: Date;
  body: string;
  at: Date;
  outcome: Outcome;
}

/**
 * The outbox's deliveries, as other features reach them: an email queued with its NOTIFY, a
 * delivery sent again, an endpoint's failures recovered, a test written down.
 */
@Injectable()
export class OutboxDeliveries {
  constructor(
    private readonly db: Database,
    private readonly deliveries: DeliveriesStore,
    private readonly endpoints: EndpointsStore,
  ) {}

  /**
   * Queues an email in the transaction `tx` (the one that makes what it carries), due at once;
   * the processors are woken at commit. Answers its id.
   */
  queueEmail(tx: Tx, email: EmailToQueue): string {
    const id = email.id ?? randomUUID();
    this.deliveries.queueEmail(tx, { ...email, id });
    return id;
  }

  /**
   * Queues emails in the transaction `tx` in one statement (a batch of a changelog entry's
   * emails, say), due at once; the processors are woken at commit.
   */
  queueEmails(tx: Tx, emails: EmailToQueue[]): void {
    if (emails.length === 0) return;
    const at = new Date();
    this.deliveries.insertMany(
      tx,
      emails.map((email) => ({
        workspace_id: email.workspaceId,
        id: email.id ?? randomUUID(),
        endpoint_id: null,
        recipient: email.recipient,
        event_id: email.eventId,
        event_type: email.eventType,
        event_created_at: at,
        body: email.body,
      })),
    );
    for (const workspaceId of new Set(emails.map((email) => email.workspaceId))) this.deliveries.wake(tx, workspaceId);
  }

  /**
   * Sends a delivery again now, whatever became of it: one more attempt (if it fails and the
   * retry schedule is used up, it ends `failed` again). Refused while its endpoint is off.
   */
  async retry(workspaceId: string, id: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const row = await this.deliveries.lockForRetry(tx, workspaceId, id);
      if (!row) throw AppError.notFound('delivery'); // its endpoint just deleted
      if (row.enabled === false) {
        throw new AppError('conflict', 'The endpoint is turned off; turn it on before retrying its deliveries.');
      }
      this.deliveries.retry(tx, workspaceId, id);
      this.deliveries.wake(tx, workspaceId);
    });
  }

  /**
   * Schedules again, now, every delivery of the endpoint that ended `failed` since `since`,
   * tests excepted; refused while the endpoint is off. Answers how many.
   */
  recover(workspaceId: string, endpointId: string, since: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      if (!(await this.endpoints.enabledHeld(tx, workspaceId, endpointId))) {
        throw new AppError('conflict', 'The endpoint is turned off; turn it on before recovering its deliveries.');
      }
      const scheduled = await this.deliveries.recover(tx, workspaceId, endpointId, since);
      if (scheduled > 0) this.deliveries.wake(tx, workspaceId);
      return scheduled;
    });
  }

  /** Writes down an endpoint's test: its delivery, its attempt, and a chat channel's pace. */
  async recordTest(test: EndpointTest): Promise<void> {
    await this.db.transaction(async (tx) => {
      this.deliveries.recordTest(
        tx,
        { workspaceId: test.workspaceId, id: test.id, endpointId: test.endpointId, createdAt: test.createdAt, body: test.body, ok: test.outcome.ok },
        { workspaceId: test.workspaceId, deliveryId: test.id, at: test.at, outcome: test.outcome },
      );
      if (test.chat) {
        this.endpoints.pace(tx, test.workspaceId, test.endpointId, new Date(test.at.getTime() + test.outcome.durationMs + CHAT_PACE_MS));
      }
    });
  }
}
