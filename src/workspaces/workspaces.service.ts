import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, Repository } from 'typeorm';
import { announceCallersChange, CallerCache } from '../auth/caller-cache';
import { AppError } from '../common/app-error';
import { normalEmail } from '../common/email-address';
import { PersonEntity } from './person.entity';
import { updateReturning } from '../database/queries';
import { Plan } from './plans';
import { announceSiteChange } from './site-changes';
import { isReservedWorkspaceSlug, RESERVED_ROOT_SEGMENTS } from './reserved-slugs';
import { WorkspaceEntity } from './workspace.entity';

export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export interface AuthorInput {
  name?: string;
  email?: string;
}

/** An address in its one normal form (common/email-address.ts), or a 400 naming `field`. */
function addressOf(email: string, field = 'email'): string {
  const normal = normalEmail(email);
  if (normal === null) throw AppError.invalid(field, 'must be a valid email address');
  return normal;
}

@Injectable()
export class WorkspacesService {
  constructor(
    @InjectRepository(WorkspaceEntity) private readonly workspaces: Repository<WorkspaceEntity>,
    @InjectRepository(PersonEntity) private readonly people: Repository<PersonEntity>,
    private readonly callers: CallerCache,
  ) {}

  async create(input: { name: string; slug: string; plan: Plan }): Promise<WorkspaceEntity> {
    if (!SLUG.test(input.slug)) {
      throw AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
    }
    if (isReservedWorkspaceSlug(input.slug)) {
      throw AppError.invalid('slug', `must not be one of the service's own paths: ${RESERVED_ROOT_SEGMENTS.join(', ')}`);
    }
    if (await this.workspaces.existsBy({ slug: input.slug })) {
      throw new AppError('conflict', `A workspace with slug "${input.slug}" already exists.`);
    }
    return this.workspaces.save(this.workspaces.create(input));
  }

  async findBySlug(slug: string): Promise<WorkspaceEntity> {
    const workspace = await this.workspaces.findOneBy({ slug });
    if (!workspace) throw AppError.notFound(`workspace "${slug}"`);
    return workspace;
  }

  list(): Promise<WorkspaceEntity[]> {
    return this.workspaces.find({ order: { createdAt: 'ASC' } });
  }

  async setPlan(slug: string, plan: Plan): Promise<WorkspaceEntity> {
    const workspace = await this.findBySlug(slug);
    workspace.plan = plan;
    const saved = await this.workspaces.save(workspace);
    await announceCallersChange(this.workspaces.manager.dataSource);
    this.callers.clear(); // other processes hear of it through the database (see CallerCache)
    return saved;
  }

  async addPerson(
    workspaceId: string,
    input: { kind: PersonEntity['kind']; name: string; email?: string | null },
    manager: EntityManager = this.people.manager,
  ): Promise<PersonEntity> {
    const email = input.email ? addressOf(input.email) : null;
    if (email && (await this.findByEmail(workspaceId, email, manager))) {
      throw new AppError('conflict', `Someone with email ${email} is already in this workspace.`);
    }
    const repo = manager.getRepository(PersonEntity);
    return repo.save(repo.create({ workspaceId, kind: input.kind, name: input.name, email }));
  }

  /** The person with this address in its normal form (never by lower(): `K` is not `k`); none for what is no address. */
  async findByEmail(workspaceId: string, email: string, manager: EntityManager = this.people.manager): Promise<PersonEntity | null> {
    const normal = normalEmail(email);
    if (normal === null) return null;
    return manager.getRepository(PersonEntity).findOneBy({ workspaceId, email: normal });
  }

  /**
   * Makes someone a member (the dashboard): a new person, or the workspace's person with that
   * email (a voter, say) made a member. Someone who is a member already is refused.
   */
  async addMember(workspaceId: string, input: { email: string; name: string }): Promise<PersonEntity> {
    return this.people.manager.transaction(async (manager) => {
      const known = await this.findByEmail(workspaceId, input.email, manager);
      if (known?.kind === 'member') throw AppError.invalid('email', 'is a member already');
      if (!known) return this.addPerson(workspaceId, { kind: 'member', name: input.name, email: input.email }, manager);
      await manager.update(PersonEntity, { workspaceId, id: known.id }, { kind: 'member' });
      return { ...known, kind: 'member' };
    });
  }

