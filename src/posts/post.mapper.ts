import type { Links } from '../config/links';
import type { PostCategory, PostStatus } from './post.entity';

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
  created_at: Date;
  updated_at: Date;
  board_id: string;
  board_slug: string;
  board_name: string;
  author_name: string;
  merged_id: string | null;
  merged_title: string | null;
  merged_board_slug: string | null;
}

/** Every read of posts: `source` (the posts table, or a page of it) as `p`, with its joins. */
export const postSelect = (source = 'posts') => `
  SELECT p.id, p.title, p.body, p.category, p.status, p.votes, p.comments_count, p.pinned,
         p.created_at, p.updated_at,
         b.id AS board_id, b.slug AS board_slug, b.name AS board_name,
         a.name AS author_name,
         m.id AS merged_id, m.title AS merged_title, mb.slug AS merged_board_slug
    FROM ${source} p
    JOIN boards b ON b.workspace_id = p.workspace_id AND b.id = p.board_id
    JOIN people a ON a.workspace_id = p.workspace_id AND a.id = p.author_id
    LEFT JOIN posts m ON m.workspace_id = p.workspace_id AND m.id = p.merged_into_id
    LEFT JOIN boards mb ON mb.workspace_id = m.workspace_id AND mb.id = m.board_id`;

export interface PostResponse {
  id: number;
  board: { id: string; slug: string; name: string };
  title: string;
  body: string;
  category: PostCategory;
  status: PostStatus;
  votes: number;
  comments: number;
  pinned: boolean;
  merged_into: { id: number; title: string; url: string } | null;
  author: { name: string };
  url: string;
  admin_url: string;
  created_at: string;
  updated_at: string;
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
    url: links.post(workspaceSlug, row.board_slug, id, row.title),
    admin_url: links.postAdmin(id),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
