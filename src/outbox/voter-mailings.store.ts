import { Injectable } from '@nestjs/common';
import { Database, statement, Tx } from '../database/sql';

/** A status change whose voter emails are being made: where its batches stand. */
export interface VoterMailingRow {
  workspace_id: string;
  event_id: string;
  event_type: string;
  event_created_at: Date;
  post_id: string;
  board_id: string;
  actor_id: string | null;
  /** The event's data (PostStatusChangedData), as the event had it. */
  data: string;
  /** The last address queued (keyset); '' before the first batch. */
  mail_after: string;
}

/**
 * `voter_mailings`: one row per status change whose voters are still being emailed (fan-out
 * makes it with the event's dispatch; the processor makes the emails in batches and deletes it
 * with the last one).
 */
@Injectable()
export class VoterMailingsStore {
  private static readonly INSERT = statement(
    'voter_mailing_insert',
    `INSERT INTO voter_mailings (workspace_id, event_id, event_type, event_created_at, post_id, board_id, actor_id, data, mail_after)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
  );
  private static readonly LIST = statement(
    'voter_mailing_list',
    `SELECT workspace_id, event_id
       FROM (SELECT workspace_id, event_id, created_at,
                    row_number() OVER (PARTITION BY workspace_id ORDER BY created_at) AS turn
               FROM voter_mailings) m
      ORDER BY turn, created_at LIMIT $1`,
  );
  private static readonly LOCK = statement(
    'voter_mailing_lock',
    `SELECT workspace_id, event_id, event_type, event_created_at, post_id::text, board_id, actor_id, data, mail_after
       FROM voter_mailings WHERE workspace_id = $1 AND event_id = $2
        FOR UPDATE SKIP LOCKED`,
  );
  private static readonly ADVANCE = statement(
    'voter_mailing_advance',
    `UPDATE voter_mailings SET mail_after = $3 WHERE workspace_id = $1 AND event_id = $2`,
  );
  private static readonly DONE = statement(
    'voter_mailing_done',
    `DELETE FROM voter_mailings WHERE workspace_id = $1 AND event_id = $2`,
  );

  constructor(private readonly db: Database) {}

  insert(tx: Tx, row: VoterMailingRow): void {
    tx.send(VoterMailingsStore.INSERT, [
      row.workspace_id,
      row.event_id,
      row.event_type,
      row.event_created_at,
      row.post_id,
      row.board_id,
      row.actor_id,
      row.data,
      row.mail_after,
    ]);
  }

  /** Mailings under way, of every workspace: each workspace's oldest first, then their second ones…, so that one workspace's many do not fill the list. */
  list(limit: number): Promise<{ workspace_id: string; event_id: string }[]> {
    return this.db.rows(VoterMailingsStore.LIST, [limit]);
  }

  /** The mailing, locked (undefined: done, or another processor has it). */
  async lock(tx: Tx, workspaceId: string, eventId: string): Promise<VoterMailingRow | undefined> {
    const [row] = await tx.rows<VoterMailingRow>(VoterMailingsStore.LOCK, [workspaceId, eventId]);
    return row;
  }

  /** Where the batches stand: the last address queued, or null when done (the row goes). */
  mailed(tx: Tx, workspaceId: string, eventId: string, after: string | null): void {
    if (after === null) tx.send(VoterMailingsStore.DONE, [workspaceId, eventId]);
    else tx.send(VoterMailingsStore.ADVANCE, [workspaceId, eventId, after]);
  }
}
