import { Controller, Get, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { CurrentCaller } from '../auth/caller.decorator';
import { AppError } from '../common/app-error';
import { ApiErrors, Operation } from '../common/openapi';
import type { Caller } from '../common/request-context';
import { isPlan, PLANS } from '../workspaces/plans';
import { WorkspacesService } from '../workspaces/workspaces.service';
import { ExportService } from './export.service';

const PLAN_MESSAGE = 'Exporting through the API is available on the Business plan.';

@ApiTags('Export')
@ApiBearerAuth()
@Controller('api/v1/export')
export class ExportController {
  constructor(
    private readonly exports: ExportService,
    private readonly workspaces: WorkspacesService,
  ) {}

  @Get()
  @Operation({
    id: 'exportWorkspace',
    summary: 'Export the workspace',
    description:
      'The whole workspace of the key as one gzipped tar, streamed: `manifest.json` (`format`, `version`, `workspace`, ' +
      '`exported_at`, `counts`) and `boards.ndjson`, `people.ndjson`, `posts.ndjson`, `votes.ndjson`, `comments.ndjson`, ' +
      '`changelog.ndjson`, one JSON object a line in ascending id order. No secret is ever in it. Business plan only; ' +
      '`chorus import --workspace <slug> <file>` brings it into a workspace.',
  })
  @ApiOkResponse({
    description: 'A gzipped tar (`chorus-<workspace>-<date>.tar.gz`).',
    content: { 'application/gzip': { schema: { type: 'string', format: 'binary' } } },
  })
  @ApiErrors([403, PLAN_MESSAGE])
  async export(@CurrentCaller() caller: Caller, @Res() res: Response): Promise<void> {
    if (!isPlan(caller.plan) || !PLANS[caller.plan].exportApi) throw new AppError('plan_required', PLAN_MESSAGE);
    const workspace = await this.workspaces.findBySlug(caller.workspaceSlug);
    const day = new Date().toISOString().slice(0, 10);
    await this.exports.export(workspace, res, () => {
      res.status(200);
      res.setHeader('Content-Type', 'application/gzip');
      res.setHeader('Content-Disposition', `attachment; filename="chorus-${workspace.slug}-${day}.tar.gz"`);
      res.setHeader('Cache-Control', 'no-store');
    });
  }
}
