import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { BoardsService } from '../../boards/boards.service';
import { ChangelogService } from '../../changelog/changelog.service';
import { CommentsService } from '../../comments/comments.service';
import { CreateCommentDto } from '../../comments/dto/create-comment.dto';
import { AppError } from '../../common/app-error';
import { PostIdPipe } from '../../common/post-id.pipe';
import type { ChorusRequest } from '../../common/request-context';
import { FormQueryValidation, validateForm } from '../../common/validation';
import { ListPostsQuery } from '../../posts/dto/list-posts.query';
import { MergePostDto } from '../../posts/dto/merge-post.dto';
import { UpdatePostDto } from '../../posts/dto/update-post.dto';
import { PostsService } from '../../posts/posts.service';
import { DeliveriesService } from '../../webhooks/deliveries.service';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { memberActor } from './admin-context';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { adminPostPage, adminPostsPage, confirmPage, PostsQuery } from './views/posts';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };
const PAGE = 25;
const VOTERS = 100;

const NOTICES: Record<string, string> = {
  status: 'The status was changed.',
  reply: 'Your reply was posted.',
  merged: 'The post was merged.',
};

function search(query: PostsQuery): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.board) params.set('board', query.board);
  if (query.status) params.set('status', query.status);
  if (query.sort !== 'new') params.set('sort', query.sort);
  if (query.includeMerged) params.set('include_merged', 'true');
  if (query.offset > 0) params.set('offset', String(query.offset));
  const text = params.toString();
  return text ? `?${text}` : '';
}

/**
 * The team's side of posts: every post with the API list's filters, and the post at its
 * `admin_url`, where a member changes its status, replies and merges it, through the services the
 * API uses (the change is recorded as this member; the events, voter email and limits are the
 * API's).
 */
@PageController('admin', AdminGuard)
export class AdminPostsController {
  constructor(
    private readonly posts: PostsService,
    private readonly comments: CommentsService,
    private readonly boards: BoardsService,
    private readonly deliveries: DeliveriesService,
    private readonly paths: AdminPaths,
    private readonly changelog: ChangelogService,
  ) {}

  @Get()
  async list(@Req() req: ChorusRequest, @Query(FormQueryValidation) query: ListPostsQuery, @Query('done') done: unknown): Promise<Page> {
    const admin = req.admin!;
    const q: PostsQuery = {
      board: query.board || undefined,
      status: query.status,
      q: query.q || undefined,
      sort: query.sort ?? 'new',
      includeMerged: query.include_merged === 'true',
      offset: Number(query.offset ?? 0),
    };
    const [boards, page] = await Promise.all([
      this.boards.list(admin.workspace.id),
      this.posts.list(memberActor(admin), { ...q, limit: PAGE }),
    ]);
    const link = (offset: number) => this.paths.admin(`/admin${search({ ...q, offset })}`);
    const html = adminPostsPage(this.paths.frame(req), {
      boards,
      query: q,
      posts: page.data,
      prev: q.offset > 0 ? link(Math.max(0, q.offset - PAGE)) : null,
      next: page.has_more ? link(page.next_offset!) : null,
      notice: typeof done === 'string' ? (NOTICES[done] ?? null) : null,
    });
    return new Page(html, PRIVATE);
  }

  @Get('p/:id')
  async post(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number, @Query('done') done: unknown): Promise<Page> {
    return this.postPage(req, id, {}, typeof done === 'string' ? (NOTICES[done] ?? null) : null);
  }

  @Post('p/:id/status')
  @HttpCode(303)
  async setStatus(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number, @Body() form: Form): Promise<Page | Redirect> {
    const checked = await validateForm(UpdatePostDto, form, ['status']);
    if ('errors' in checked) return this.postPage(req, id, { status: { values: { status: form.status ?? '' }, errors: checked.errors } }, null, 400);
    await this.posts.setStatus(memberActor(req.admin!), id, checked.value.status);
    return new Redirect(this.paths.admin(`/admin/p/${id}?done=status`));
  }

  @Post('p/:id/reply')
  @HttpCode(303)
  async reply(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number, @Body() form: Form): Promise<Page | Redirect> {
    const checked = await validateForm(CreateCommentDto, form, ['body']);
    if ('errors' in checked) return this.postPage(req, id, { reply: { values: { body: form.body ?? '' }, errors: checked.errors } }, null, 400);
    const comment = await this.comments.create(memberActor(req.admin!), id, { body: checked.value.body });
    return new Redirect(this.paths.admin(`/admin/p/${id}?done=reply#comment-${comment.id}`));
  }

  /** Merging cannot be undone: the first post shows what will happen; the second, confirmed, merges. */
  @Post('p/:id/merge')
  @HttpCode(303)
  async merge(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number, @Body() form: Form): Promise<Page | Redirect> {
    const actor = memberActor(req.admin!);
    const typed = { into: form.into ?? '' };
    const into = /^\s*\d{1,16}\s*$/.test(typed.into) ? Number(typed.into) : typed.into;
    const refused = (errors: Record<string, string>) => this.postPage(req, id, { merge: { values: typed, errors } }, null, 400);
    const checked = await validateForm(MergePostDto, { into }, ['into']);
    if ('errors' in checked) return refused(checked.errors);
    try {
      await this.posts.checkMerge(actor, id, checked.value.into);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return refused(refusalOf(error.message, ['into']));
      throw error;
    }
    const [post, target] = await Promise.all([this.posts.get(actor, id), this.posts.get(actor, checked.value.into)]);
    if (form.confirm !== 'yes') {
      const html = confirmPage(this.paths.frame(req), {
        title: `Merge “${post.title}” into “${target.title}”?`,
        explanation:
          `Post #${post.id} will be closed and point to #${target.id}; its voters' votes will count on #${target.id}, once per person; ` +
          'its comments stay where they are. Subscribed endpoints get post.status_changed. A merge cannot be undone.',
        action: this.paths.admin(`/admin/p/${id}/merge`),
        fields: { into: String(target.id) },
        button: 'Merge',
        cancel: this.paths.admin(`/admin/p/${id}`),
        danger: true,
      });
      return new Page(html, PRIVATE);
    }
    try {
      await this.posts.merge(actor, id, checked.value.into);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return refused(refusalOf(error.message, ['into']));
      throw error;
    }
    return new Redirect(this.paths.admin(`/admin/p/${id}?done=merged`));
  }

  private async postPage(
    req: ChorusRequest,
    id: number,
    forms: Partial<Record<'status' | 'reply' | 'merge', FormState>>,
    notice: string | null,
    status = 200,
  ): Promise<Page> {
    const admin = req.admin!;
    const actor = memberActor(admin);
    const post = await this.posts.get(actor, id);
    const [board, comments, voters, events, entries, similar] = await Promise.all([
      this.boards.findBySlug(admin.workspace.id, post.board.slug),
      this.comments.list(actor, id),
      this.posts.listVoters(actor, id, { limit: VOTERS, offset: 0 }),
      this.deliveries.forPost(admin.workspace.id, id),
      this.changelog.linking(actor, id, false),
      post.merged_into ? [] : this.posts.similar(actor, { board: { id: post.board.id }, title: post.title, except: id }),
    ]);
    const html = adminPostPage(this.paths.frame(req), {
      post,
      board,
      comments,
      voters: voters.data,
      votersMore: voters.has_more,
      events,
      entries,
      forms: {
        status: forms.status ?? emptyForm({ status: post.status }),
        reply: forms.reply ?? emptyForm(),
        merge: forms.merge ?? emptyForm(),
      },
      similar,
      notice,
    });
    return new Page(html, PRIVATE, status);
  }
}
