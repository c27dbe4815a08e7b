import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { validateForm } from '../../common/validation';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { PageController } from '../shared/page-controller';
import { SessionsService } from '../shared/sessions.service';
import { SignInDto } from '../shared/sign-in.dto';
import { Page, Redirect } from '../shared/page-response';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { confirmPage } from './views/posts';
import { membersPage } from './views/members';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };
const NOTICES: Record<string, string> = { added: 'The member was added.', removed: 'The member was removed, and signed out.' };

/** Members: add one by email and name, remove one (never the last; their sessions end at once). */
@PageController('admin/members', AdminGuard)
export class AdminMembersController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly sessions: SessionsService,
    private readonly paths: AdminPaths,
  ) {}

  @Get()
  list(@Req() req: ChorusRequest, @Query('done') done: unknown): Promise<Page> {
    return this.page(req, emptyForm(), typeof done === 'string' ? (NOTICES[done] ?? null) : null);
  }

  @Post()
  @HttpCode(303)
  async add(@Req() req: ChorusRequest, @Body() form: Form): Promise<Page | Redirect> {
    const values = { email: form.email ?? '', name: form.name ?? '' };
    const checked = await validateForm(SignInDto, values, ['email', 'name']);
    if ('errors' in checked) return this.page(req, { values, errors: checked.errors }, null, 400);
    try {
      await this.workspaces.addMember(req.admin!.workspace.id, checked.value);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return this.page(req, { values, errors: refusalOf(error.message, ['email', 'name']) }, null, 400);
      throw error;
    }
    return new Redirect(this.paths.admin('/admin/members?done=added'));
  }

  @Post(':id/remove')
  @HttpCode(303)
  async remove(@Req() req: ChorusRequest, @Param('id') id: string, @Body() form: Form): Promise<Page | Redirect> {
    const admin = req.admin!;
    const member = (await this.workspaces.listMembers(admin.workspace.id)).find((m) => m.id === id);
    if (!member) throw AppError.notFound('member');
    if (form.confirm !== 'yes') {
      const html = confirmPage(this.paths.frame(req), {
        title: `Remove ${member.name} from the members?`,
        explanation:
          `${member.name} is signed out of the dashboard at once and can no longer sign in to it. Their posts and comments stay; ` +
          'API keys they made keep working until you revoke them.',
        action: this.paths.admin(`/admin/members/${id}/remove`),
        fields: {},
        button: 'Remove',
        cancel: this.paths.admin('/admin/members'),
        danger: true,
      });
      return new Page(html, PRIVATE);
    }
    try {
      await this.workspaces.removeMember(admin.workspace.id, id, (tx) => this.sessions.endAll(tx, admin.workspace.id, id));
    } catch (error) {
      if (error instanceof AppError && error.code === 'conflict') return this.page(req, { values: {}, errors: { _form: error.message } }, null, 409);
      throw error;
    }
    return new Redirect(this.paths.admin('/admin/members?done=removed'));
  }

  private async page(req: ChorusRequest, form: FormState, notice: string | null, status = 200): Promise<Page> {
    const admin = req.admin!;
    const members = await this.workspaces.listMembers(admin.workspace.id);
    return new Page(membersPage(this.paths.frame(req), { members, me: admin.member.personId, form, notice }), PRIVATE, status);
  }
}
