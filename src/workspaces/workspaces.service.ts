import { Injectable } from '@nestjs/common';
import { announceCallersChange, CallerCache } from '../auth/caller-cache';
import { AppError } from '../common/app-error';
import { normalEmail } from '../common/email-address';
import { Database, Queryable, Tx } from '../database/sql';
import { EventsStore } from '../outbox/events.store';
import { PersonEntity, PersonKind } from './person.entity';
import { Plan } from './plans';
import { isReservedWorkspaceSlug, RESERVED_ROOT_SEGMENTS } from './reserved-slugs';
import { atBlockedDomain, atDisposableDomain, parseBlockedDomains } from './email-domains';
import { parseWidgetOrigins } from './widget-origins';
import { MODERATION_MODES, ModerationMode, WorkspaceEntity } from './workspace.entity';
import { ImportedPerson, Membership, SignInRules, WorkspacesStore } from './workspaces.store';

export type { SignInRules } from './workspaces.store';

export const MEMBER_NOT_BLOCKED = 'A member cannot be blocked: remove them from the members first.';

/** Blocked people the moderation page lists at most. */
export const BLOCKED_SHOWN = 500;

/**
 * A sign-in the workspace does not take: the person is blocked, or (an emailed code) the address
 * is at a blocked or disposable domain. The site answers it with one page, "You cannot post here."
 */
