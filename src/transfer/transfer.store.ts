import { Injectable } from '@nestjs/common';
import { Queryable, statement, Tx } from '../database/sql';
import { ISO_TIMESTAMPS } from '../database/timestamps';
import type { PostRow } from '../posts/post.mapper';

/** What a record of a source became here: `imported_records.kind`. */
export type RecordKind = 'board' | 'person' | 'post' | 'comment' | 'changelog_entry';

export interface ExportedBoardRow {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  public: boolean;
  notify_voters: boolean;
  created_at: Date;
}

export interface ExportedPersonRow {
  id: string;
  name: string;
  email: string | null;
  kind: string;
  unsubscribed: boolean;
  created_at: Date;
}
import type { ModerationState } from '../posts/post.entity';

/** A post as the API reads it (PostRow), with the author's id. */
export interface ExportedPostRow extends PostRow {
  author_id: string;
}

export interface ExportedVoteRow {
  post_id: string;
  person_id: string;
  created_at: Date;
}

/** As CommentRow (comments/comment.mapper.ts), with the author's id. */
export interface ExportedCommentRow {
  id: string;
  post_id: string;
  body: string;
  official: boolean;
  moderation: ModerationState;
  author_id: string;
  author_name: string;
  created_at: Date;
}

/**
 * Export reads walk a workspace in primary-key order, a page at a time from the last key read
 * (keyset), so that each page is an index range scan and memory holds one page whatever the
 * workspace's size. Every statement names the workspace ($1): one shard's statement on Citus.
 */
const SQL = {
  boards: statement(
    'transfer_boards',
    `SELECT id, slug, name, description, public, notify_voters, created_at FROM boards
      WHERE workspace_id = $1 AND id > $2::uuid ORDER BY id LIMIT $3`,
  ),
  people: statement(
    'transfer_people',
    `SELECT id, name, email, kind, email_unsubscribed_at IS NOT NULL AS unsubscribed, created_at FROM people
      WHERE workspace_id = $1 AND id > $2::uuid ORDER BY id LIMIT $3`,
  ),
  posts: statement(
    'transfer_posts',
    `SELECT p.id, p.title, p.body, p.category, p.status, p.votes, p.comments_count, p.pinned, p.moderation, p.created_at, p.updated_at,
            b.id AS board_id, b.slug AS board_slug, b.name AS board_name,
            p.author_id, (SELECT a.name FROM people a WHERE a.workspace_id = $1 AND a.id = p.author_id) AS author_name,
            m.id AS merged_id, m.title AS merged_title, mb.slug AS merged_board_slug
       FROM (SELECT * FROM posts WHERE workspace_id = $1 AND id > $2 ORDER BY id LIMIT $3) p
       JOIN boards b ON b.workspace_id = $1 AND b.id = p.board_id
       LEFT JOIN posts m ON m.workspace_id = $1 AND m.id = p.merged_into_id
       LEFT JOIN boards mb ON mb.workspace_id = $1 AND mb.id = m.board_id
      ORDER BY p.id`,
    ISO_TIMESTAMPS,
  ),
  votes: statement(
    'transfer_votes',
    `SELECT post_id, person_id, created_at FROM votes
      WHERE workspace_id = $1 AND (post_id, person_id) > ($2::bigint, $3::uuid) ORDER BY post_id, person_id LIMIT $4`,
  ),
  comments: statement(
    'transfer_comments',
    `SELECT c.id, c.post_id, c.body, c.official, c.moderation, c.author_id, a.name AS author_name, c.created_at
       FROM (SELECT * FROM comments WHERE workspace_id = $1 AND id > $2 ORDER BY id LIMIT $3) c
       JOIN people a ON a.workspace_id = $1 AND a.id = c.author_id
      ORDER BY c.id`,
  ),
  // One look-up by the whole key per source key: with `source_key = ANY ($4)` the generic plan
  // read every record of the source and kind and filtered them (seconds at 100,000 records).
  known: statement(
    'transfer_known',
    `SELECT k.source_key, (SELECT r.target_id FROM imported_records r
                             WHERE r.workspace_id = $1 AND r.source = $2 AND r.kind = $3 AND r.source_key = k.source_key) AS target_id
       FROM unnest($4::text[]) AS k(source_key)`,
  ),
  remember: statement(
    'transfer_remember',
    `INSERT INTO imported_records (workspace_id, source, kind, source_key, target_id)
     SELECT $1, $2, $3, r.source_key, r.target_id FROM unnest($4::text[], $5::text[]) AS r(source_key, target_id)
     ON CONFLICT DO NOTHING`,
  ),
};

/** The smallest UUID: where a walk by id starts. */
const FIRST_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * The imported_records table (what each import brought in, by source record), and the export's
 * reads of the workspace's boards, people, posts, votes and comments.
 */
@Injectable()
export class TransferStore {
  /** The records of a source already imported into the workspace, among `keys`: target id by source key. */
  async known(q: Queryable, workspaceId: string, source: string, kind: RecordKind, keys: string[]): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const rows = await q.rows<{ source_key: string; target_id: string | null }>(SQL.known, [workspaceId, source, kind, keys]);
    return new Map(rows.filter((row) => row.target_id !== null).map((row) => [row.source_key, row.target_id!]));
  }

  /** Remembers what records of a source became, so that importing them again adds nothing. */
  remember(tx: Tx, workspaceId: string, source: string, kind: RecordKind, records: { key: string; targetId: string }[]): void {
    if (records.length === 0) return;
    tx.send(SQL.remember, [workspaceId, source, kind, records.map((r) => r.key), records.map((r) => r.targetId)]);
  }

  boards(q: Queryable, workspaceId: string, after: string | null, limit: number): Promise<ExportedBoardRow[]> {
    return q.rows(SQL.boards, [workspaceId, after ?? FIRST_UUID, limit]);
  }

  people(q: Queryable, workspaceId: string, after: string | null, limit: number): Promise<ExportedPersonRow[]> {
    return q.rows(SQL.people, [workspaceId, after ?? FIRST_UUID, limit]);
  }

  posts(q: Queryable, workspaceId: string, after: string | null, limit: number): Promise<ExportedPostRow[]> {
    return q.rows(SQL.posts, [workspaceId, after ?? '0', limit]);
  }

  votes(q: Queryable, workspaceId: string, after: ExportedVoteRow | null, limit: number): Promise<ExportedVoteRow[]> {
    return q.rows(SQL.votes, [workspaceId, after?.post_id ?? '0', after?.person_id ?? FIRST_UUID, limit]);
  }

  comments(q: Queryable, workspaceId: string, after: string | null, limit: number): Promise<ExportedCommentRow[]> {
    return q.rows(SQL.comments, [workspaceId, after ?? '0', limit]);
  }
}
