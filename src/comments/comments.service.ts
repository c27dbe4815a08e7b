import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppError } from '../common/app-error';
import { Actor, PostsService, Reader } from '../posts/posts.service';
import { EventsService } from '../webhooks/events.service';
import { COMMENT_SELECT, CommentResponse, CommentRow, toCommentResponse } from './comment.mapper';
import { CommentEntity } from './comment.entity';

@Injectable()
export class CommentsService {
  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly posts: PostsService,
    private readonly events: EventsService,
  ) {}

  /** All comments of a post, oldest first. */
  async list(actor: Reader, postId: number): Promise<CommentResponse[]> {
    const exists: unknown[] = await this.db.query(`SELECT 1 FROM posts WHERE workspace_id = $1 AND id = $2`, [
      actor.workspaceId,
      postId,
    ]);
    if (exists.length === 0) throw AppError.notFound('post');
    const rows: CommentRow[] = await this.db.query(
      `${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.post_id = $2 ORDER BY c.created_at, c.id`,
      [actor.workspaceId, postId],
    );
    return rows.map(toCommentResponse);
  }

  /**
   * Adds a comment and counts it on the post, with `comment.created`. Written by the actor
   * as an official reply unless another author is named (the seed's end users).
   */
  async create(
    actor: Actor,
    postId: number,
    input: { body: string; authorId?: string },
  ): Promise<CommentResponse> {
    const authorId = input.authorId ?? actor.personId;
    const official = input.authorId === undefined;
    return this.db.transaction(async (manager) => {
      const [, counted] = await manager.query(
        `UPDATE posts SET comments_count = comments_count + 1 WHERE workspace_id = $1 AND id = $2`,
        [actor.workspaceId, postId],
      );
      if (counted === 0) throw AppError.notFound('post');
      const saved = await manager
        .getRepository(CommentEntity)
        .save({ workspaceId: actor.workspaceId, postId, authorId, body: input.body, official });
      const rows: CommentRow[] = await manager.query(`${COMMENT_SELECT} WHERE c.workspace_id = $1 AND c.id = $2`, [
        actor.workspaceId,
        saved.id,
      ]);
      const comment = toCommentResponse(rows[0]);
      const post = await this.posts.get(actor, postId, manager);
      await this.events.record(manager, actor.workspaceId, 'comment.created', { post, comment }, authorId);
      return comment;
    });
  }
}
