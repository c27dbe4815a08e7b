import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { PostIdPipe } from '../common/post-id.pipe';
import type { Caller } from '../common/request-context';
import { BodyValidation } from '../common/validation';
import { CommentsService } from './comments.service';
import { CreateCommentDto } from './dto/create-comment.dto';

@Controller('api/v1/posts/:id/comments')
export class CommentsController {
  constructor(private readonly comments: CommentsService) {}

  @Get()
  async list(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) postId: number) {
    return { data: await this.comments.list(caller, postId) };
  }

  @Post()
  async create(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) postId: number,
    @Body(BodyValidation) body: CreateCommentDto,
  ) {
    return { data: await this.comments.create(caller, postId, { body: body.body }) };
  }
}
