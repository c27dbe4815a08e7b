import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import { PostIdPipe } from '../../common/post-id.pipe';
import type { ChorusRequest } from '../../common/request-context';
import type { Tx } from '../../database/sql';
import { ModerationItem, ModerationService } from '../../moderation/moderation.service';
import { MODERATION_MODES, ModerationMode } from '../../workspaces/workspace.entity';
import { MEMBER_NOT_BLOCKED, WorkspacesService } from '../../workspaces/workspaces.service';
import { memberActor } from './admin-context';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { SessionsService } from '../shared/sessions.service';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { moderationPage, QueueItemView } from './views/moderation';
import { confirmPage } from './views/posts';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };
/** Items of the queue the page shows at once (each approved or rejected makes room for the next). */
const QUEUE_SHOWN = 50;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const NOTICES: Record<string, string> = {
  saved: 'The settings were saved.',
  approved: 'Approved: it is published now.',
  rejected: 'Rejected: it stays out, and its author is told nothing.',
  blocked: 'The person was blocked: signed out, their waiting posts and comments rejected.',
  unblocked: 'The person was unblocked: they can sign in again.',
};

/** A comment's id from the address, or 404 (as the API answers an id of no shape). */
function commentId(id: string): number {
  const n = /^[1-9]\d{0,15}$/.test(id) ? Number(id) : NaN;
  if (!Number.isSafeInteger(n)) throw AppError.notFound('comment');
  return n;
}

/** A person's id from the address, or 404 (an id of no shape is no one's). */
function personId(id: string): string {
  if (!UUID.test(id)) throw AppError.notFound('person');
  return id;
}

/**
 * Moderation: the queue of held posts and comments (approve, reject, block the author), who may
 * sign in (blocked email domains, disposable addresses), and the blocked people. Blocking ends the
 * person's sessions in the same transaction, so no instance finds them afterwards.
 */
