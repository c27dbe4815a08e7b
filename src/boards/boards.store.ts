import { Injectable } from '@nestjs/common';
import { Database, Queryable, statement, Tx } from '../database/sql';
import type { BoardEntity } from './board.entity';

/** A board's columns as BoardEntity names them, of the table as `t` (none: unqualified). */
const columns = (t = '') =>
  `${t}workspace_id AS "workspaceId", ${t}id, ${t}slug, ${t}name, ${t}description, ${t}public, ${t}notify_voters AS "notifyVoters", ${t}created_at AS "createdAt"`;
const BOARD = columns();

const SQL = {
  list: statement('board_list', `SELECT ${BOARD} FROM boards WHERE workspace_id = $1 ORDER BY created_at, slug`),
  listPublic: statement(
    'board_list_public',
    `SELECT ${columns('b.')},
            (SELECT count(*) FROM posts p WHERE p.workspace_id = b.workspace_id AND p.board_id = b.id AND p.merged_into_id IS NULL
                                  AND p.moderation = 'approved')::integer AS posts
       FROM boards b WHERE b.workspace_id = $1 AND b.public ORDER BY b.created_at, b.slug`,
  ),
  bySlug: statement('board_by_slug', `SELECT ${BOARD} FROM boards WHERE workspace_id = $1 AND slug = $2`),
  lockBySlug: statement('board_lock_by_slug', `SELECT ${BOARD} FROM boards WHERE workspace_id = $1 AND slug = $2 FOR UPDATE`),
  insert: statement(
    'board_insert',
    `INSERT INTO boards (workspace_id, slug, name, description, public, notify_voters) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${BOARD}`,
  ),
  idsBySlugs: statement('board_ids_by_slugs', `SELECT id, slug FROM boards WHERE workspace_id = $1 AND slug = ANY ($2::text[])`),
  importBoards: statement(
    'board_import',
    `INSERT INTO boards (workspace_id, id, slug, name, description, public, notify_voters, created_at)
     SELECT $1, r.id, r.slug, r.name, r.description, r.public, r.notify_voters, coalesce(r.created_at, now())
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::boolean[], $8::timestamptz[])
         AS r(id, slug, name, description, public, notify_voters, created_at)
     ON CONFLICT (workspace_id, slug) DO NOTHING
     RETURNING id`,
  ),
  update: statement(
    'board_update',
    `UPDATE boards SET slug = $3, name = $4, description = $5, public = $6, notify_voters = $7
      WHERE workspace_id = $1 AND id = $2 RETURNING ${BOARD}`,
  ),
};

/** A board an import brings (its time as ISO 8601, none: now). */
export interface ImportedBoard {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  public: boolean;
  notifyVoters: boolean;
  createdAt: string | null;
}

/** The boards table. */
@Injectable()
export class BoardsStore {
  constructor(private readonly db: Database) {}

  list(workspaceId: string): Promise<BoardEntity[]> {
    return this.db.rows<BoardEntity>(SQL.list, [workspaceId]);
  }

  /** The public boards, with how many posts each shows (merged ones left out). */
  listPublic(workspaceId: string): Promise<(BoardEntity & { posts: number })[]> {
    return this.db.rows(SQL.listPublic, [workspaceId]);
  }

  async bySlug(q: Queryable, workspaceId: string, slug: string): Promise<BoardEntity | undefined> {
    return (await q.rows<BoardEntity>(SQL.bySlug, [workspaceId, slug]))[0];
  }

  async lockBySlug(tx: Tx, workspaceId: string, slug: string): Promise<BoardEntity | undefined> {
    return (await tx.rows<BoardEntity>(SQL.lockBySlug, [workspaceId, slug]))[0];
  }

  async insert(tx: Tx, board: Omit<BoardEntity, 'id' | 'createdAt'>): Promise<BoardEntity> {
    const values = [board.workspaceId, board.slug, board.name, board.description, board.public, board.notifyVoters];
    return (await tx.rows<BoardEntity>(SQL.insert, values))[0];
  }

  /** The ids of the workspace's boards with these slugs, by slug. */
  async idsBySlugs(q: Queryable, workspaceId: string, slugs: string[]): Promise<Map<string, string>> {
    const rows = await q.rows<{ id: string; slug: string }>(SQL.idsBySlugs, [workspaceId, slugs]);
    return new Map(rows.map((row) => [row.slug, row.id]));
  }

  /**
   * Brings boards in from elsewhere (an import), in one statement, with the ids given and their
   * times kept; one whose slug is taken is left out. Answers the ids inserted.
   */
  async importBoards(tx: Tx, workspaceId: string, boards: ImportedBoard[]): Promise<Set<string>> {
    const rows = await tx.rows<{ id: string }>(SQL.importBoards, [
      workspaceId,
      boards.map((b) => b.id),
      boards.map((b) => b.slug),
      boards.map((b) => b.name),
      boards.map((b) => b.description),
      boards.map((b) => b.public),
      boards.map((b) => b.notifyVoters),
      boards.map((b) => b.createdAt),
    ]);
    return new Set(rows.map((row) => row.id));
  }

  async update(tx: Tx, board: BoardEntity): Promise<BoardEntity> {
    const values = [board.workspaceId, board.id, board.slug, board.name, board.description, board.public, board.notifyVoters];
    return (await tx.rows<BoardEntity>(SQL.update, values))[0];
  }
}
