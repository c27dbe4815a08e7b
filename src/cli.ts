#!/usr/bin/env node
import 'reflect-metadata';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ApiKeysService } from './auth/api-keys.service';
import { BoardsService } from './boards/boards.service';
import { AppError } from './common/app-error';
import { isEmailAddress, normalEmail } from './common/email-address';
import { loadConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { migrateDatabase, openDatabaseTarget } from './database/database';
import { exitOnStartupError, tuneHeap } from './startup';
import { PostsService } from './posts/posts.service';
import { ExportService } from './transfer/export.service';
import { ImportReport, ImportService } from './transfer/import.service';
import { ProgressBar } from './transfer/progress-bar';
import { CannySource } from './transfer/sources/canny';
import { ChorusArchiveSource } from './transfer/sources/chorus-archive';
import { CsvSource } from './transfer/sources/csv-files';
import { ImportSource, SourceError } from './transfer/sources/source';
import { PLAN_NAMES, Plan, isPlan } from './workspaces/plans';
import { toEndpointResponse } from './webhooks/endpoint.mapper';
import { EndpointsService } from './webhooks/endpoints.service';
import { EVENT_TYPES, EventType } from './outbox/outbox-event.entity';
import { ENDPOINT_KINDS, EndpointKind } from './outbox/webhook-endpoint.entity';
import { SsoService } from './workspaces/sso.service';
import { memberSignInLink } from './web/shared/sign-in.service';
import { WorkspacesService } from './workspaces/workspaces.service';
import { MODERATION_MODES, ModerationMode } from './workspaces/workspace.entity';

const USAGE = `Usage: chorus <command> [options] [--json]

  workspace create --name <n> --slug <s> --plan free|pro|business
  workspace set-plan --workspace <slug> --plan <plan>
  workspace set-moderation --workspace <slug> --moderation off|first|all
  workspace list
  member add --workspace <slug> --name <n> --email <e>
  member list --workspace <slug>
  key create --workspace <slug> --member <email>      (the key is printed once)
  key revoke --id <id>
  key list --workspace <slug>
  board create --workspace <slug> --slug <s> --name <n> [--description <d>] [--private] [--no-notify-voters]
  board list --workspace <slug>
  endpoint create --workspace <slug> --kind webhook|slack|discord --url <u> --events <t1,t2>
  endpoint list --workspace <slug>
  endpoint enable --id <id>
  endpoint disable --id <id>
  vote add --workspace <slug> --post <id> (--email <e> | --name <n> [--email <e>])
  vote remove --workspace <slug> --post <id> --email <e>
  member sign-in-link --workspace <slug> --email <e>  (a one-time link to the dashboard, good for 15 minutes)
  sso rotate --workspace <slug>                       (a new SSO secret, printed once; the one before works for 24 hours)
  export --workspace <slug> --out <file>              (the whole workspace as a gzipped tar)
  import --workspace <slug> <file.tar.gz>             (a Chorus export)
  import --workspace <slug> --posts <f> [--votes <f>] [--comments <f>]   (CSV files)
  import --workspace <slug> --from canny --canny-key <k> [--canny-url <u>]
         [--dry-run]                                  (any import: report what would be imported, write nothing)
  migrate                                             (apply pending database migrations)

With --json, one JSON object is printed on stdout and nothing else.`;

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;
type Output = { json: Record<string, unknown>; text: string };
type Command = (app: INestApplicationContext, options: Options, migrated: string[], args: string[]) => Promise<Output>;

/** Commands that take one argument after their name (a file). */
const WITH_ARGUMENT = new Set(['import']);

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  slug: { type: 'string' },
  plan: { type: 'string' },
  moderation: { type: 'string' },
  workspace: { type: 'string' },
  email: { type: 'string' },
  member: { type: 'string' },
  id: { type: 'string' },
  description: { type: 'string' },
  private: { type: 'boolean' },
  'no-notify-voters': { type: 'boolean' },
  kind: { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  post: { type: 'string' },
  out: { type: 'string' },
  posts: { type: 'string' },
  votes: { type: 'string' },
  comments: { type: 'string' },
  from: { type: 'string' },
  'canny-key': { type: 'string' },
  'canny-url': { type: 'string' },
  'dry-run': { type: 'boolean' },
} as const;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value.trim();
}

