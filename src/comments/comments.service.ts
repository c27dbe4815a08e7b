import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Database, Tx } from '../database/sql';
import { EventsStore } from '../outbox/events.store';
import type { ModerationState } from '../posts/post.entity';
import { Actor, PostsService, Reader } from '../posts/posts.service';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { CommentResponse, toCommentResponse } from './comment.mapper';
import { CommentsStore, ImportedComment } from './comments.store';

@Injectable()
export class CommentsService {
  constructor(
    private readonly db: Database,
    private readonly store: CommentsStore,
    private readonly posts: PostsService,
    private readonly events: EventsStore,
    private readonly workspaces: WorkspacesService,
  ) {}

  /**
   * A post's approved comments, oldest first; with `viewerId` (a visitor on the public site),
   * that person's own held ones too, where they wrote them.
   */
  async list(actor: Reader, postId: number, viewerId?: string): Promise<CommentResponse[]> {
    await this.posts.mustExist(actor, postId);
    return (await this.store.list(actor.workspaceId, postId, viewerId ?? null)).map(toCommentResponse);
  }

  /** One comment, whatever its moderation (the team's). */
  async get(actor: Reader, id: number): Promise<CommentResponse> {
    const row = await this.store.get(this.db, actor.workspaceId, id);
    if (!row) throw AppError.notFound('comment');
    return toCommentResponse(row);
  }

  /**
   * Adds a comment and counts it on the post, with `comment.created`. Written by the actor
   * as an official reply unless another author is named (the seed's end users).
   *
   * A visitor's comment (`visitor`: the public site and the widget) is held when the workspace's
   * moderation says so: `pending`, on no count, with `comment.pending` instead. A comment on a
   * post that is itself held or rejected sends nothing.
   */
  async create(actor: Actor, postId: number, input: { body: string; authorId?: string; visitor?: boolean }): Promise<CommentResponse> {
    const authorId = input.authorId ?? actor.personId;
    const official = input.authorId === undefined;
    return this.db.transaction(async (tx) => {
      const held = input.visitor === true && (await this.workspaces.holds(tx, actor.workspaceId, authorId));
      if (held) await this.posts.get(actor, postId, tx); // 404 before anything
      else await this.posts.countComment(tx, actor, postId);
      const moderation: ModerationState = held ? 'pending' : 'approved';
      const comment = toCommentResponse(await this.store.create(tx, actor.workspaceId, { postId, authorId, body: input.body, official, moderation }));
      const post = await this.posts.get(actor, postId, tx);
      if (!held && input.authorId !== undefined) this.workspaces.markApproved(tx, actor.workspaceId, [authorId]);
      if (held) await this.events.record(tx, actor.workspaceId, 'comment.pending', { post, comment }, authorId);
      else if (post.moderation === 'approved') await this.events.record(tx, actor.workspaceId, 'comment.created', { post, comment }, authorId);
      else this.events.announceSiteChange(tx, actor.workspaceId);
      return comment;
    });
  }

  /**
   * Approves, holds or rejects a comment, from any state. Approving counts it on its post and
   * sends `comment.created` then; leaving `approved` takes it off the count. The same state
   * again changes nothing and sends nothing.
   */
  async setModeration(actor: Actor, id: number, to: ModerationState): Promise<CommentResponse> {
    return this.db.transaction(async (tx) => {
      const locked = await this.store.lock(tx, actor.workspaceId, id);
      if (!locked) throw AppError.notFound('comment');
      if (locked.moderation !== to) {
        this.store.setModeration(tx, actor.workspaceId, id, to);
        if (to === 'approved') await this.posts.countComment(tx, actor, locked.postId);
        else if (locked.moderation === 'approved') this.posts.uncountComment(tx, actor, locked.postId);
      }
      const comment = toCommentResponse((await this.store.get(tx, actor.workspaceId, id))!);
      if (locked.moderation === to) return comment;
      if (to === 'approved') {
        this.workspaces.markApproved(tx, actor.workspaceId, [locked.authorId]);
        const post = await this.posts.get(actor, locked.postId, tx);
        // On a post still held (or rejected) the comment shows when its post does: an event now would tell of the post.
        if (post.moderation === 'approved') await this.events.record(tx, actor.workspaceId, 'comment.created', { post, comment }, actor.personId);
      } else {
        this.events.announceSiteChange(tx, actor.workspaceId);
      }
      return comment;
    });
  }

  /** Rejects every held comment of a person (a blocked one), in the caller's transaction; answers their ids. Nothing is sent. */
  rejectPendingOf(tx: Tx, workspaceId: string, personId: string): Promise<number[]> {
    return this.store.rejectPendingOf(tx, workspaceId, personId);
  }

  /**
   * Comments brought in by an import, their times kept, in the importer's transaction; no event.
   * The importer counts the approved ones on their posts (PostsService.countImported). Answers their new ids.
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
