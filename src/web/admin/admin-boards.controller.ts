import { Body, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { IsDefined, IsString, Matches } from 'class-validator';
import type { BoardEntity } from '../../boards/board.entity';
import { BoardsService } from '../../boards/boards.service';
import { AppError } from '../../common/app-error';
import type { ChorusRequest } from '../../common/request-context';
import { HasLength, Optional, Trim, validateForm } from '../../common/validation';
import { Links } from '../../config/links';
import { SLUG } from '../../workspaces/workspaces.service';
import { emptyForm, FormState, refusalOf } from '../shared/forms';
import { PageController } from '../shared/page-controller';
import { Page, Redirect } from '../shared/page-response';
import { AdminGuard } from './admin.guard';
import { AdminPaths } from './admin-paths';
import { boardPage, boardsPage } from './views/boards';

/** A board as the dashboard's form gives it. */
class BoardFormDto {
  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(1, 100)
  name: string;

  @IsDefined({ message: 'is required' })
  @Trim()
  @IsString({ message: 'must be a string' })
  @Matches(SLUG, { message: 'must be lower-case letters, digits and dashes' })
  slug: string;

  @Optional('a string')
  @Trim()
  @IsString({ message: 'must be a string' })
  @HasLength(0, 1000)
  description?: string;
}

type Form = Record<string, string | undefined>;
const PRIVATE = { public: false as const };
const FIELDS = ['name', 'slug', 'description'];

const valuesOf = (board: BoardEntity) => ({
  name: board.name,
  slug: board.slug,
  description: board.description ?? '',
  private: board.public ? '' : 'true',
  notify_voters: board.notifyVoters ? 'true' : '',
});
const typed = (form: Form) => ({
  name: form.name ?? '',
  slug: form.slug ?? '',
  description: form.description ?? '',
  private: form.private === 'true' ? 'true' : '',
  notify_voters: form.notify_voters === 'true' ? 'true' : '',
});

/** Boards: create them, and change a board's name, slug, description, privacy and voter email. */
@PageController('admin/boards', AdminGuard)
export class AdminBoardsController {
  constructor(
    private readonly boards: BoardsService,
    private readonly paths: AdminPaths,
    private readonly links: Links,
  ) {}

  @Get()
  list(@Req() req: ChorusRequest, @Query('done') done: unknown): Promise<Page> {
    return this.listPage(req, emptyForm({ notify_voters: 'true' }), done === 'created' ? 'The board was created.' : null);
  }

  @Post()
  @HttpCode(303)
  async create(@Req() req: ChorusRequest, @Body() form: Form): Promise<Page | Redirect> {
    const values = typed(form);
    const checked = await validateForm(BoardFormDto, values, ['name', 'slug', 'description']);
    if ('errors' in checked) return this.listPage(req, { values, errors: checked.errors }, null, 400);
    try {
      await this.boards.create(req.admin!.workspace.slug, {
        ...checked.value,
        description: checked.value.description || null,
        public: values.private !== 'true',
        notifyVoters: values.notify_voters === 'true',
      });
    } catch (error) {
      if (!(error instanceof AppError) || (error.code !== 'invalid_request' && error.code !== 'conflict')) throw error;
      const errors = error.code === 'conflict' ? { slug: 'is taken by another board of this workspace' } : refusalOf(error.message, FIELDS);
      return this.listPage(req, { values, errors }, null, 400);
    }
    return new Redirect(this.paths.admin('/admin/boards?done=created'));
  }

  @Get(':slug')
  async board(@Req() req: ChorusRequest, @Param('slug') slug: string, @Query('done') done: unknown): Promise<Page> {
    const board = await this.boards.findBySlug(req.admin!.workspace.id, slug);
    return this.boardPage(req, board, emptyForm(valuesOf(board)), done === 'saved' ? 'The board was saved.' : null);
  }

  @Post(':slug')
  @HttpCode(303)
  async update(@Req() req: ChorusRequest, @Param('slug') slug: string, @Body() form: Form): Promise<Page | Redirect> {
    const workspaceId = req.admin!.workspace.id;
    const board = await this.boards.findBySlug(workspaceId, slug);
    const values = typed(form);
    const checked = await validateForm(BoardFormDto, values, ['name', 'slug', 'description']);
    if ('errors' in checked) return this.boardPage(req, board, { values, errors: checked.errors }, null, 400);
    try {
      const saved = await this.boards.update(workspaceId, slug, {
        ...checked.value,
        description: checked.value.description ?? '',
        public: values.private !== 'true',
        notifyVoters: values.notify_voters === 'true',
      });
      return new Redirect(this.paths.admin(`/admin/boards/${saved.slug}?done=saved`));
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_request') throw error;
      return this.boardPage(req, board, { values, errors: refusalOf(error.message, FIELDS) }, null, 400);
    }
  }

  private async listPage(req: ChorusRequest, form: FormState, notice: string | null, status = 200): Promise<Page> {
    const workspace = req.admin!.workspace;
    const boards = (await this.boards.list(workspace.id)).map((b) => Object.assign(b, { url: this.links.board(workspace.slug, b.slug) }));
    return new Page(boardsPage(this.paths.frame(req), { boards, form, notice }), PRIVATE, status);
  }

  private boardPage(req: ChorusRequest, board: BoardEntity, form: FormState, notice: string | null, status = 200): Page {
    return new Page(boardPage(this.paths.frame(req), { board, form, notice }), PRIVATE, status);
  }
}
