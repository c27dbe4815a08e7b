import { Injectable } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';
import { CommentResponse } from '../comments/comment.mapper';
import { CommentsService } from '../comments/comments.service';
import { Page, pageOf } from '../common/page.query';
import { Database, Tx } from '../database/sql';
import { PostResponse } from '../posts/post.mapper';
import { Actor, PostsService, Reader } from '../posts/posts.service';
import { ModerationStore } from './moderation.store';

/** One item of the moderation queue: a held post, or a held comment with its post. */
@ApiSchema({ name: 'ModerationItem' })
export class ModerationItem {
  @ApiProperty({ enum: ['post', 'comment'] })
  kind!: 'post' | 'comment';

  @ApiProperty({ type: PostResponse, description: 'The held post, or the post the held comment is on.' })
  post!: PostResponse;

  @ApiPropertyOptional({ type: CommentResponse, description: 'Only for `kind: "comment"`: the held comment.' })
  comment?: CommentResponse;
}

export interface ModerationPage {
  data: ModerationItem[];
  has_more: boolean;
  next_offset: number | null;
}

/**
 * The team's side of moderation: the queue of held posts and comments, approving and rejecting
 * (through the posts' and comments' services, which send the events), and rejecting a person's
 * held items at once (a blocked person's).
 */
@Injectable()
export class ModerationService {
  constructor(
    private readonly db: Database,
    private readonly store: ModerationStore,
    private readonly posts: PostsService,
    private readonly comments: CommentsService,
  ) {}

  /** A page of the pending posts and comments, oldest first by creation. */
  async queue(reader: Reader, page: Page): Promise<ModerationPage> {
    const rows = await this.store.queue(reader.workspaceId, page);
    const postIds = [...new Set(rows.map((row) => Number(row.post_id)))];
    const [posts, comments] = await Promise.all([
      Promise.all(postIds.map((id) => this.posts.get(reader, id))),
      Promise.all(rows.filter((row) => row.comment_id !== null).map((row) => this.comments.get(reader, Number(row.comment_id)))),
    ]);
    const postById = new Map(posts.map((post) => [post.id, post]));
    const commentById = new Map(comments.map((comment) => [comment.id, comment]));
    const items: ModerationItem[] = rows.map((row) =>
      row.kind === 'post'
        ? { kind: 'post', post: postById.get(Number(row.post_id))! }
        : { kind: 'comment', post: postById.get(Number(row.post_id))!, comment: commentById.get(Number(row.comment_id))! },
    );
    return pageOf(items, page);
  }

  approvePost(actor: Actor, id: number): Promise<PostResponse> {
    return this.posts.setModeration(actor, id, 'approved');
  }

  rejectPost(actor: Actor, id: number): Promise<PostResponse> {
    return this.posts.setModeration(actor, id, 'rejected');
  }

  approveComment(actor: Actor, id: number): Promise<CommentResponse> {
    return this.comments.setModeration(actor, id, 'approved');
  }

  rejectComment(actor: Actor, id: number): Promise<CommentResponse> {
    return this.comments.setModeration(actor, id, 'rejected');
  }

  /**
   * Rejects every held post and comment of a person (a blocked one), in the caller's transaction
   * when given (blocking ends sessions in the same one), else in one of its own. Nothing is sent:
   * none of them was ever shown.
   */
  async rejectHeldOf(workspaceId: string, personId: string, tx?: Tx): Promise<{ posts: number[]; comments: number[] }> {
    const run = async (t: Tx) => {
      const [posts, comments] = await Promise.all([
        this.posts.rejectPendingOf(t, workspaceId, personId),
        this.comments.rejectPendingOf(t, workspaceId, personId),
      ]);
      return { posts, comments };
    };
    return tx ? run(tx) : this.db.transaction(run);
  }
}
