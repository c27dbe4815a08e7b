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
import { PostsService } from './posts.service';

@Controller('api/v1/posts')
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
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
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreatePostDto) {
    return { data: await this.posts.create(caller, body) };
  }

  @Get(':id')
  async get(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number) {
    return { data: await this.posts.get(caller, id) };
  }

  @Patch(':id')
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: UpdatePostDto,
  ) {
    return { data: await this.posts.setStatus(caller, id, body.status) };
  }

  @Post(':id/merge')
  @HttpCode(200)
  async merge(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: MergePostDto,
  ) {
    return { data: await this.posts.merge(caller, id, body.into) };
  }
}