export class SignInRefused extends Error {
  constructor() {
    super('You cannot post here.');
    this.name = 'SignInRefused';
  }
}

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
    private readonly db: Database,
    private readonly store: WorkspacesStore,
    private readonly events: EventsStore,
    private readonly callers: CallerCache,
  ) {}

  async create(input: { name: string; slug: string; plan: Plan }): Promise<WorkspaceEntity> {
    if (!SLUG.test(input.slug)) {
      throw AppError.invalid('slug', 'must be lower-case letters, digits and dashes');
    }
    if (isReservedWorkspaceSlug(input.slug)) {
      throw AppError.invalid('slug', `must not be one of the service's own paths: ${RESERVED_ROOT_SEGMENTS.join(', ')}`);
    }
    if (await this.store.workspaceBySlug(input.slug)) {
      throw new AppError('conflict', `A workspace with slug "${input.slug}" already exists.`);
    }
    return this.store.createWorkspace(input);
  }

  async findBySlug(slug: string): Promise<WorkspaceEntity> {
    const workspace = await this.store.workspaceBySlug(slug);
    if (!workspace) throw AppError.notFound(`workspace "${slug}"`, null);
    return workspace;
  }

  /** The origins allowed to frame the workspace's widget. */
  widgetOrigins(workspaceId: string): Promise<string[]> {
    return this.store.widgetOrigins(workspaceId);
  }

  /** Replaces the widget's allowed origins with the lines typed (widget-origins.ts); a line that is not one saves nothing (400). */
  async setWidgetOrigins(workspaceId: string, text: string): Promise<string[]> {
    const parsed = parseWidgetOrigins(text);
    if ('error' in parsed) throw AppError.invalid('origins', parsed.error);
    await this.db.transaction(async (tx) => {
      await this.store.setWidgetOrigins(tx, workspaceId, parsed.origins);
      // The embed's pages name the origins they take messages from: the kept ones are stale.
      this.events.announceSiteChange(tx, workspaceId);
    });
    return parsed.origins;
  }

  list(): Promise<WorkspaceEntity[]> {
    return this.store.listWorkspaces();
  }

  /** Sets what a visitor's posts and comments need before they show (`off`, `first`, `all`). */
  async setModeration(slug: string, moderation: ModerationMode): Promise<WorkspaceEntity> {
    if (!(MODERATION_MODES as readonly string[]).includes(moderation)) throw AppError.invalid('moderation', `must be one of ${MODERATION_MODES.join(', ')}`);
    const saved = await this.store.setModeration(slug, moderation);
    if (!saved) throw AppError.notFound(`workspace "${slug}"`, null);
    return saved;
  }

  /**
   * Whether a visitor's new post or comment is held: never for a member; in mode `all` always;
   * in mode `first` until the person has an approved one.
   */
  async holds(q: Queryable, workspaceId: string, personId: string): Promise<boolean> {
    const found = await this.store.holding(q, workspaceId, personId);
    if (!found || found.kind === 'member') return false;
    return found.moderation === 'all' || (found.moderation === 'first' && !found.has_approved);
  }

  /** Notes, in the transaction, that these people have an approved post or comment (mode `first`). */
  markApproved(tx: Tx, workspaceId: string, personIds: string[]): void {
    this.store.markApproved(tx, workspaceId, personIds);
  }

  async setPlan(slug: string, plan: Plan): Promise<WorkspaceEntity> {
    const saved = await this.store.setPlan(slug, plan);
    if (!saved) throw AppError.notFound(`workspace "${slug}"`, null);
    await announceCallersChange(this.db);
    this.callers.clear(); // other processes hear of it through the database (see CallerCache)
    return saved;
  }

  async addPerson(workspaceId: string, input: { kind: PersonKind; name: string; email?: string | null }, q: Queryable = this.db): Promise<PersonEntity> {
    const email = input.email ? addressOf(input.email) : null;
    const person = await this.store.addPerson(q, workspaceId, { kind: input.kind, name: input.name, email });
    if (!person) throw new AppError('conflict', `Someone with email ${email} is already in this workspace.`);
    return person;
  }

  /** The person with this address in its normal form (never by lower(): `K` is not `k`); none for what is no address. */
  async findByEmail(workspaceId: string, email: string, q: Queryable = this.db): Promise<PersonEntity | undefined> {
    const normal = normalEmail(email);
    return normal === null ? undefined : this.store.personByEmail(q, workspaceId, normal);
  }

  findPerson(q: Queryable, workspaceId: string, personId: string): Promise<PersonEntity | undefined> {
    return this.store.person(q, workspaceId, personId);
  }

  /** The workspace's person with this id, or 404. */
  async person(workspaceId: string, personId: string): Promise<PersonEntity> {
    const person = await this.store.person(this.db, workspaceId, personId);
    if (!person) throw AppError.notFound('person');
    return person;
  }

  /**
   * Makes someone a member (the dashboard): a new person, or the workspace's person with that
   * email (a voter, say) made a member. Someone who is a member already is refused.
   */
  async addMember(workspaceId: string, input: { email: string; name: string }): Promise<PersonEntity> {
    return this.db.transaction(async (tx) => {
      const known = await this.findByEmail(workspaceId, input.email, tx);
      if (known?.kind === 'member') throw AppError.invalid('email', 'is a member already');
      // A blocked person's sessions are found by no request: as a member they could not sign in.
      if (known?.blockedAt) throw AppError.invalid('email', 'is blocked: unblock them on the moderation page first');
      if (!known) return this.addPerson(workspaceId, { kind: 'member', name: input.name, email: input.email }, tx);
      this.store.setKind(tx, workspaceId, known.id, 'member');
      return { ...known, kind: 'member' };
    });
  }

  /**
   * Takes someone off the members: they stay a person (their posts and comments remain theirs).
   * The last member cannot be removed. Keys they created keep working (they are the
   * workspace's) until revoked. `also` runs in the same transaction: the caller ends their
   * sessions there (the pages' sessions are not this feature's).
   */
  async removeMember(workspaceId: string, personId: string, also: (tx: Tx) => void): Promise<void> {
    await this.db.transaction(async (tx) => {
      const members = await this.store.lockMembers(tx, workspaceId);
      if (!members.includes(personId)) throw AppError.notFound('member');
      if (members.length === 1) throw new AppError('conflict', 'The last member of a workspace cannot be removed.');
      this.store.setKind(tx, workspaceId, personId, 'user');
      also(tx);
    });
  }

  /** Where an address is a member, workspace by workspace (the dashboard's sign-in). */
  async memberships(email: string): Promise<Membership[]> {
    const normal = normalEmail(email);
    return normal === null ? [] : this.store.memberships(normal);
  }

  async findById(id: string): Promise<WorkspaceEntity | null> {
    return (await this.store.workspaceById(id)) ?? null;
  }

  listMembers(workspaceId: string): Promise<PersonEntity[]> {
    return this.store.members(workspaceId);
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
  async signInPerson(workspaceId: string, who: { email: string; name: string }, rename: boolean): Promise<PersonEntity> {
    const email = addressOf(who.email);
    return this.db.transaction(async (tx) => {
      const added = await this.store.addPerson(tx, workspaceId, { kind: 'user', name: who.name, email });
      if (added) return added;
      const changed = await this.store.signInKnown(tx, workspaceId, { email, name: who.name }, rename);
      const person = (await this.store.personByEmail(tx, workspaceId, email))!;
      // Thrown inside the transaction: a blocked person's name is not changed either.
      if (person.blockedAt) throw new SignInRefused();
      if (changed) this.events.announceSiteChange(tx, workspaceId);
      return person;
    });
  }

  /**
   * Whether the workspace refuses an emailed-code sign-in from this address (before anything is
   * sent): at a blocked email domain or under one, or at a disposable-mail domain while the
   * workspace refuses those. Says nothing about any person: it reads the address alone.
   */
  async refusesCodeSignIn(workspaceId: string, email: string): Promise<boolean> {
    const normal = normalEmail(email);
    if (normal === null) return false;
    const rules = await this.signInRules(workspaceId);
    return atBlockedDomain(normal, rules.blockedDomains) || (rules.refuseDisposable && atDisposableDomain(normal));
  }

  async signInRules(workspaceId: string): Promise<SignInRules> {
    const rules = await this.store.signInRules(workspaceId);
    if (!rules) throw AppError.notFound('workspace', null);
    return rules;
  }

  /**
   * Saves the moderation page's sign-in settings: the blocked email domains as typed, one a line
   * (email-domains.ts; a line that is no domain saves nothing, 400 naming `domains`), and whether
   * disposable addresses are refused. Answers what was saved.
   */
  async setSignInRules(workspaceId: string, input: { domains: string; refuseDisposable: boolean }): Promise<SignInRules> {
    const parsed = parseBlockedDomains(input.domains);
    if ('error' in parsed) throw AppError.invalid('domains', parsed.error);
    const rules = { blockedDomains: parsed.domains, refuseDisposable: input.refuseDisposable };
    await this.store.setSignInRules(workspaceId, rules);
    return rules;
  }

  /**
   * Blocks a person (not a member: 409; none of this workspace: 404). `also` runs in the same
   * transaction, only when the person was not blocked already: the caller ends their sessions and
   * rejects their held posts and comments there (neither is this feature's). From then on the
   * person's sign-ins are refused (signInPerson) and their sessions are found by no request.
   * Blocking someone blocked already changes nothing.
   */
  async block(workspaceId: string, personId: string, also: (tx: Tx) => void | Promise<void>): Promise<PersonEntity> {
    return this.db.transaction(async (tx) => {
      const person = await this.store.person(tx, workspaceId, personId);
      if (!person) throw AppError.notFound('person');
      if (person.kind === 'member') throw new AppError('conflict', MEMBER_NOT_BLOCKED);
      if (person.blockedAt) return person;
      await this.store.block(tx, workspaceId, personId);
      await also(tx);
      return { ...person, blockedAt: new Date() };
    });
  }

  /** Who wrote a post or a comment of the workspace (moderation's "Block" on an item), or 404. */
  async authorOf(workspaceId: string, item: { post: number } | { comment: number }): Promise<PersonEntity> {
    const person = await this.store.authorOf(workspaceId, item);
    if (!person) throw AppError.notFound('post' in item ? 'post' : 'comment');
    return person;
  }

    /** Lifts a block: the person may sign in again (their rejected items stay rejected). 404 for someone not blocked. */
  async unblock(workspaceId: string, personId: string): Promise<void> {
    if (!(await this.store.unblock(workspaceId, personId))) throw AppError.notFound('blocked person');
  }

  /** The workspace's blocked people, the latest blocked first (at most BLOCKED_SHOWN). */
  blockedPeople(workspaceId: string): Promise<PersonEntity[]> {
    return this.store.blocked(workspaceId, BLOCKED_SHOWN);
  }

  /**
   * The person an API post is written as, or votes as: a known email is that person (its name
   * ignored); otherwise a new guest with the name, and the email if one was given. `field` names
   * the input in errors.
   */
  async resolveAuthor(q: Queryable, workspaceId: string, author: AuthorInput, field = 'author'): Promise<PersonEntity> {
    const email = author.email ? addressOf(author.email, `${field}.email`) : null;
    if (email) {
      const known = await this.store.personByEmail(q, workspaceId, email);
      if (known) return known;
    }
    if (!author.name) throw AppError.invalid(`${field}.name`, 'is required');
    // Two first posts with one new email at once: the unique index keeps one person.
    const added = await this.store.addPerson(q, workspaceId, { kind: 'guest', name: author.name, email });
    return added ?? (await this.store.personByEmail(q, workspaceId, email!))!;
  }

  /**
   * Stops voter and changelog email of the workspace to the address, found by its normal form as
   * people are (a lookalike is someone else); emails already queued are not sent.
   */
  async unsubscribe(workspaceId: string, email: string): Promise<void> {
    const normal = normalEmail(email);
    if (normal !== null) await this.store.unsubscribe(workspaceId, normal);
  }

  /** The workspace's people with these addresses (normal forms), by address (an import's look-up). */
  idsByEmails(q: Queryable, workspaceId: string, emails: string[]): Promise<Map<string, string>> {
    return this.store.idsByEmails(q, workspaceId, emails);
  }

  /** People brought in by an import, as guests, in its transaction; an address already taken is left out. */
  importPeople(tx: Tx, workspaceId: string, people: ImportedPerson[]): Promise<Set<string>> {
    return this.store.importPeople(tx, workspaceId, people);
  }
}
