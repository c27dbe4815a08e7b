import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Links } from '../config/links';
import { PostResponse, toPostResponse } from '../posts/post.mapper';
import { ENTRY_STATES, ENTRY_TYPES, EntryState, EntryType } from './changelog-entry';
import type { EntryRow, ExportedEntryRow, LinkedPostRow } from './changelog.store';

/** A changelog entry as the API shows it. */
@ApiSchema({ name: 'ChangelogEntry' })
export class ChangelogEntryResponse {
  @ApiProperty({ type: 'integer', minimum: 1 })
  id!: number;

  @ApiProperty({ minLength: 4, maxLength: 120, description: '4 to 120 characters (code points).' })
  title!: string;

  @ApiProperty({
    maxLength: 20000,
    description: 'Markdown (CommonMark), up to 20,000 characters; `""` when none. Raw HTML in it is shown as text.',
  })
  body!: string;

  @ApiProperty({ enum: ENTRY_TYPES })
  type!: EntryType;

  @ApiProperty({ enum: ENTRY_STATES })
  state!: EntryState;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When a scheduled entry is published; null unless scheduled.' })
  publish_at!: string | null;

  @ApiProperty({ type: 'string', format: 'date-time', nullable: true, description: 'When it was published; null until then.' })
  published_at!: string | null;

  @ApiProperty({ type: PostResponse, isArray: true, description: 'The linked posts, of any board.' })
  posts!: PostResponse[];

  @ApiProperty({ description: 'Public address: `<public base>/<workspace>/changelog/<id>-<title slug>`.' })
  url!: string;

  @ApiProperty({ description: 'Dashboard address: `<base>/admin/changelog/<id>`.' })
  admin_url!: string;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;

  @ApiProperty({ format: 'date-time' })
  updated_at!: string;
}

export function toEntryResponse(row: EntryRow, posts: LinkedPostRow[], workspaceSlug: string, links: Links): ChangelogEntryResponse {
  const id = Number(row.id);
  return {
    id,
    title: row.title,
    body: row.body,
    type: row.type,
    state: row.state,
    publish_at: row.publish_at?.toISOString() ?? null,
    published_at: row.published_at?.toISOString() ?? null,
    posts: posts.map((post) => toPostResponse(post, workspaceSlug, links)),
    url: links.changelogEntry(workspaceSlug, id, row.title),
    admin_url: links.changelogAdmin(id),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** An entry as an export writes it: the API's entry with `post_ids` (ascending) instead of `posts`. */
export type ExportedEntry = Omit<ChangelogEntryResponse, 'posts'> & { post_ids: number[] };

export function toExportedEntry(row: ExportedEntryRow, workspaceSlug: string, links: Links): ExportedEntry {
  const { posts: _posts, ...entry } = toEntryResponse(row, [], workspaceSlug, links);
  const { url, admin_url, created_at, updated_at, ...fields } = entry;
  // The API's order of fields, `post_ids` where `posts` is.
  return { ...fields, post_ids: row.post_ids.map(Number), url, admin_url, created_at, updated_at };
}
