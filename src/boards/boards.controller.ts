import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { DataOf, Operation } from '../common/openapi';
import { Controller, Get } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import type { Caller } from '../common/request-context';
import { Links } from '../config/links';
import { BoardResponse, toBoardResponse } from './board.mapper';
import { BoardsService } from './boards.service';

@ApiTags('Boards')
@ApiBearerAuth()
@Controller('api/v1/boards')
export class BoardsController {
  constructor(
    private readonly boards: BoardsService,
    private readonly links: Links,
  ) {}

  @Get()
  @Operation({ id: 'listBoards', summary: 'List boards', description: 'Every board of the workspace, private ones included.' })
  @ApiOkResponse({ type: DataOf(BoardResponse, { list: true }) })
  async list(@CurrentCaller() caller: Caller) {
    const boards = await this.boards.list(caller.workspaceId);
    return { data: boards.map((b) => toBoardResponse(b, caller.workspaceSlug, this.links)) };
  }
}
