import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors, DataOf, PageOf } from '../common/openapi';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentCaller } from '../auth/caller.decorator';
import { PageQuery, toPage } from '../common/page.query';
import { PostIdPipe } from '../common/post-id.pipe';
import type { Caller } from '../common/request-context';
import { BodyValidation, QueryValidation } from '../common/validation';
import { CreatePostDto } from './dto/create-post.dto';
import { ListPostsQuery } from './dto/list-posts.query';
import { MergePostDto } from './dto/merge-post.dto';
import { UpdatePostDto } from './dto/update-post.dto';
import { VoteDto } from './dto/vote.dto';
import { PostResponse, VoterResponse } from './post.mapper';
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

  @Get(':id/votes')
  @ApiOperation({ summary: 'The post\'s voters, newest vote first: names only.' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: PageOf(VoterResponse) })
  @ApiErrors(400, 404)
  listVotes(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number, @Query(QueryValidation) query: PageQuery) {
    return this.posts.listVoters(caller, id, toPage(query));
  }

  @Post(':id/votes')
  @ApiOperation({
    summary: 'Adds a vote on behalf of a person; a merged post\'s vote goes to its target. Sends post.voted.',
    description: 'Answers with the post the vote counts on: 201 for a new vote, 200 (unchanged, no event) when it was there.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiCreatedResponse({ type: DataOf(PostResponse), description: 'A new vote.' })
  @ApiOkResponse({ type: DataOf(PostResponse), description: 'The vote was already there.' })
  @ApiErrors(400, 404, 413)
  async vote(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: VoteDto,
    @Res({ passthrough: true }) res: Response,
  ) {
    const { post, added } = await this.posts.addVote(caller, id, body.voter);
    if (!added) res.status(200);
    return { data: post };
  }

  @Delete(':id/votes')
  @HttpCode(204)
  @ApiOperation({ summary: 'Removes a person\'s vote (by email; omitted: the key\'s creator).' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiNoContentResponse({ description: 'Removed, or there was none.' })
  @ApiErrors(400, 404, 413)
  async unvote(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number, @Body(BodyValidation) body: VoteDto): Promise<void> {
    await this.posts.removeVote(caller, id, body.voter);
  }
}
