import { Injectable } from '@nestjs/common';
import { Database, Queryable, statement, Tx } from '../database/sql';
import type { PersonEntity, PersonKind } from './person.entity';
import type { Plan } from './plans';
import type { ModerationMode, WorkspaceEntity } from './workspace.entity';

const WORKSPACE = `id, slug, name, plan, moderation, created_at AS "createdAt"`;
const PERSON = `workspace_id AS "workspaceId", id, kind, name, email, created_at AS "createdAt"`;

const SQL = {
  createWorkspace: statement('ws_create', `INSERT INTO workspaces (slug, name, plan) VALUES ($1, $2, $3) RETURNING ${WORKSPACE}`),
  bySlug: statement('ws_by_slug', `SELECT ${WORKSPACE} FROM workspaces WHERE slug = $1`),
  byId: statement('ws_by_id', `SELECT ${WORKSPACE} FROM workspaces WHERE id = $1`),
  list: statement('ws_list', `SELECT ${WORKSPACE} FROM workspaces ORDER BY created_at, slug`),
  setModeration: statement('ws_set_moderation', `UPDATE workspaces SET moderation = $2 WHERE slug = $1 RETURNING ${WORKSPACE}`),
  holding: statement(
    'person_holding',
    `SELECT w.moderation, p.kind, p.has_approved FROM people p JOIN workspaces w ON w.id = p.workspace_id WHERE p.workspace_id = $1 AND p.id = $2`,
  ),
  markApproved: statement(
    'person_mark_approved',
    `UPDATE people SET has_approved = true WHERE workspace_id = $1 AND id = ANY ($2::uuid[]) AND NOT has_approved`,
  ),
  setPlan: statement('ws_set_plan', `UPDATE workspaces SET plan = $2 WHERE slug = $1 RETURNING ${WORKSPACE}`),
  person: statement('person_get', `SELECT ${PERSON} FROM people WHERE workspace_id = $1 AND id = $2`),
  byEmail: statement('person_by_email', `SELECT ${PERSON} FROM people WHERE workspace_id = $1 AND email = $2`),
  addPerson: statement(
    'person_add',
    `INSERT INTO people (workspace_id, kind, name, email) VALUES ($1, $2, $3, $4)
     ON CONFLICT (workspace_id, email) WHERE email IS NOT NULL DO NOTHING
     RETURNING ${PERSON}`,
  ),
  setKind: statement('person_set_kind', `UPDATE people SET kind = $3 WHERE workspace_id = $1 AND id = $2`),
  lockMembers: statement('person_lock_members', `SELECT id FROM people WHERE workspace_id = $1 AND kind = 'member' ORDER BY id FOR UPDATE`),
  members: statement('person_members', `SELECT ${PERSON} FROM people WHERE workspace_id = $1 AND kind = 'member' ORDER BY created_at`),
  memberships: statement(
    'person_memberships',
    `SELECT w.id, w.slug, w.name, p.id AS person_id FROM people p JOIN workspaces w ON w.id = p.workspace_id
      WHERE p.email = $1 AND p.kind = 'member' ORDER BY w.name, w.slug`,
  ),
  signInKnown: statement(
    'person_sign_in_known',
    `UPDATE people SET kind = CASE WHEN kind = 'guest' THEN 'user' ELSE kind END,
            name = CASE WHEN $4 THEN $3 ELSE name END
      WHERE workspace_id = $1 AND email = $2 AND (kind = 'guest' OR ($4 AND name <> $3))
     RETURNING id`,
  ),
  unsubscribe: statement(
    'person_unsubscribe',
    `UPDATE people SET email_unsubscribed_at = now()
      WHERE workspace_id = $1 AND email = $2 AND email_unsubscribed_at IS NULL`,
  ),
  // A look-up by the index's whole key per address: with `email = ANY ($2)` a generic plan may
  // read every person of the workspace and filter them.
  byEmails: statement(
    'person_by_emails',
    `SELECT e.email, (SELECT p.id FROM people p WHERE p.workspace_id = $1 AND p.email = e.email) AS id FROM unnest($2::text[]) AS e(email)`,
  ),
  importPeople: statement(
    'person_import',
    `INSERT INTO people (workspace_id, id, kind, name, email, created_at, email_unsubscribed_at)
     SELECT $1, r.id, 'guest', r.name, r.email, coalesce(r.created_at, now()), CASE WHEN r.unsubscribed THEN now() END
       FROM unnest($2::uuid[], $3::text[], $4::text[], $5::timestamptz[], $6::boolean[]) AS r(id, name, email, created_at, unsubscribed)
     ON CONFLICT (workspace_id, email) WHERE email IS NOT NULL DO NOTHING
     RETURNING id`,
  ),
  ssoNow: statement('sso_now', `SELECT now() AS now, now() + $1 * interval '1 millisecond' AS until`),
  ssoRotate: statement(
    'sso_rotate',
    `INSERT INTO sso_secrets (workspace_id, secret_sealed, rotated_at) VALUES ($1, $2, $3)
     ON CONFLICT (workspace_id) DO UPDATE
        SET previous_sealed = sso_secrets.secret_sealed, secret_sealed = EXCLUDED.secret_sealed,
            previous_expires_at = $4, rotated_at = EXCLUDED.rotated_at`,
  ),
  widgetOrigins: statement('ws_widget_origins', `SELECT widget_origins FROM workspaces WHERE id = $1`),
  setWidgetOrigins: statement('ws_set_widget_origins', `UPDATE workspaces SET widget_origins = $2::text[] WHERE id = $1`),
  ssoMadeAt: statement('sso_made_at', `SELECT rotated_at FROM sso_secrets WHERE workspace_id = $1`),
  ssoKeys: statement(
    'sso_keys',
    `SELECT secret_sealed, previous_sealed, previous_expires_at > now() AS previous_valid FROM sso_secrets WHERE workspace_id = $1`,
  ),
};

