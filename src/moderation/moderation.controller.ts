import { ApiBearerAuth, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { CommentResponse } from '../comments/comment.mapper';
import { ApiErrors, DataOf, Operation, PageOf } from '../common/openapi';
import { PageQuery, toPage } from '../common/page.query';
import { PostIdPipe } from '../common/post-id.pipe';
import type { Caller } from '../common/request-context';
import { QueryValidation } from '../common/validation';
import { PostResponse } from '../posts/post.mapper';
import { CommentIdPipe } from './comment-id.pipe';
import { ModerationItem, ModerationService } from './moderation.service';
import { Idempotent } from '../idempotency/idempotency.module';

const SAME_AGAIN = 'The same state again answers 200 with the object unchanged and sends nothing.';

@ApiTags('Moderation')
@ApiBearerAuth()
@Controller('api/v1')
export class ModerationController {
  constructor(private readonly moderation: ModerationService) {}

  @Get('moderation')
  @Operation({
    id: 'listModeration',
    summary: 'List held posts and comments',
    description:
      'The posts and comments awaiting review (`moderation: "pending"`), oldest first by creation; a comment comes with its post. ' +
      'Walk the pages with `next_offset`.',
  })
  @ApiOkResponse({ type: PageOf(ModerationItem) })
  @ApiErrors([400, 'limit: must be an integer from 1 to 100'])
  queue(@CurrentCaller() caller: Caller, @Query(QueryValidation) query: PageQuery) {
    return this.moderation.queue(caller, toPage(query));
  }

  @Post('posts/:id/approve')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'approvePost',
    summary: 'Approve a post',
    description: `Publishes a held or rejected post: it shows everywhere, and \`post.created\` is sent now (its \`created_at\` unchanged). ${SAME_AGAIN}`,
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors([404, 'No such post in this workspace.'])
  async approvePost(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number) {
    return { data: await this.moderation.approvePost(caller, id) };
  }

  @Post('posts/:id/reject')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'rejectPost',
    summary: 'Reject a post',
    description: `Keeps a post out for good (from any state): it shows nowhere, and its author is told nothing. ${SAME_AGAIN}`,
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors([404, 'No such post in this workspace.'])
  async rejectPost(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number) {
    return { data: await this.moderation.rejectPost(caller, id) };
  }

  @Post('comments/:id/approve')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'approveComment',
    summary: 'Approve a comment',
    description:
      'Publishes a held or rejected comment: it shows under its post and counts in its `comments`, and `comment.created` is sent ' +
      `now. ${SAME_AGAIN}`,
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(CommentResponse) })
  @ApiErrors([404, 'No such comment in this workspace.'])
  async approveComment(@CurrentCaller() caller: Caller, @Param('id', CommentIdPipe) id: number) {
    return { data: await this.moderation.approveComment(caller, id) };
  }

  @Post('comments/:id/reject')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'rejectComment',
    summary: 'Reject a comment',
    description: `Keeps a comment out for good (from any state): it shows nowhere and counts nowhere. ${SAME_AGAIN}`,
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(CommentResponse) })
  @ApiErrors([404, 'No such comment in this workspace.'])
  async rejectComment(@CurrentCaller() caller: Caller, @Param('id', CommentIdPipe) id: number) {
    return { data: await this.moderation.rejectComment(caller, id) };
  }
}