  /**
   * Takes someone off the members: they stay a person (their posts and comments remain theirs),
   * and their dashboard sessions end. The last member cannot be removed. Keys they created keep
   * working (they are the workspace's) until revoked.
   */
  async removeMember(workspaceId: string, personId: string): Promise<void> {
    await this.people.manager.transaction(async (manager) => {
      const members: { id: string }[] = await manager.query(
        `SELECT id FROM people WHERE workspace_id = $1 AND kind = 'member' ORDER BY id FOR UPDATE`,
        [workspaceId],
      );
      if (!members.some((m) => m.id === personId)) throw AppError.notFound('member');
      if (members.length === 1) throw new AppError('conflict', 'The last member of a workspace cannot be removed.');
      await manager.update(PersonEntity, { workspaceId, id: personId }, { kind: 'user' });
      await manager.query(`DELETE FROM sessions WHERE workspace_id = $1 AND person_id = $2 AND kind = 'member'`, [workspaceId, personId]);
    });
  }

  /** Where an address is a member, workspace by workspace (the dashboard's sign-in). */
  async memberships(email: string): Promise<{ workspace: { id: string; slug: string; name: string }; personId: string }[]> {
    const normal = normalEmail(email);
    if (normal === null) return [];
    const rows: { id: string; slug: string; name: string; person_id: string }[] = await this.people.query(
      `SELECT w.id, w.slug, w.name, p.id AS person_id FROM people p JOIN workspaces w ON w.id = p.workspace_id
        WHERE p.email = $1 AND p.kind = 'member' ORDER BY w.name, w.slug`,
      [normal],
    );
    return rows.map((row) => ({ workspace: { id: row.id, slug: row.slug, name: row.name }, personId: row.person_id }));
  }

  async findById(id: string): Promise<WorkspaceEntity | null> {
    return this.workspaces.findOneBy({ id });
  }

  listMembers(workspaceId: string): Promise<PersonEntity[]> {
    return this.people.find({ where: { workspaceId, kind: 'member' }, order: { createdAt: 'ASC' } });
  }

  async findMemberByEmail(workspaceId: string, email: string): Promise<PersonEntity> {
    const person = await this.findByEmail(workspaceId, email);
    if (!person || person.kind !== 'member') throw AppError.notFound(`member with email ${email}`);
    return person;
  }

  /**
   * The person who signs in to the public site with this email: the workspace's person with its
   * normal form, the one the API's `author.email` finds, or a new user with the name. With
   * `rename` (SSO: the customer's app knows the name) the name shown becomes this one. A guest
   * who signs in is a known user from then on.
   */
  async signInPerson(
    workspaceId: string,
    who: { email: string; name: string },
    rename: boolean,
    manager: EntityManager = this.people.manager,
  ): Promise<PersonEntity> {
    const email = addressOf(who.email);
    const inserted: { id: string }[] = await manager.query(
      `INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'user', $2, $3)
       ON CONFLICT (workspace_id, email) WHERE email IS NOT NULL DO NOTHING
       RETURNING id`,
      [workspaceId, who.name, email],
    );
    if (inserted.length === 0) {
      const [changed] = await updateReturning<{ id: string }>(
        manager,
        `UPDATE people SET kind = CASE WHEN kind = 'guest' THEN 'user' ELSE kind END,
                name = CASE WHEN $4 THEN $3 ELSE name END
          WHERE workspace_id = $1 AND email = $2 AND (kind = 'guest' OR ($4 AND name <> $3))
         RETURNING id`,
        [workspaceId, email, who.name, rename],
      );
      if (changed) await announceSiteChange(manager, workspaceId);
    }
    return (await this.findByEmail(workspaceId, email, manager))!;
  }

  /**
   * The person an API post is written as, or votes as: a known email is that person (its name
   * ignored); otherwise a new guest with the name, and the email if one was given. `field` names
   * the input in errors.
   */
  async resolveAuthor(workspaceId: string, author: AuthorInput, manager: EntityManager, field = 'author'): Promise<PersonEntity> {
    const email = author.email ? addressOf(author.email, `${field}.email`) : null;
    if (email) {
      const known = await this.findByEmail(workspaceId, email, manager);
      if (known) return known;
    }
    if (!author.name) throw AppError.invalid(`${field}.name`, 'is required');
    // Two first posts with one new email at once: the unique index keeps one person.
    const inserted: { id: string }[] = await manager.query(
      `INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, 'guest', $2, $3)
       ON CONFLICT (workspace_id, email) WHERE email IS NOT NULL DO NOTHING
       RETURNING id`,
      [workspaceId, author.name, email],
    );
    if (inserted.length > 0) {
      return manager.getRepository(PersonEntity).findOneByOrFail({ workspaceId, id: inserted[0].id });
    }
    return (await this.findByEmail(workspaceId, email!, manager))!;
  }
}
