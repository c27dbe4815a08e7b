import { Body, Get, HttpCode, Post, Query, Req } from '@nestjs/common';
import { BoardsService } from '../../boards/boards.service';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { Links } from '../../config/links';
import { WorkspacesService } from '../../workspaces/workspaces.service';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { widgetPage } from './views/widget';

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };

/** The widget: the origins allowed to frame it (one a line), and the snippet to paste into the customer's app. */
@PageController('admin/widget', AdminGuard)
export class AdminWidgetController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly boards: BoardsService,
    private readonly paths: AdminPaths,
    private readonly links: Links,
  ) {}

  @Get()
  async show(@Req() req: ChorusRequest, @Query('done') done: unknown): Promise<Page> {
    const origins = await this.workspaces.widgetOrigins(req.admin!.workspace.id);
    return this.page(req, emptyForm({ origins: origins.join('\n') }), done === 'saved' ? 'The allowed origins were saved.' : null);
  }

  @Post()
  @HttpCode(303)
  async save(@Req() req: ChorusRequest, @Body() form: Form): Promise<Page | Redirect> {
    const values = { origins: form.origins ?? '' };
    try {
      await this.workspaces.setWidgetOrigins(req.admin!.workspace.id, values.origins);
    } catch (error) {
      if (error instanceof AppError && error.code === 'invalid_request') return this.page(req, { values, errors: refusalOf(error.message, ['origins']) }, null, 400);
      throw error;
    }
    return new Redirect(this.paths.admin('/admin/widget?done=saved'));
  }

  private async page(req: ChorusRequest, form: FormState, notice: string | null, status = 200): Promise<Page> {
    const workspace = req.admin!.workspace;
    const boards = await this.boards.listPublic(workspace.id);
    const html = widgetPage(this.paths.frame(req), {
      form,
      notice,
      script: this.links.publicUrl('/widget.js'),
      workspace: workspace.slug,
      boards: boards.map((b) => b.slug),
    });
    return new Page(html, PRIVATE, status);
  }
}
