import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { isReservedBoardSlug, RESERVED_BOARD_SLUGS } from '../workspaces/reserved-slugs';
import { announceSiteChange } from '../workspaces/site-changes';
import { SLUG, WorkspacesService } from '../workspaces/workspaces.service';
import { BoardEntity } from './board.entity';

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
    @InjectRepository(BoardEntity) private readonly boards: Repository<BoardEntity>,
    private readonly workspaces: WorkspacesService,
  ) {}

  list(workspaceId: string): Promise<BoardEntity[]> {
    return this.boards.find({ where: { workspaceId }, order: { createdAt: 'ASC', slug: 'ASC' } });
  }

  /** The public boards, with how many posts each shows (merged ones left out), as the site's home lists them. */
  async listPublic(workspaceId: string): Promise<(BoardEntity & { posts: number })[]> {
    const rows: { id: string; posts: number }[] = await this.boards.query(
      `SELECT b.id, (SELECT count(*) FROM posts p WHERE p.workspace_id = b.workspace_id AND p.board_id = b.id
                        AND p.merged_into_id IS NULL)::integer AS posts
         FROM boards b WHERE b.workspace_id = $1 AND b.public`,
      [workspaceId],
    );
    const counts = new Map(rows.map((row) => [row.id, row.posts]));
    return (await this.list(workspaceId)).filter((b) => counts.has(b.id)).map((b) => Object.assign(b, { posts: counts.get(b.id)! }));
  }

  /** A board that anyone may see: a private one is as absent as one that does not exist. */
  async findPublicBySlug(workspaceId: string, slug: string): Promise<BoardEntity> {
    const board = await this.boards.findOneBy({ workspaceId, slug, public: true });
    if (!board) throw AppError.notFound(`board "${slug}"`);
    return board;
  }

  async findBySlug(workspaceId: string, slug: string, manager: EntityManager = this.boards.manager) {
    const board = await manager.getRepository(BoardEntity).findOneBy({ workspaceId, slug });
    if (!board) throw AppError.notFound(`board "${slug}"`);
    return board;
  }

  async create(workspaceSlug: string, input: NewBoard): Promise<BoardEntity> {
    const workspace = await this.workspaces.findBySlug(workspaceSlug);
    this.checkSlug(input.slug);
    if (await this.boards.existsBy({ workspaceId: workspace.id, slug: input.slug })) {
      throw new AppError('conflict', `Board "${input.slug}" already exists in ${workspaceSlug}.`);
    }
    return this.boards.manager.transaction(async (manager) => {
      const board = await manager.getRepository(BoardEntity).save(
        manager.getRepository(BoardEntity).create({
          workspaceId: workspace.id,
          slug: input.slug,
          name: input.name,
          description: input.description ?? null,
          public: input.public ?? true,
          notifyVoters: input.notifyVoters ?? true,
        }),
      );
      if (board.public) await announceSiteChange(manager, workspace.id);
      return board;
    });
  }

  /**
   * Changes a board of the workspace (the dashboard): its name, slug, description, whether it is
   * public, and whether voters are emailed. The public site hears of it at commit.
   */
  async update(workspaceId: string, slug: string, change: BoardChange): Promise<BoardEntity> {
    if (change.slug !== undefined && change.slug !== slug) this.checkSlug(change.slug);
    return this.boards.manager.transaction(async (manager) => {
      const repo = manager.getRepository(BoardEntity);
      const board = await repo.findOne({ where: { workspaceId, slug }, lock: { mode: 'pessimistic_write' } });
      if (!board) throw AppError.notFound(`board "${slug}"`);
      if (change.slug !== undefined && change.slug !== slug && (await repo.existsBy({ workspaceId, slug: change.slug }))) {
        throw AppError.invalid('slug', `is taken by another board of this workspace`);
      }
      Object.assign(board, {
        ...(change.slug !== undefined ? { slug: change.slug } : {}),
        ...(change.name !== undefined ? { name: change.name } : {}),
        ...(change.description !== undefined ? { description: change.description || null } : {}),
        ...(change.public !== undefined ? { public: change.public } : {}),
        ...(change.notifyVoters !== undefined ? { notifyVoters: change.notifyVoters } : {}),
      });
      const saved = await repo.save(board);
      await announceSiteChange(manager, workspaceId);
      return saved;
    });
  }

  private checkSlug(slug: string): void {
    if (!SLUG.test(slug)) throw AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
    if (isReservedBoardSlug(slug)) {
      throw AppError.invalid('slug', `must not be one of the public site's own pages: ${RESERVED_BOARD_SLUGS.join(', ')}`);
    }
  }
}
