import { ApiBearerAuth, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiErrors, DataOf, PageOf } from '../common/openapi';
import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { CurrentCaller } from '../auth/caller.decorator';
import { toPage } from '../common/page.query';
import { PostIdPipe } from '../common/post-id.pipe';
import type { Caller } from '../common/request-context';
import { BodyValidation, QueryValidation } from '../common/validation';
import { CreatePostDto } from './dto/create-post.dto';
import { ListPostsQuery } from './dto/list-posts.query';
import { MergePostDto } from './dto/merge-post.dto';
import { UpdatePostDto } from './dto/update-post.dto';
import { PostResponse } from './post.mapper';
import { PostsService } from './posts.service';

@ApiTags('Posts')
@ApiBearerAuth()
@Controller('api/v1/posts')
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  @ApiOperation({ summary: 'Lists posts, newest first by default.' })
  @ApiOkResponse({ type: PageOf(PostResponse) })
  @ApiErrors(400, 404)
  list(@CurrentCaller() caller: Caller, @Query(QueryValidation) query: ListPostsQuery) {
    return this.posts.list(caller, {
      board: query.board || undefined,
      status: query.status,
      q: query.q,
      sort: query.sort ?? 'new',
      includeMerged: query.include_merged === 'true',
      ...toPage(query),
    });
  }

  @Post()
  @ApiOperation({ summary: 'Creates a post; the author\'s vote counts. Sends post.created.' })
  @ApiCreatedResponse({ type: DataOf(PostResponse) })
  @ApiErrors(400, 404, 413)
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreatePostDto) {
    return { data: await this.posts.create(caller, body) };
  }

  @Get(':id')
  @ApiOperation({ summary: 'One post; merged posts too.' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors(404)
  async get(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number) {
    return { data: await this.posts.get(caller, id) };
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Changes the status. Sends post.status_changed unless the status is the same.' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors(400, 404, 413)
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: UpdatePostDto,
  ) {
    return { data: await this.posts.setStatus(caller, id, body.status) };
  }

  @Post(':id/merge')
  @HttpCode(200)
  @ApiOperation({ summary: 'Merges the post into another; it is closed and its voters count on the target.' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors(400, 404, 413)
  async merge(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: MergePostDto,
  ) {
    return { data: await this.posts.merge(caller, id, body.into) };
  }
}
