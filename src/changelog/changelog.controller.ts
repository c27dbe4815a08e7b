import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBearerAuth, ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { CurrentCaller } from '../auth/caller.decorator';
import { ApiErrors, DataOf, Operation, PageOf } from '../common/openapi';
import { toPage } from '../common/page.query';
import type { Caller } from '../common/request-context';
import { BodyValidation, QueryValidation } from '../common/validation';
import { Idempotent } from '../idempotency/idempotency.module';
import { ChangelogEntryResponse } from './changelog.mapper';
import { ChangelogService } from './changelog.service';
import { CreateEntryDto, UpdateEntryDto } from './dto/entry.dto';
import { ListEntriesQuery } from './dto/list-entries.query';
import { EntryIdPipe } from './entry-id.pipe';

const ID = { name: 'id', schema: { type: 'integer' as const, minimum: 1 } };

@ApiTags('Changelog')
@ApiBearerAuth()
@Controller('api/v1/changelog')
export class ChangelogController {
  constructor(private readonly changelog: ChangelogService) {}

  @Get()
  @Operation({
    id: 'listChangelogEntries',
    summary: 'List changelog entries',
    description:
      'Every entry of the workspace: unpublished ones (drafts and scheduled) first, then by `published_at`, newest first. ' +
      'Optionally of one `state`. Walk the pages with `next_offset`.',
  })
  @ApiOkResponse({ type: PageOf(ChangelogEntryResponse) })
  @ApiErrors([400, 'state: must be draft, scheduled or published'])
  list(@CurrentCaller() caller: Caller, @Query(QueryValidation) query: ListEntriesQuery) {
    return this.changelog.list(caller, { state: query.state, ...toPage(query) });
  }

  @Post()
  @Idempotent()
  @Operation({
    id: 'createChangelogEntry',
    summary: 'Create a changelog entry',
    description:
      'A draft, unless `publish_at` is given: a past or present time publishes it now (sending `changelog.published` and ' +
      'emailing the linked posts\' voters and the changelog\'s subscribers), a future one schedules it.',
  })
  @ApiCreatedResponse({ type: DataOf(ChangelogEntryResponse) })
  @ApiErrors(400, [400, 'post_ids: no post 99 in this workspace'], 413)
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreateEntryDto) {
    return {
      data: await this.changelog.create(caller, {
        title: body.title,
        body: body.body,
        type: body.type,
        post_ids: body.post_ids,
        publish_at: body.publish_at === undefined ? undefined : new Date(body.publish_at),
      }),
    };
  }

  @Get(':id')
  @Operation({ id: 'getChangelogEntry', summary: 'Get a changelog entry', description: 'One entry of the workspace, in any state.' })
  @ApiParam(ID)
  @ApiOkResponse({ type: DataOf(ChangelogEntryResponse) })
  @ApiErrors([404, 'No such changelog entry in this workspace.'])
  async get(@CurrentCaller() caller: Caller, @Param('id', EntryIdPipe) id: number) {
    return { data: await this.changelog.get(caller, id) };
  }

  @Patch(':id')
  @Operation({
    id: 'updateChangelogEntry',
    summary: 'Change a changelog entry',
    description:
      'Changes any of `title`, `body`, `type`, `post_ids` (the whole list) and `publish_at` (`null`: a scheduled entry becomes ' +
      'a draft again). A published entry can be edited but never un-published: `publish_at` is then ignored, and editing ' +
      'emails nobody again.',
  })
  @ApiParam(ID)
  @ApiOkResponse({ type: DataOf(ChangelogEntryResponse) })
  @ApiErrors(400, [400, 'type: must be one of new, improved, fixed'], [404, 'No such changelog entry in this workspace.'], 413)
  async update(@CurrentCaller() caller: Caller, @Param('id', EntryIdPipe) id: number, @Body(BodyValidation) body: UpdateEntryDto) {
    return {
      data: await this.changelog.update(caller, id, {
        title: body.title,
        body: body.body,
        type: body.type,
        post_ids: body.post_ids,
        publish_at: body.publish_at === undefined ? undefined : body.publish_at === null ? null : new Date(body.publish_at),
      }),
    };
  }

  @Delete(':id')
  @HttpCode(204)
  @Operation({ id: 'deleteChangelogEntry', summary: 'Delete a changelog entry', description: 'Deletes an entry in any state; its page then answers 404.' })
  @ApiParam(ID)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiErrors([404, 'No such changelog entry in this workspace.'])
  async delete(@CurrentCaller() caller: Caller, @Param('id', EntryIdPipe) id: number): Promise<void> {
    await this.changelog.delete(caller, id);
  }

  @Post(':id/publish')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'publishChangelogEntry',
    summary: 'Publish a changelog entry now',
    description:
      'Publishes a draft or scheduled entry now: `changelog.published` and the emails, once. An entry already published is ' +
      'answered unchanged.',
  })
  @ApiParam(ID)
  @ApiOkResponse({ type: DataOf(ChangelogEntryResponse) })
  @ApiErrors([404, 'No such changelog entry in this workspace.'])
  async publish(@CurrentCaller() caller: Caller, @Param('id', EntryIdPipe) id: number) {
    return { data: await this.changelog.publish(caller, id) };
  }
}
