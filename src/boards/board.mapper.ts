import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import type { Links } from '../config/links';
import type { BoardEntity } from './board.entity';

/** A board as the API shows it. */
@ApiSchema({ name: 'Board' })
export class BoardResponse {
  @ApiProperty({ format: 'uuid', description: 'Identifier of the board.' })
  id!: string;

  @ApiProperty({ example: 'feedback', description: 'Short name used in the `board` parameter.' })
  slug!: string;

  @ApiProperty({ example: 'Feedback' })
  name!: string;

  @ApiProperty({ type: String, nullable: true })
  description!: string | null;

  @ApiProperty({ description: 'False for private boards.' })
  public!: boolean;

  @ApiProperty({ example: 'https://feedback.example.com/acme/feedback', description: 'Public address of the board.' })
  url!: string;
}

export function toBoardResponse(board: BoardEntity, workspaceSlug: string, links: Links): BoardResponse {
  return {
    id: board.id,
    slug: board.slug,
    name: board.name,
    description: board.description,
    public: board.public,
    url: links.board(workspaceSlug, board.slug),
  };
}
