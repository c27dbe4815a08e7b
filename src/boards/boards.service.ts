import { Injectable } from '@nestjs/common';
import { AppError } from '../common/app-error';
import { Database, Queryable, Tx } from '../database/sql';
import { EventsStore } from '../outbox/events.store';
import { isReservedBoardSlug, RESERVED_BOARD_SLUGS } from '../workspaces/reserved-slugs';
import { SLUG, WorkspacesService } from '../workspaces/workspaces.service';
import { BoardEntity } from './board.entity';
import { BoardsStore, ImportedBoard } from './boards.store';
export type BoardChange = Partial<Omit<NewBoard, 'slug'>> & { slug?: string };

export interface NewBoard {
  slug: string;
  name: string;
  description?: string | null;
  public?: boolean;
  notifyVoters?: boolean;
}

@Injectable()
export class BoardsService {
  constructor(
    private readonly db: Database,
    private readonly store: BoardsStore,
    private readonly workspaces: WorkspacesService,
    private readonly events: EventsStore,
  ) {}

  list(workspaceId: string): Promise<BoardEntity[]> {
    return this.store.list(workspaceId);
  }

  /** The public boards, with how many posts each shows (merged ones left out), as the site's home lists them. */
  listPublic(workspaceId: string): Promise<(BoardEntity & { posts: number })[]> {
    return this.store.listPublic(workspaceId);
  }

  /** A board that anyone may see: a private one is as absent as one that does not exist. */
  async findPublicBySlug(workspaceId: string, slug: string): Promise<BoardEntity> {
    const board = await this.store.bySlug(this.db, workspaceId, slug);
    if (!board?.public) throw AppError.notFound(`board "${slug}"`);
    return board;
  }

  async findBySlug(workspaceId: string, slug: string, q: Queryable = this.db): Promise<BoardEntity> {
    const board = await this.store.bySlug(q, workspaceId, slug);
    if (!board) throw AppError.notFound(`board "${slug}"`);
    return board;
  }

  async create(workspaceSlug: string, input: NewBoard): Promise<BoardEntity> {
    const workspace = await this.workspaces.findBySlug(workspaceSlug);
    this.checkSlug(input.slug);
    return this.db.transaction(async (tx) => {
      if (await this.store.bySlug(tx, workspace.id, input.slug)) {
        throw new AppError('conflict', `Board "${input.slug}" already exists in ${workspaceSlug}.`);
      }
      const board = await this.store.insert(tx, {
        workspaceId: workspace.id,
        slug: input.slug,
        name: input.name,
        description: input.description ?? null,
        public: input.public ?? true,
        notifyVoters: input.notifyVoters ?? true,
      });
      if (board.public) this.events.announceSiteChange(tx, workspace.id);
      return board;
    });
  }

  /**
   * Changes a board of the workspace (the dashboard): its name, slug, description, whether it is
   * public, and whether voters are emailed. The public site hears of it at commit.
   */
  async update(workspaceId: string, slug: string, change: BoardChange): Promise<BoardEntity> {
    if (change.slug !== undefined && change.slug !== slug) this.checkSlug(change.slug);
    return this.db.transaction(async (tx) => {
      const board = await this.store.lockBySlug(tx, workspaceId, slug);
      if (!board) throw AppError.notFound(`board "${slug}"`);
      if (change.slug !== undefined && change.slug !== slug && (await this.store.bySlug(tx, workspaceId, change.slug))) {
        throw AppError.invalid('slug', `is taken by another board of this workspace`);
      }
      const saved = await this.store.update(tx, {
        ...board,
        ...(change.slug !== undefined ? { slug: change.slug } : {}),
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.description !== undefined ? { description: change.description || null } : {}),
        ...(change.public !== undefined ? { public: change.public } : {}),
        ...(change.notifyVoters !== undefined ? { notifyVoters: change.notifyVoters } : {}),
      });
      this.events.announceSiteChange(tx, workspaceId);
      return saved;
    });
  }
  /** Whether `slug` may name a board (the rule checkSlug enforces, for an import's rows). */
  isBoardSlug(slug: string): boolean {
    return SLUG.test(slug) && !isReservedBoardSlug(slug);
  }

  private checkSlug(slug: string): void {
    if (!SLUG.test(slug)) throw AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
    if (isReservedBoardSlug(slug)) {
      throw AppError.invalid('slug', `must not be one of the public site's own pages: ${RESERVED_BOARD_SLUGS.join(', ')}`);
    }
  }

  /** The ids of the workspace's boards with these slugs, by slug (an import's look-up). */
  idsBySlugs(q: Queryable, workspaceId: string, slugs: string[]): Promise<Map<string, string>> {
    return this.store.idsBySlugs(q, workspaceId, slugs);
  }

  /** Boards brought in by an import, in its transaction; a slug already taken is left out. Answers the ids inserted. */
  importBoards(tx: Tx, workspaceId: string, boards: ImportedBoard[]): Promise<Set<string>> {
    return this.store.importBoards(tx, workspaceId, boards);
  }
}
