import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Links } from '../config/links';
import { MODERATION_STATES, ModerationState, POST_CATEGORIES, POST_STATUSES, PostCategory, PostStatus } from './post.entity';

/** One row of postSelect: a post with its board, author and merge target. */
export interface PostRow {
  id: string;
  title: string;
  body: string;
  category: PostCategory;
  status: PostStatus;
  votes: number;
  comments_count: number;
  pinned: boolean;
  moderation: ModerationState;
  author_id: string;
  /** ISO 8601 in UTC, as the API shows it: read through ISO_TIMESTAMPS. */
  created_at: string;
  updated_at: string;
  board_id: string;
  board_slug: string;
  board_name: string;
  author_name: string;
  merged_id: string | null;
  merged_title: string | null;
  merged_board_slug: string | null;
}

/**
 * Every read of posts: `source` (the posts table, or a page of it) as `p`, with its joins.
 * The author (always there: a foreign key) is a lookup per row by both key columns. As a join,
 * the planner, which takes every workspace to have the average number of people, read a large
 * workspace's people once per post of the page (4,780 buffers for a page of 25 at a million
 * posts, 1.2 ms, against 104 buffers and 0.2 ms). Every table is named with the workspace
 * (`workspace`, the statement's $1): on Citus that is what makes it one shard's statement.
 */
export const postSelect = (source = 'posts', workspace = '$1') => `
  SELECT p.id, p.title, p.body, p.category, p.status, p.votes, p.comments_count, p.pinned,
         p.moderation, p.author_id, p.created_at, p.updated_at,
         b.id AS board_id, b.slug AS board_slug, b.name AS board_name,
         (SELECT a.name FROM people a WHERE a.workspace_id = ${workspace} AND a.id = p.author_id) AS author_name,
         m.id AS merged_id, m.title AS merged_title, mb.slug AS merged_board_slug
    FROM ${source} p
    JOIN boards b ON b.workspace_id = ${workspace} AND b.id = p.board_id
    LEFT JOIN posts m ON m.workspace_id = ${workspace} AND m.id = p.merged_into_id
    LEFT JOIN boards mb ON mb.workspace_id = ${workspace} AND mb.id = m.board_id`;

@ApiSchema({ name: 'BoardRef' })
export class PostBoardRef {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty()
  slug!: string;

  @ApiProperty()
  name!: string;
}

@ApiSchema({ name: 'MergeTarget' })
export class MergedIntoRef {
  @ApiProperty({ type: 'integer' })
  id!: number;

  @ApiProperty()
  title!: string;

  @ApiProperty()
  url!: string;
}

@ApiSchema({ name: 'Author' })
export class AuthorRef {
  @ApiProperty({ example: 'Ada Lovelace' })
  name!: string;
}

/** A voter as the API shows one: a name, never an email. */
@ApiSchema({ name: 'Voter' })
export class VoterResponse {
  @ApiProperty({ example: 'Grace Hopper' })
  name!: string;
}

/** A post as the API shows it. */
@ApiSchema({ name: 'Post' })
export class PostResponse {
  @ApiProperty({ type: 'integer', minimum: 1 })
  id!: number;

  @ApiProperty({ type: PostBoardRef })
  board!: PostBoardRef;

  @ApiProperty({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points).' })
  title!: string;

  @ApiProperty({ maxLength: 5000, description: 'Up to 5,000 characters; `""` when none.' })
  body!: string;

  @ApiProperty({ enum: POST_CATEGORIES })
  category!: PostCategory;

  @ApiProperty({ enum: POST_STATUSES })
  status!: PostStatus;

  @ApiProperty({ type: 'integer', minimum: 0 })
  votes!: number;

  @ApiProperty({ type: 'integer', minimum: 0, description: 'Number of comments.' })
  comments!: number;

  @ApiProperty()
  pinned!: boolean;

  @ApiProperty({ type: MergedIntoRef, nullable: true, description: 'The post this one was merged into, or null.' })
  merged_into!: MergedIntoRef | null;

  @ApiProperty({ type: AuthorRef })
  author!: AuthorRef;

  @ApiProperty({
    enum: MODERATION_STATES,
    description:
      '`approved`: shown. `pending`: held for review (the workspace\'s `moderation`), seen only by its author and the team. ' +
      '`rejected`: never shown.',
  })
  moderation!: ModerationState;

  @ApiProperty({ description: 'Public address: `<public base>/<workspace>/<board>/p/<id>-<title slug>`.' })
  url!: string;

  @ApiProperty({ description: 'Dashboard address: `<base>/admin/p/<id>`.' })
  admin_url!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

/** A post like a title: the post, with how alike the titles are. */
@ApiSchema({ name: 'SimilarPost' })
export class SimilarPostResponse extends PostResponse {
  @ApiProperty({ type: 'number', minimum: 0.3, maximum: 1, description: 'How alike the titles are, from 0 to 1 (pg_trgm\'s trigram similarity); never under 0.3.', example: 0.59 })
  similarity!: number;
}

export function toPostResponse(row: PostRow, workspaceSlug: string, links: Links): PostResponse {
  const id = Number(row.id);
  return {
    id,
    board: { id: row.board_id, slug: row.board_slug, name: row.board_name },
    title: row.title,
    body: row.body,
    category: row.category,
    status: row.status,
    votes: row.votes,
    comments: row.comments_count,
    pinned: row.pinned,
    merged_into:
      row.merged_id === null
        ? null
        : {
            id: Number(row.merged_id),
            title: row.merged_title!,
            url: links.post(workspaceSlug, row.merged_board_slug!, Number(row.merged_id), row.merged_title!),
          },
    author: { name: row.author_name },
    moderation: row.moderation,
    url: links.post(workspaceSlug, row.board_slug, id, row.title),
    admin_url: links.postAdmin(id),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
