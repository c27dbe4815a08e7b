import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, DataOf, Operation } from '../common/openapi';
import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { PostIdPipe } from '../common/post-id.pipe';
import type { Caller } from '../common/request-context';
import { BodyValidation } from '../common/validation';
import { CommentResponse } from './comment.mapper';
import { CommentsService } from './comments.service';
import { CreateCommentDto } from './dto/create-comment.dto';
import { Idempotent } from '../idempotency/idempotency.module';

@ApiTags('Comments')
@ApiBearerAuth()
@ApiParam({ name: 'id', description: 'The post.', schema: { type: 'integer', minimum: 1 } })
@Controller('api/v1/posts/:id/comments')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get()
  @Operation({ id: 'listComments', summary: 'List a post\'s comments', description: 'Every comment of the post, oldest first.' })
  @ApiOkResponse({ type: DataOf(CommentResponse, { list: true }) })
  @ApiErrors([404, 'No such post in this workspace.'])
  async list(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) postId: number) {
    return { data: await this.comments.list(caller, postId) };
  }

  @Post()
  @Idempotent()
  @Operation({
    id: 'createComment',
    summary: 'Reply to a post',
    description: 'Posts an official team reply as the key\'s creator; the post\'s `comments` count goes up. Sends `comment.created`.',
  })
  @ApiCreatedResponse({ type: DataOf(CommentResponse) })
  @ApiErrors(400, [400, 'body: must be 1 to 2000 characters'], [404, 'No such post in this workspace.'], 413)
  async create(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) postId: number,
    @Body(BodyValidation) body: CreateCommentDto,
  ) {
    return { data: await this.comments.create(caller, postId, { body: body.body }) };
  }
}
