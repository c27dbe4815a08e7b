import { Controller, Get } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import type { Caller } from '../common/request-context';
import { Links } from '../config/links';
import { toBoardResponse } from './board.mapper';
import { BoardsService } from './boards.service';

@Controller('api/v1/boards')
export class BoardsController {
  constructor(
    private readonly boards: BoardsService,
    private readonly links: Links,
  ) {}

  @Get()
  async list(@CurrentCaller() caller: Caller) {
    const boards = await this.boards.list(caller.workspaceId);
    return { data: boards.map((b) => toBoardResponse(b, caller.workspaceSlug, this.links)) };
  }
}
