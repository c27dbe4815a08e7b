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
            (SELECT count(*) FROM posts p WHERE p.workspace_id = b.workspace_id AND p.board_id = b.id AND p.merged_into_id IS NULL)::integer AS posts
       FROM boards b WHERE b.workspace_id = $1 AND b.public ORDER BY b.created_at, b.slug`,
  ),
  bySlug: statement('board_by_slug', `SELECT ${BOARD} FROM boards WHERE workspace_id = $1 AND slug = $2`),
  lockBySlug: statement('board_lock_by_slug', `SELECT ${BOARD} FROM boards WHERE workspace_id = $1 AND slug = $2 FOR UPDATE`),
  insert: statement(
    'board_insert',
    `INSERT INTO boards (workspace_id, slug, name, description, public, notify_voters) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${BOARD}`,
  ),
  update: statement(
    'board_update',
    `UPDATE boards SET slug = $3, name = $4, description = $5, public = $6, notify_voters = $7
      WHERE workspace_id = $1 AND id = $2 RETURNING ${BOARD}`,
  ),
};

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

  async update(tx: Tx, board: BoardEntity): Promise<BoardEntity> {
    const values = [board.workspaceId, board.id, board.slug, board.name, board.description, board.public, board.notifyVoters];
    return (await tx.rows<BoardEntity>(SQL.update, values))[0];
  }
}
