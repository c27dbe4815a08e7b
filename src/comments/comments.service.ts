import { Injectable } from '@nestjs/common';
import { Database, Tx } from '../database/sql';
import { EventsStore } from '../outbox/events.store';
import { Actor, PostsService, Reader } from '../posts/posts.service';
import { CommentResponse, toCommentResponse } from './comment.mapper';
import { CommentsStore, ImportedComment } from './comments.store';

@Injectable()
export class CommentsService {
  constructor(
    private readonly db: Database,
    private readonly store: CommentsStore,
    private readonly posts: PostsService,
    private readonly events: EventsStore,
  ) {}

  /** All comments of a post, oldest first. */
  async list(actor: Reader, postId: number): Promise<CommentResponse[]> {
    await this.posts.mustExist(actor, postId);
    return (await this.store.list(actor.workspaceId, postId)).map(toCommentResponse);
  }

  /**
   * Adds a comment and counts it on the post, with `comment.created`. Written by the actor
   * as an official reply unless another author is named (the seed's end users).
   */
  async create(actor: Actor, postId: number, input: { body: string; authorId?: string }): Promise<CommentResponse> {
    const authorId = input.authorId ?? actor.personId;
    const official = input.authorId === undefined;
    return this.db.transaction(async (tx) => {
      await this.posts.countComment(tx, actor, postId);
      const comment = toCommentResponse(await this.store.create(tx, actor.workspaceId, { postId, authorId, body: input.body, official }));
      const post = await this.posts.get(actor, postId, tx);
      await this.events.record(tx, actor.workspaceId, 'comment.created', { post, comment }, authorId);
      return comment;
    });
  }

  /**
   * Comments brought in by an import, their times kept, in the importer's transaction; no event.
   * The importer counts them on their posts (PostsService.countImported). Answers their new ids.
   */
  importComments(tx: Tx, workspaceId: string, comments: ImportedComment[]): Promise<number[]> {
    return this.store.importComments(tx, workspaceId, comments);
  }

  /** Makes the session's table where an import's comments wait (importStagedComments), dropped at commit. */
  stageImports(tx: Tx): void {
    this.store.stageImports(tx);
  }

  /**
   * Comments on posts an import holds back (PostsService.importPosts), held back with them until
   * settleImported, which the importer calls after the posts' own. Answers their new ids.
   */
  importStagedComments(tx: Tx, comments: ImportedComment[]): Promise<number[]> {
    return this.store.importStagedComments(tx, comments);
  }

  /** Writes the comments importStagedComments holds on posts with ids in [from, to) (to null: all), their posts written first. */
  settleImported(tx: Tx, workspaceId: string, from: number, to: number | null): void {
    this.store.settleImported(tx, workspaceId, from, to);
  }
}
