import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { AppError } from '../common/app-error';
import { SLUG, WorkspacesService } from '../workspaces/workspaces.service';
import { BoardEntity } from './board.entity';

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

  async findBySlug(workspaceId: string, slug: string, manager: EntityManager = this.boards.manager) {
    const board = await manager.getRepository(BoardEntity).findOneBy({ workspaceId, slug });
    if (!board) throw AppError.notFound(`board "${slug}"`);
    return board;
  }

  async create(workspaceSlug: string, input: NewBoard): Promise<BoardEntity> {
    const workspace = await this.workspaces.findBySlug(workspaceSlug);
    if (!SLUG.test(input.slug)) throw AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
    if (await this.boards.existsBy({ workspaceId: workspace.id, slug: input.slug })) {
      throw new AppError('conflict', `Board "${input.slug}" already exists in ${workspaceSlug}.`);
    }
    return this.boards.save(
      this.boards.create({
        workspaceId: workspace.id,
        slug: input.slug,
        name: input.name,
        description: input.description ?? null,
        public: input.public ?? true,
        notifyVoters: input.notifyVoters ?? true,
      }),
    );
  }
}