@PageController('admin/moderation', AdminGuard)
export class AdminModerationController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly sessions: SessionsService,
    private readonly moderation: ModerationService,
    private readonly paths: AdminPaths,
  ) {}

  @Get()
  show(@Req() req: ChorusRequest, @Query('done') done: unknown): Promise<Page> {
    return this.page(req, null, typeof done === 'string' ? (NOTICES[done] ?? null) : null);
  }

  @Post()
  @HttpCode(303)
  async save(@Req() req: ChorusRequest, @Body() form: Form): Promise<Page | Redirect> {
    const { id: workspaceId, slug } = req.admin!.workspace;
    const values = { moderation: form.moderation ?? '', domains: form.domains ?? '', refuse_disposable: form.refuse_disposable === 'true' ? 'true' : '' };
    try {
      // Checked before either is saved: a refusal saves nothing.
      if (!(MODERATION_MODES as readonly string[]).includes(values.moderation)) throw AppError.invalid('moderation', `must be one of ${MODERATION_MODES.join(', ')}`);
      await this.workspaces.setSignInRules(workspaceId, { domains: values.domains, refuseDisposable: values.refuse_disposable === 'true' });
      await this.workspaces.setModeration(slug, values.moderation as ModerationMode);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') {
        return this.page(req, { values, errors: refusalOf(error.message, ['moderation', 'domains']) }, null, 400);
      }
      throw error;
    }
    return new Redirect(this.paths.admin('/admin/moderation?done=saved'));
  }

  @Post('posts/:id/approve')
  @HttpCode(303)
  approvePost(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number): Promise<Redirect> {
    return this.moderate(req, 'approved', (actor) => this.moderation.approvePost(actor, id));
  }

  @Post('posts/:id/reject')
  @HttpCode(303)
  rejectPost(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number): Promise<Redirect> {
    return this.moderate(req, 'rejected', (actor) => this.moderation.rejectPost(actor, id));
  }

  @Post('comments/:id/approve')
  @HttpCode(303)
  approveComment(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Redirect> {
    const comment = commentId(id);
    return this.moderate(req, 'approved', (actor) => this.moderation.approveComment(actor, comment));
  }

  @Post('comments/:id/reject')
  @HttpCode(303)
  rejectComment(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Redirect> {
    const comment = commentId(id);
    return this.moderate(req, 'rejected', (actor) => this.moderation.rejectComment(actor, comment));
  }

  /** "Block" on a held post: its author, confirmed first. */
  @Post('posts/:id/block')
  @HttpCode(303)
  async blockPostAuthor(@Req() req: ChorusRequest, @Param('id', PostIdPipe) id: number, @Body() form: Form): Promise<Page | Redirect> {
    const author = await this.workspaces.authorOf(req.admin!.workspace.id, { post: id });
    return this.blockPerson(req, author.id, form);
  }

  /** "Block" on a held comment: its author, confirmed first. */
  @Post('comments/:id/block')
  @HttpCode(303)
  async blockCommentAuthor(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    const author = await this.workspaces.authorOf(req.admin!.workspace.id, { comment: commentId(id) });
    return this.blockPerson(req, author.id, form);
  }

  /** "Block" on a person: a page to confirm, then blocked (sessions ended, held items rejected). */
  @Post('people/:id/block')
  @HttpCode(303)
  async block(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    return this.blockPerson(req, personId(id), form);
  }

  @Post('people/:id/unblock')
  @HttpCode(303)
  async unblock(@Req() req: ChorusRequest, @Param('id') id: string): Promise<Redirect> {
    await this.workspaces.unblock(req.admin!.workspace.id, personId(id));
    return new Redirect(this.paths.admin('/admin/moderation?done=unblocked'));
  }

  /** Approves or rejects a post or a comment through the services the API calls (events, counts), as this member. */
  private async moderate(
    req: ChorusRequest,
    done: 'approved' | 'rejected',
    change: (actor: ReturnType<typeof memberActor>) => Promise<unknown>,
  ): Promise<Redirect> {
    await change(memberActor(req.admin!));
    return new Redirect(this.paths.admin(`/admin/moderation?done=${done}`));
  }

  private async blockPerson(req: ChorusRequest, id: string, form: Form): Promise<Page | Redirect> {
    const workspaceId = req.admin!.workspace.id;
    const person = await this.workspaces.person(workspaceId, id);
    // Asked before the confirmation too (the service refuses it all the same).
    if (person.kind === 'member') return this.page(req, null, null, 409, MEMBER_NOT_BLOCKED);
    if (form.confirm !== 'yes') {
      const html = confirmPage(this.paths.frame(req), {
        title: `Block ${person.name}?`,
        explanation:
          `${person.name}${person.email ? ` (${person.email})` : ''} is signed out at once, cannot sign in again (by code or single sign-on), ` +
          'and their posts and comments waiting for review are rejected. What was published stays. You can unblock them later.',
        action: this.paths.admin(`/admin/moderation/people/${id}/block`),
        fields: {},
        button: 'Block',
        cancel: this.paths.admin('/admin/moderation'),
        danger: true,
      });
      return new Page(html, PRIVATE);
    }
    try {
      await this.workspaces.block(workspaceId, id, (tx: Tx) => this.onBlock(tx, workspaceId, id));
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return this.page(req, null, null, 409, error.message);
      throw error;
    }
    return new Redirect(this.paths.admin('/admin/moderation?done=blocked'));
  }

  /** In the blocking transaction: the person's sessions end, and what they have waiting for review is rejected (nothing is sent). */
  private async onBlock(tx: Tx, workspaceId: string, id: string): Promise<void> {
    this.sessions.endAll(tx, workspaceId, id);
    await this.moderation.rejectHeldOf(workspaceId, id, tx);
  }

  /** The page, with the settings as typed (`form`) or as saved (null), and a refusal above it (`problem`). */
  private async page(req: ChorusRequest, form: FormState | null, notice: string | null, status = 200, problem?: string): Promise<Page> {
    const workspaceId = req.admin!.workspace.id;
    if (!form) {
      const [rules, workspace] = await Promise.all([this.workspaces.signInRules(workspaceId), this.workspaces.findById(workspaceId)]);
      form = emptyForm({
        moderation: workspace?.moderation ?? 'off',
        domains: rules.blockedDomains.join('\n'),
        refuse_disposable: rules.refuseDisposable ? 'true' : '',
      });
    }
    if (problem) form.errors._form = problem;
    const [blocked, queue] = await Promise.all([
      this.workspaces.blockedPeople(workspaceId),
      this.moderation.queue(memberActor(req.admin!), { limit: QUEUE_SHOWN, offset: 0 }),
    ]);
    const items = queue.data.map((item) => this.itemView(item));
    const html = moderationPage(this.paths.frame(req), { queue: items, more: queue.has_more, blocked, form, notice });
    return new Page(html, PRIVATE, status);
  }

  private itemView(item: ModerationItem): QueueItemView {
    const post = item.post;
    const comment = item.kind === 'comment' ? (item.comment ?? null) : null;
    const held = comment ?? post;
    const kind = comment ? 'comment' : 'post';
    return {
      kind,
      key: `${kind}-${held.id}`,
      title: post.title,
      text: held.body,
      author: held.author.name,
      board: post.board.name,
      createdAt: held.created_at,
      postUrl: this.paths.admin(`/admin/p/${post.id}`),
      action: this.paths.admin(`/admin/moderation/${kind}s/${held.id}`),
    };
  }
}
