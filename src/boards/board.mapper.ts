import type { Links } from '../config/links';
import type { BoardEntity } from './board.entity';

export interface BoardResponse {
  id: string;
  slug: string;
  name: string;
  description: string | null;
  public: boolean;
  url: string;
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
