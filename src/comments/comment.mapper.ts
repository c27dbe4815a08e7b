import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { AuthorRef } from '../posts/post.mapper';
import { MODERATION_STATES, ModerationState } from '../posts/post.entity';

export interface CommentRow {
  id: string;
  post_id: string;
  body: string;
  official: boolean;
  moderation: ModerationState;
  author_id: string;
  author_name: string;
  created_at: Date;
}

export const COMMENT_SELECT = `
  SELECT c.id, c.post_id, c.body, c.official, c.moderation, c.author_id, a.name AS author_name, c.created_at
    FROM comments c
    JOIN people a ON a.workspace_id = c.workspace_id AND a.id = c.author_id`;

/** A comment as the API shows it. */
@ApiSchema({ name: 'Comment' })
export class CommentResponse {
  @ApiProperty({ type: 'integer', minimum: 1 })
  id!: number;

  @ApiProperty({ type: 'integer', minimum: 1 })
  post_id!: number;

  @ApiProperty({ description: 'Up to 2,000 characters when created through the API.' })
  body!: string;

  @ApiProperty({ description: 'True for a team reply.' })
  official!: boolean;

  @ApiProperty({ type: AuthorRef })
  author!: AuthorRef;

  @ApiProperty({
    enum: MODERATION_STATES,
    description: '`approved`: shown. `pending`: held for review, seen only by its author and the team. `rejected`: never shown.',
  })
  moderation!: ModerationState;

  @ApiProperty({ format: 'date-time' })
  created_at!: string;
}

export function toCommentResponse(row: CommentRow): CommentResponse {
  return {
    id: Number(row.id),
    post_id: Number(row.post_id),
    body: row.body,
    official: row.official,
    author: { name: row.author_name },
    moderation: row.moderation,
    created_at: row.created_at.toISOString(),
  };
}