/** A person an import brings (times as ISO 8601, none: now). */
export interface ImportedPerson {
  id: string;
  name: string;
  /** The address's normal form. */
  email: string | null;
  createdAt: string | null;
  unsubscribed: boolean;
}

export interface Membership {
  workspace: { id: string; slug: string; name: string };
  personId: string;
}

/**
 * The workspaces, people and sso_secrets tables. Workspaces and plans are the operator's;
 * people are everyone a workspace knows (members, signed-in users, guests named by the API).
 * Addresses are compared in their normal form only (common/email-address.ts): callers normalise.
 */
@Injectable()
export class WorkspacesStore {
  constructor(private readonly db: Database) {}

  async createWorkspace(input: { slug: string; name: string; plan: Plan }): Promise<WorkspaceEntity> {
    return (await this.db.rows<WorkspaceEntity>(SQL.createWorkspace, [input.slug, input.name, input.plan]))[0];
  }

  async workspaceBySlug(slug: string): Promise<WorkspaceEntity | undefined> {
    return (await this.db.rows<WorkspaceEntity>(SQL.bySlug, [slug]))[0];
  }

  async workspaceById(id: string): Promise<WorkspaceEntity | undefined> {
    return (await this.db.rows<WorkspaceEntity>(SQL.byId, [id]))[0];
  }

  listWorkspaces(): Promise<WorkspaceEntity[]> {
    return this.db.rows<WorkspaceEntity>(SQL.list);
  }

  async setModeration(slug: string, moderation: ModerationMode): Promise<WorkspaceEntity | undefined> {
    return (await this.db.rows<WorkspaceEntity>(SQL.setModeration, [slug, moderation]))[0];
  }

  /** The workspace's moderation, and whether the person is a member and has an approved item. */
  async holding(q: Queryable, workspaceId: string, personId: string): Promise<{ moderation: ModerationMode; kind: PersonKind; has_approved: boolean } | undefined> {
    return (await q.rows<{ moderation: ModerationMode; kind: PersonKind; has_approved: boolean }>(SQL.holding, [workspaceId, personId]))[0];
  }

  /** Notes that these people have an approved post or comment (sent with the transaction's next round trip). */
  markApproved(tx: Tx, workspaceId: string, personIds: string[]): void {
    if (personIds.length > 0) tx.send(SQL.markApproved, [workspaceId, personIds]);
  }

  async setPlan(slug: string, plan: Plan): Promise<WorkspaceEntity | undefined> {
    return (await this.db.rows<WorkspaceEntity>(SQL.setPlan, [slug, plan]))[0];
  }

  async person(q: Queryable, workspaceId: string, id: string): Promise<PersonEntity | undefined> {
    return (await q.rows<PersonEntity>(SQL.person, [workspaceId, id]))[0];
  }

  /** The workspace's person with this address, in any case. */
  async personByEmail(q: Queryable, workspaceId: string, email: string): Promise<PersonEntity | undefined> {
    return (await q.rows<PersonEntity>(SQL.byEmail, [workspaceId, email]))[0];
  }