function plan(options: Options): Plan {
  const value = required(options, 'plan');
  if (!isPlan(value)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  return value;
}

function postId(options: Options): number {
  const value = required(options, 'post');
  if (!/^[1-9]\d{0,15}$/.test(value) || !Number.isSafeInteger(Number(value))) throw new UsageError('--post must be a post id');
  return Number(value);
}

/** Where an import reads from, as its options say: one kind of source, no more. */
function importSource(o: Options, args: string[]): ImportSource {
  const csv = typeof o.posts === 'string' || typeof o.votes === 'string' || typeof o.comments === 'string';
  const kinds = [args.length > 0, csv, o.from !== undefined].filter(Boolean).length;
  if (kinds !== 1) throw new UsageError('import takes one source: an export file, --posts <file> (CSV), or --from canny');
  if (args.length > 0) return new ChorusArchiveSource(args[0]);
  if (csv) {
    const posts = required(o, 'posts');
    return new CsvSource({ posts, votes: optional(o, 'votes'), comments: optional(o, 'comments') });
  }
  if (o.from !== 'canny') throw new UsageError('--from: the one source known is canny');
  return new CannySource(required(o, 'canny-key'), optional(o, 'canny-url'));
}

function optional(options: Options, name: string): string | undefined {
  return options[name] === undefined ? undefined : required(options, name);
}

const KINDS = ['boards', 'people', 'posts', 'votes', 'comments'] as const;

function importText(report: ImportReport, dryRun: boolean): string {
  // Changelog entries are named when the source has any (a Chorus export's): CSV and Canny have none.
  const entries = report.created.changelog + report.skipped.changelog > 0;
  const list = (counts: ImportReport['created']) =>
    [...KINDS.map((k) => `${counts[k].toLocaleString('en')} ${k}`), ...(entries ? [`${counts.changelog.toLocaleString('en')} changelog entries`] : [])].join(', ');
  const lines = [
    `${dryRun ? 'Would import' : 'Imported'}: ${list(report.created)}.`,
    `Already there: ${list(report.skipped)}.`,
  ];
  if (report.errors.length) {
    lines.push(`${report.errors.length} rows ${dryRun ? 'would not be' : 'were not'} imported:`);
    for (const e of report.errors) lines.push(`  ${e.file}:${e.line}: ${e.message}`);
  }
  if (dryRun) lines.push('Nothing was written (--dry-run).');
  return lines.join('\n');
}

const table = (rows: Record<string, unknown>[]) =>
  rows.length === 0 ? '(none)' : rows.map((row) => Object.values(row).map((v) => v ?? '-').join('  ')).join('\n');

async function setEnabled(app: INestApplicationContext, id: string, enabled: boolean): Promise<Output> {
  const endpoints = app.get(EndpointsService);
  const endpoint = await endpoints.update(await endpoints.workspaceOf(id), id, { enabled });
  return {
    json: { id, enabled: endpoint.enabled },
    text: `Endpoint ${id} is ${endpoint.enabled ? 'on' : 'off'}`,
  };
}

const COMMANDS: Record<string, Command> = {
  async 'workspace create'(app, o) {
    const ws = await app.get(WorkspacesService).create({ name: required(o, 'name'), slug: required(o, 'slug'), plan: plan(o) });
    return { json: { id: ws.id, slug: ws.slug, plan: ws.plan }, text: `Created workspace ${ws.slug} (${ws.plan}), id ${ws.id}` };
  },
  async 'workspace set-plan'(app, o) {
    const ws = await app.get(WorkspacesService).setPlan(required(o, 'workspace'), plan(o));
    return { json: { id: ws.id, slug: ws.slug, plan: ws.plan }, text: `Workspace ${ws.slug} is now on ${ws.plan}` };
  },
  async 'workspace set-moderation'(app, o) {
    const value = required(o, 'moderation');
    if (!(MODERATION_MODES as readonly string[]).includes(value)) throw new UsageError(`--moderation must be one of ${MODERATION_MODES.join(', ')}`);
    const ws = await app.get(WorkspacesService).setModeration(required(o, 'workspace'), value as ModerationMode);
    return { json: { slug: ws.slug, moderation: ws.moderation }, text: `Workspace ${ws.slug}: moderation ${ws.moderation}` };
  },
  async 'workspace list'(app) {
    const data = (await app.get(WorkspacesService).list()).map((w) => ({ id: w.id, slug: w.slug, name: w.name, plan: w.plan }));
    return { json: { data }, text: table(data) };
  },
  async 'member add'(app, o) {
    const workspaces = app.get(WorkspacesService);
    const ws = await workspaces.findBySlug(required(o, 'workspace'));
    const email = required(o, 'email');
    if (!isEmailAddress(email)) throw new UsageError('--email must be an email address');
    const member = await workspaces.addPerson(ws.id, { kind: 'member', name: required(o, 'name'), email });
    return { json: { id: member.id }, text: `Added ${member.name} <${member.email}> to ${ws.slug}, id ${member.id}` };
  },
  async 'member sign-in-link'(app, o) {
    const workspaces = app.get(WorkspacesService);
    const ws = await workspaces.findBySlug(required(o, 'workspace'));
    const member = await workspaces.findMemberByEmail(ws.id, required(o, 'email'));
    const url = await memberSignInLink(app, ws.id, member.email!);
    return { json: { url }, text: `A sign-in link for ${member.name}, good once, for 15 minutes:\n${url}` };
  },
  async 'member list'(app, o) {
    const workspaces = app.get(WorkspacesService);
    const ws = await workspaces.findBySlug(required(o, 'workspace'));
    const data = (await workspaces.listMembers(ws.id)).map((m) => ({ id: m.id, name: m.name, email: m.email }));
    return { json: { data }, text: table(data) };
  },
  async 'key create'(app, o) {
    const { id, key } = await app.get(ApiKeysService).create(required(o, 'workspace'), required(o, 'member'));
    return { json: { id, key }, text: `Key ${id} (shown once, keep it safe):\n${key}` };
  },
  async 'key revoke'(app, o) {
    const id = required(o, 'id');
    await app.get(ApiKeysService).revoke(id);
    return { json: { id, revoked: true }, text: `Revoked key ${id}` };
  },
  async 'key list'(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const data = (await app.get(ApiKeysService).list(ws.id)).map((k) => ({
      id: k.id,
      prefix: `${k.keyPrefix}…`,
      created_by: k.createdBy,
      created_at: k.createdAt.toISOString(),
      revoked_at: k.revokedAt?.toISOString() ?? null,
    }));
    return { json: { data }, text: table(data) };
  },
  async 'board create'(app, o) {
    const board = await app.get(BoardsService).create(required(o, 'workspace'), {
      slug: required(o, 'slug'),
      name: required(o, 'name'),
      description: typeof o.description === 'string' ? o.description : null,
      public: !o.private,
      notifyVoters: !o['no-notify-voters'],
    });
    return { json: { id: board.id, slug: board.slug }, text: `Created board ${board.slug}, id ${board.id}` };
  },
  async 'board list'(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const data = (await app.get(BoardsService).list(ws.id)).map((b) => ({
      id: b.id,
      slug: b.slug,
      name: b.name,
      public: b.public,
      notify_voters: b.notifyVoters,
    }));
    return { json: { data }, text: table(data) };
  },
  async 'endpoint create'(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const kind = required(o, 'kind');
    if (!(ENDPOINT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`--kind must be one of ${ENDPOINT_KINDS.join(', ')}`);
    }
    const events = required(o, 'events').split(',').map((e) => e.trim());
    const unknown = events.filter((e) => !(EVENT_TYPES as readonly string[]).includes(e));
    if (unknown.length > 0) throw new UsageError(`--events: unknown event types ${unknown.join(', ')} (known: ${EVENT_TYPES.join(', ')})`);
    const { endpoint, secret } = await app.get(EndpointsService).create(
      { workspaceId: ws.id, plan: ws.plan },
      { kind: kind as EndpointKind, url: required(o, 'url'), events: events as EventType[] },
    );
    return {
      json: { id: endpoint.id, secret },
      text: `Created endpoint ${endpoint.id}${secret ? `; signing secret (shown once):\n${secret}` : ''}`,
    };
  },
  async 'endpoint list'(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const data = (await app.get(EndpointsService).list(ws.id)).map((e) => {
      const { secret: _secret, ...shown } = toEndpointResponse(e);
      return shown;
    });
    return { json: { data }, text: table(data.map((e) => ({ ...e, events: e.events.join(',') }))) };
  },
  async 'endpoint enable'(app, o) {
    return setEnabled(app, required(o, 'id'), true);
  },
  async 'endpoint disable'(app, o) {
    return setEnabled(app, required(o, 'id'), false);
  },
  /** As the API's POST /posts/{id}/votes: a known email votes as that person, otherwise a new guest. */
  async 'vote add'(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const id = postId(o);
    const name = typeof o.name === 'string' && o.name.trim() ? o.name.trim() : undefined;
    const email = typeof o.email === 'string' && o.email.trim() ? o.email.trim() : undefined;
    if (!name && !email) throw new UsageError('--email or --name is required');
    if (email && !isEmailAddress(email)) throw new UsageError('--email must be an email address');
    const actor = { workspaceId: ws.id, workspaceSlug: ws.slug, personId: null };
    const { post, added } = await app.get(PostsService).addVote(actor, id, { name, email });
    return {
      json: { post_id: post.id, votes: post.votes, added },
      text: `${added ? 'Added the vote' : 'The vote was already there'} on post ${post.id} (${post.votes} votes)`,
    };
  },
  async 'vote remove'(app, o) {
    const workspaces = app.get(WorkspacesService);
    const ws = await workspaces.findBySlug(required(o, 'workspace'));
    const id = postId(o);
    const email = required(o, 'email');
    const person = await workspaces.findByEmail(ws.id, email);
    const actor = { workspaceId: ws.id, workspaceSlug: ws.slug, personId: person?.id ?? '' };
    // Without that person there is no vote to remove; the post is still looked up, so an unknown one is an error.
    const removed = person ? await app.get(PostsService).removeVote(actor, id) : false;
    const post = await app.get(PostsService).get(actor, id);
    return {
      json: { post_id: post.id, votes: post.votes, removed },
      text: removed ? `Removed the vote of ${normalEmail(email) ?? email} (post ${post.id} has ${post.votes} votes)` : `${normalEmail(email) ?? email} had no vote on post ${post.id}`,
    };
  },
  async 'sso rotate'(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const secret = await app.get(SsoService).rotate(ws.id);
    return {
      json: { secret },
      text: `SSO secret of ${ws.slug} (shown once, keep it on your server; the one before works for 24 more hours):\n${secret}`,
    };
  },
  async export(app, o) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const out = required(o, 'out');
    try {
      const manifest = await app.get(ExportService).export(ws, createWriteStream(out));
      const total = Object.values(manifest.counts).reduce((a, b) => a + b, 0);
      return {
        json: { file: out, exported_at: manifest.exported_at, counts: manifest.counts },
        text: `Exported ${ws.slug} to ${out}: ${KINDS.map((k) => `${manifest.counts[k].toLocaleString('en')} ${k}`).join(', ')} (${total.toLocaleString('en')} records)`,
      };
    } catch (error) {
      await rm(out, { force: true });
      throw error;
    }
  },
  async import(app, o, _migrated, args) {
    const ws = await app.get(WorkspacesService).findBySlug(required(o, 'workspace'));
    const source = importSource(o, args);
    const dryRun = o['dry-run'] === true;
    const bar = process.stderr.isTTY ? new ProgressBar(process.stderr, () => source.progress()) : undefined;
    try {
      const report = await app.get(ImportService).import(ws.id, source, { dryRun, onProgress: (r) => bar?.update(r) });
      return { json: { created: report.created, skipped: report.skipped, errors: report.errors }, text: importText(report, dryRun) };
    } finally {
      bar?.done();
    }
  },
  /** Every command applies pending migrations first; this one only reports them. */
  async migrate(_app, _o, migrated) {
    return {
      json: { applied: migrated },
      text: migrated.length ? `Applied ${migrated.join(', ')}` : 'No pending migrations.',
    };
  },
};

async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const words = Object.hasOwn(COMMANDS, positionals.slice(0, 2).join(' ')) ? 2 : 1;
  const name = positionals.slice(0, words).join(' ');
  const command: Command | undefined = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  const args = WITH_ARGUMENT.has(name) ? positionals.slice(words, words + 1) : [];
  if (command && positionals.length > words + args.length) {
    process.stderr.write(`Unexpected argument: ${positionals[words + args.length]}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help || !command) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }

  const config = loadConfig();
  // As the service does: an import or export of a large workspace makes garbage fast.
  tuneHeap(config);
  const database = await openDatabaseTarget(config, { joinRunning: true });
  let app: INestApplicationContext | undefined;
  try {
    const applied = await migrateDatabase(database);
    app = await NestFactory.createApplicationContext(CoreModule.forRoot(config, database), { logger: ['error'] });
    const output = await command(app, values, applied, args);
    process.stdout.write(`${values.json ? JSON.stringify(output.json) : output.text}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof AppError || error instanceof SourceError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await app?.close();
    await database.close();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => exitOnStartupError(error, 'The command failed'),
);
