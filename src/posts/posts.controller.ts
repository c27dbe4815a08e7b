import {
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ApiErrors, DataOf, Operation, PageOf } from '../common/openapi';
import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { CurrentCaller } from '../auth/caller.decorator';
import { PageQuery, toPage } from '../common/page.query';
import { PostIdPipe } from '../common/post-id.pipe';
import type { Caller } from '../common/request-context';
import { BodyValidation, QueryValidation } from '../common/validation';
import { CreatePostDto } from './dto/create-post.dto';
import { ListPostsQuery } from './dto/list-posts.query';
import { SimilarPostsQuery } from './dto/similar-posts.query';
import { MergePostDto } from './dto/merge-post.dto';
import { UpdatePostDto } from './dto/update-post.dto';
import { VoteDto } from './dto/vote.dto';
import { PostResponse, SimilarPostResponse, VoterResponse } from './post.mapper';
import { PostsService } from './posts.service';
import { Idempotent } from '../idempotency/idempotency.module';

@ApiTags('Posts')
@ApiBearerAuth()
@Controller('api/v1/posts')
export class PostsController {
  constructor(private readonly posts: PostsService) {}

  @Get()
  @Operation({
    id: 'listPosts',
    summary: 'List posts',
    description:
      'A page of the workspace\'s posts, newest first by default, optionally of one board or status, matching search terms. ' +
      'Merged posts are left out unless `include_merged=true`; posts held for review or rejected, unless `moderation` asks for ' +
      'them. Walk the pages with `next_offset`.',
  })
  @ApiOkResponse({ type: PageOf(PostResponse) })
  @ApiErrors([400, 'limit: must be an integer from 1 to 100'], [404, 'No such board "nope" in this workspace.'])
  list(@CurrentCaller() caller: Caller, @Query(QueryValidation) query: ListPostsQuery) {
    return this.posts.list(caller, {
      board: query.board || undefined,
      status: query.status,
      q: query.q,
      sort: query.sort ?? 'new',
      includeMerged: query.include_merged === 'true',
      moderation: query.moderation,
      ...toPage(query),
    });
  }

  @Post()
  @Idempotent()
  @Operation({
    id: 'createPost',
    summary: 'Create a post',
    description:
      'Creates a post on a board, as the given author or as the key\'s creator; the author\'s vote counts (`votes: 1`). ' +
      'Sends `post.created`. Never held for review (`moderation: "approved"`).',
  })
  @ApiCreatedResponse({ type: DataOf(PostResponse) })
  @ApiErrors(400, [400, 'title: must be 4 to 120 characters'], [404, 'No such board "nope" in this workspace.'], 413)
  async create(@CurrentCaller() caller: Caller, @Body(BodyValidation) body: CreatePostDto) {
    return { data: await this.posts.create(caller, body) };
  }

  // Before `:id`: Express tries a controller's routes in the order they are declared.
  @Get('similar')
  @Operation({
    id: 'listSimilarPosts',
    summary: 'Find posts like a title',
    description:
      'Up to 5 of the board\'s posts (approved, not merged) whose titles are most alike the given one, best first, each with its ' +
      '`similarity` from 0 to 1 (trigram similarity of the titles, ignoring case and punctuation); none under 0.3. ' +
      'What to show before someone posts a duplicate, or to find a post to merge into.',
  })
  @ApiOkResponse({ type: DataOf(SimilarPostResponse, { list: true }) })
  @ApiErrors([400, 'board: is required'], [400, 'title: is required'], [404, 'No such board "nope" in this workspace.'])
  async similar(@CurrentCaller() caller: Caller, @Query(QueryValidation) query: SimilarPostsQuery) {
    return { data: await this.posts.similar(caller, { board: query.board, title: query.title }) };
  }

  @Get(':id')
  @Operation({ id: 'getPost', summary: 'Get a post', description: 'One post of the workspace, merged, held and rejected ones included.' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors([404, 'No such post in this workspace.'])
  async get(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number) {
    return { data: await this.posts.get(caller, id) };
  }

  @Patch(':id')
  @Operation({
    id: 'updatePost',
    summary: 'Change a post\'s status',
    description:
      'Sets the status; any status may follow any. Sends `post.status_changed` unless the post already has that status, ' +
      'in which case nothing changes.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors(
    400,
    [400, 'status: must be one of open, planned, in_progress, done, closed'],
    [404, 'No such post in this workspace.'],
    413,
  )
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: UpdatePostDto,
  ) {
    return { data: await this.posts.setStatus(caller, id, body.status) };
  }

  @Post(':id/merge')
  @Idempotent()
  @HttpCode(200)
  @Operation({
    id: 'mergePost',
    summary: 'Merge a post into another',
    description:
      'Merges a duplicate into another post of the workspace: it is closed, its voters count on the target, its comments stay. ' +
      'Sends `post.status_changed` with `merged_into`.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: DataOf(PostResponse) })
  @ApiErrors(400, [400, 'into: must be another post'], [404, 'No such post in this workspace.'], 413)
  async merge(
    @CurrentCaller() caller: Caller,
    @Param('id', PostIdPipe) id: number,
    @Body(BodyValidation) body: MergePostDto,
  ) {
    return { data: await this.posts.merge(caller, id, body.into) };
  }

  @Get(':id/votes')
  @Operation({ id: 'listVotes', summary: 'List a post\'s voters', description: 'The post\'s voters, newest vote first: names only, never an email.' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiOkResponse({ type: PageOf(VoterResponse) })
  @ApiErrors([400, 'limit: must be an integer from 1 to 100'], [404, 'No such post in this workspace.'])
  listVotes(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number, @Query(QueryValidation) query: PageQuery) {
    return this.posts.listVoters(caller, id, toPage(query));
  }

  @Post(':id/votes')
  @Idempotent()
  @Operation({
    id: 'addVote',
    summary: 'Vote on behalf of a person',
    description:
      'Adds the vote of a known person (by email) or a new guest (by name), with the rules of a post\'s `author`; a merged ' +
      'post\'s vote goes to its target. Answers with the post the vote counts on: 201 for a new vote (and a `post.voted` ' +
      'event), 200 unchanged when it was there.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiCreatedResponse({ type: DataOf(PostResponse), description: 'A new vote.' })
  @ApiOkResponse({ type: DataOf(PostResponse), description: 'The vote was already there.' })
  @ApiErrors(400, [400, 'voter.name: is required'], [404, 'No such post in this workspace.'], 413)
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
  @Operation({ id: 'removeVote', summary: 'Remove a vote', description: 'Removes a person\'s vote (by email; omitted: the key\'s creator).' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiNoContentResponse({ description: 'Removed, or there was none.' })
  @ApiErrors(400, [400, 'voter.email: is required to remove a vote'], [404, 'No such post in this workspace.'], 413)
  async unvote(@CurrentCaller() caller: Caller, @Param('id', PostIdPipe) id: number, @Body(BodyValidation) body: VoteDto): Promise<void> {
    await this.posts.removeVote(caller, id, body.voter);
  }
}