  /** A new person; none when one with the address is there already (whoever came first keeps it). */
  async addPerson(q: Queryable, workspaceId: string, input: { kind: PersonKind; name: string; email: string | null }): Promise<PersonEntity | undefined> {
    return (await q.rows<PersonEntity>(SQL.addPerson, [workspaceId, input.kind, input.name, input.email]))[0];
  }

  /** The workspace's people with these addresses (normal forms), by address. */
  async idsByEmails(q: Queryable, workspaceId: string, emails: string[]): Promise<Map<string, string>> {
    const rows = await q.rows<{ id: string | null; email: string }>(SQL.byEmails, [workspaceId, emails]);
    return new Map(rows.filter((row) => row.id !== null).map((row) => [row.email, row.id!]));
  }

  /**
   * Brings people in from elsewhere (an import), in one statement: guests, with the ids given,
   * their times kept; one whose address is taken is left out. Answers the ids inserted.
   */
  async importPeople(tx: Tx, workspaceId: string, people: ImportedPerson[]): Promise<Set<string>> {
    const rows = await tx.rows<{ id: string }>(SQL.importPeople, [
      workspaceId,
      people.map((p) => p.id),
      people.map((p) => p.name),
      people.map((p) => p.email),
      people.map((p) => p.createdAt),
      people.map((p) => p.unsubscribed),
    ]);
    return new Set(rows.map((row) => row.id));
  }

  setKind(tx: Tx, workspaceId: string, personId: string, kind: PersonKind): void {
    tx.send(SQL.setKind, [workspaceId, personId, kind]);
  }

  /** The members' ids, locked for the transaction (so that two removals cannot leave none). */
  async lockMembers(tx: Tx, workspaceId: string): Promise<string[]> {
    return (await tx.rows<{ id: string }>(SQL.lockMembers, [workspaceId])).map((row) => row.id);
  }

  members(workspaceId: string): Promise<PersonEntity[]> {
    return this.db.rows<PersonEntity>(SQL.members, [workspaceId]);
  }

  async memberships(email: string): Promise<Membership[]> {
    const rows = await this.db.rows<{ id: string; slug: string; name: string; person_id: string }>(SQL.memberships, [email]);
    return rows.map((row) => ({ workspace: { id: row.id, slug: row.slug, name: row.name }, personId: row.person_id }));
  }

  /**
   * A known person signing in: a guest becomes a user, and with `rename` the name becomes this
   * one. Answers whether anything the pages show changed.
   */
  async signInKnown(q: Queryable, workspaceId: string, who: { email: string; name: string }, rename: boolean): Promise<boolean> {
    return (await q.rows(SQL.signInKnown, [workspaceId, who.email, who.name, rename])).length > 0;
  }

  /** Stops voter and changelog email of the workspace to the address. */
  async unsubscribe(workspaceId: string, email: string): Promise<void> {
    await this.db.count(SQL.unsubscribe, [workspaceId, email]);
  }

  /** Stores a new sealed SSO secret; the one before stays good for `graceMs`. */
  async rotateSso(workspaceId: string, sealed: string, graceMs: number): Promise<void> {
    // The times are the database's, computed apart: Citus takes only immutable functions in DO UPDATE.
    const [{ now, until }] = await this.db.rows<{ now: Date; until: Date }>(SQL.ssoNow, [graceMs]);
    await this.db.count(SQL.ssoRotate, [workspaceId, sealed, now, until]);
  }

  /** The origins that may frame the workspace's widget (`/embed/…`), as saved. */
  async widgetOrigins(workspaceId: string): Promise<string[]> {
    return (await this.db.rows<{ widget_origins: string[] }>(SQL.widgetOrigins, [workspaceId]))[0]?.widget_origins ?? [];
  }

  async setWidgetOrigins(tx: Tx, workspaceId: string, origins: string[]): Promise<void> {
    await tx.rows(SQL.setWidgetOrigins, [workspaceId, origins]);
  }

  async ssoMadeAt(workspaceId: string): Promise<Date | null> {
    return (await this.db.rows<{ rotated_at: Date }>(SQL.ssoMadeAt, [workspaceId]))[0]?.rotated_at ?? null;
  }

  /** The sealed secrets that sign in now: the current one, and the one before while it is still good. */
  async ssoSecrets(workspaceId: string): Promise<string[]> {
    const [row] = await this.db.rows<{ secret_sealed: string; previous_sealed: string | null; previous_valid: boolean }>(SQL.ssoKeys, [workspaceId]);
    if (!row) return [];
    return [row.secret_sealed, ...(row.previous_sealed && row.previous_valid ? [row.previous_sealed] : [])];
  }
}
