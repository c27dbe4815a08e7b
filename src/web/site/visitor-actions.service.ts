import { Injectable } from '@nestjs/common';
import { CreateCommentDto } from '../../comments/dto/create-comment.dto';
import { CommentResponse } from '../../comments/comment.mapper';
import { CommentsService } from '../../comments/comments.service';
import { validateForm } from '../../common/validation';
import { CreatePostDto } from '../../posts/dto/create-post.dto';
import type { PostResponse, SimilarPostResponse } from '../../posts/post.mapper';
import { PostsService } from '../../posts/posts.service';
import { rateLimited, wholeSeconds } from '../../rate-limit/rate-limit.headers';
import { RateLimitCounters } from '../../rate-limit/counters';
import type { BoardEntity } from '../../boards/board.entity';
import { actorOf, readerOf, SiteContext } from './site-context';

/** What one visitor may do in an hour. */
export const VISITOR_LIMITS = { posts: 10, comments: 60 } as const;
const HOUR_MS = 60 * 60 * 1000;

export type Outcome<T> = { done: T } | { errors: Record<string, string> };

/**
 * What a signed-in visitor does on the public site, through the services the API acts with:
 * the same validation, records and events (`post.voted`, `post.created`, `comment.created`,
 * with the visitor as the actor; held ones, per the workspace's moderation, send `post.pending` or
 * `comment.pending` instead). Beyond the API's rules only the per-person limits: 10 posts
 * and 60 comments an hour, across instances.
 */
@Injectable()
export class VisitorActionsService {
  constructor(
    private readonly posts: PostsService,
    private readonly comments: CommentsService,
    private readonly limits: RateLimitCounters,
  ) {}

  /** Adds the visitor's vote, or takes it back (never on a merged post: SiteService.actionablePost). */
  async vote(site: SiteContext, post: PostResponse, add: boolean): Promise<void> {
    if (add) await this.posts.addVote(actorOf(site), post.id);
    else await this.posts.removeVote(actorOf(site), post.id);
  }

  /**
   * Posts what the form holds, unless its title is like posts of the board and the visitor has
   * not seen them yet (`similar=seen`, sent by the "Similar posts" page's "Post anyway"): then
   * those posts, and nothing is posted or counted against the hourly limit.
   */
  async post(site: SiteContext, board: BoardEntity, form: Record<string, unknown>): Promise<Outcome<PostResponse> | { similar: SimilarPostResponse[] }> {
    const checked = await validateForm(CreatePostDto, { ...form, board: board.slug }, ['board', 'title', 'body', 'category']);
    if ('errors' in checked) return checked;
    if (form.similar !== 'seen') {
      const similar = await this.posts.similar(readerOf(site), { board: { id: board.id }, title: checked.value.title });
      if (similar.length > 0) return { similar };
    }
    await this.withinLimit(site, 'posts', `You can post ${VISITOR_LIMITS.posts} times an hour.`);
    const { title, body, category } = checked.value;
    return { done: await this.posts.create(actorOf(site), { board: board.slug, title, body, category }, { visitor: true }) };
  }

  async comment(site: SiteContext, post: PostResponse, form: Record<string, unknown>): Promise<Outcome<CommentResponse>> {
    const checked = await validateForm(CreateCommentDto, form, ['body']);
    if ('errors' in checked) return checked;
    await this.withinLimit(site, 'comments', `You can comment ${VISITOR_LIMITS.comments} times an hour.`);
    return { done: await this.comments.create(actorOf(site), post.id, { body: checked.value.body, authorId: site.visitor!.personId, visitor: true }) };
  }

  private async withinLimit(site: SiteContext, what: keyof typeof VISITOR_LIMITS, message: string): Promise<void> {
    const tally = await this.limits.take(`site:${what}:${site.workspace.id}:${site.visitor!.personId}`, VISITOR_LIMITS[what], HOUR_MS);
    if (!tally.allowed) throw rateLimited(wholeSeconds(tally.resetInMs), message);
  }
}
