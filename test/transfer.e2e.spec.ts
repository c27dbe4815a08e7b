import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gunzipSync, gzipSync } from 'node:zlib';
import { extract as tarExtract, pack as tarPack } from 'tar-stream';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, uniqueSlug } from './support/factories';
import { Client } from './support/http';
import { MailServer } from './support/mail';
import { ROOT, runToEnd } from './support/processes';
import { holdProcessorLock } from './support/processor-lock';
import { Receiver } from './support/receiver';
import { Visitor } from './support/site';
import { startTestApp, TEST_ENCRYPTION_KEY, testDatabaseUrl, TestApp } from './support/test-app';
import { sleep } from './support/wait';

type Row = Record<string, any>;
interface Archive {
  names: string[];
  manifest: Row;
  files: Record<string, Row[]>;
  /** Every byte of every file, decompressed. */
  text: string;
  contents: Record<string, string>;
}

/** A gzipped tar as its entries, read with a tar reader of its own (not the importer's). */
async function readArchive(gz: Buffer): Promise<Archive> {
  const extract = tarExtract();
  Readable.from([gunzipSync(gz)]).pipe(extract);
  const names: string[] = [];
  const contents: Record<string, string> = {};
  for await (const entry of extract) {
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    names.push(entry.header.name);
    contents[entry.header.name] = Buffer.concat(chunks).toString('utf8');
  }
  const files: Record<string, Row[]> = {};
  for (const name of names.filter((n) => n.endsWith('.ndjson'))) {
    files[name.replace('.ndjson', '')] = contents[name].split('\n').filter(Boolean).map((line) => JSON.parse(line));
  }
  return { names, manifest: JSON.parse(contents['manifest.json']), files, text: Object.values(contents).join('\n'), contents };
}

/** Files as a gzipped tar, in the order given (made with a tar writer of its own). */
async function packArchive(files: [name: string, text: string][]): Promise<Buffer> {
  const pack = tarPack();
  for (const [name, text] of files) pack.entry({ name }, text);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

const ascending = (ids: (string | number)[]) =>
  ids.every((id, i) => i === 0 || (typeof id === 'number' ? id > (ids[i - 1] as number) : String(id) > String(ids[i - 1])));

/**
 * An export without what differs between two workspaces holding the same records: ids (a board
 * by its slug, a person by address or name, a post, comment or changelog entry by its place in its file), the
 * workspace's slug in addresses, and whether a person is a member (an import brings people in as
 * non-members).
 */
function comparable(archive: Archive, slug: string) {
  const { boards, people, posts, votes, comments, changelog } = archive.files;
  const board = new Map(boards.map((b) => [b.id, b.slug]));
  const person = new Map(people.map((p) => [p.id, p.email ?? `name:${p.name}`]));
  const post = new Map(posts.map((p, i) => [p.id, i + 1]));
  const url = (u: string) =>
    u.replace(`/${slug}/`, '/WS/').replace(/\/p\/\d+/, '/p/N').replace(/\/admin\/p\/\d+/, '/admin/p/N').replace(/\/changelog\/\d+/, '/changelog/N');
  const byKey = <T>(rows: T[], key: (row: T) => string) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));
  return {
    boards: byKey(boards.map(({ id: _id, url: u, ...b }): Row => ({ ...b, url: url(u) })), (b) => b.slug),
    people: byKey(people.map(({ id: _id, member: _member, ...p }) => p), (p) => p.email ?? p.name),
    posts: posts.map(({ id: _id, author_id, board: b, merged_into, url: u, admin_url, ...p }) => ({
      ...p,
      board: board.get(b.id),
      author: person.get(author_id),
      merged_into: merged_into && { id: post.get(merged_into.id), title: merged_into.title, url: url(merged_into.url) },
      url: url(u),
      admin_url: url(admin_url),
    })),
    votes: byKey(votes.map((v) => ({ post: post.get(v.post_id), person: person.get(v.person_id), created_at: v.created_at })), (v) => `${v.post} ${v.person}`),
    comments: comments.map(({ id: _id, post_id, author_id, ...c }) => ({ ...c, post: post.get(post_id), author: person.get(author_id) })),
    changelog: changelog.map(({ id: _id, post_ids, url: u, admin_url, ...e }) => ({
      ...e,
      posts: post_ids.map((id: number) => post.get(id)),
      url: url(u),
      admin_url: url(admin_url),
    })),
  };
}

describe('moving in and out: export and import', () => {
  let t: TestApp;
  let release: () => Promise<void>;
  let smtp: MailServer;
  let receiver: Receiver;
  let dir: string;
  const redis = process.env.CHORUS_TEST_REDIS_URL || undefined;
  // The CLI writes the addresses the app does.
  const env = () => ({ DATABASE_URL: testDatabaseUrl(), ENCRYPTION_KEY: TEST_ENCRYPTION_KEY, REDIS_URL: redis, BASE_URL: 'https://chorus.test', PUBLIC_BASE_URL: 'https://boards.chorus.test' });
  const cli = (...args: string[]) => runToEnd('cli', args, env());

  async function cliJson(...args: string[]) {
    const result = await runToEnd('cli', [...args, '--json'], env());
    if (result.code !== 0) throw new Error(`chorus ${args.join(' ')} exited ${result.code}:\n${result.output}`);
    expect(result.stderr).toBe('');
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]);
  }

  const count = async (table: string, workspaceId: string) =>
    Number((await t.db.query(`SELECT count(*)::int AS n FROM ${table} WHERE workspace_id = $1`, [workspaceId]))[0].n);

  /** A workspace with nothing in it, as `workspace create` makes one. */
  async function emptyWorkspace(plan: 'pro' | 'business' = 'business') {
    const slug = uniqueSlug('dst');
    return t.app.get(WorkspacesService).create({ name: `Target ${slug}`, slug, plan });
  }

  const zeros = { boards: 0, people: 0, posts: 0, votes: 0, comments: 0, changelog: 0 };

  beforeAll(async () => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'cli.js'))) throw new Error('Build first: npm run build');
    release = await holdProcessorLock();
    smtp = await new MailServer().start();
    receiver = await Receiver.start();
    dir = await mkdtemp(join(tmpdir(), 'chorus-transfer-test-'));
    t = await startTestApp({
      RUN_WORKER: 'true',
      SMTP_URL: smtp.url,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ...(redis ? { REDIS_URL: redis } : {}),
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await receiver?.close();
    await rm(dir, { recursive: true, force: true });
    await release?.();
  });

  it('exports a workspace whole, without a secret, and an import of it into an empty workspace exports the same records; a second import adds nothing', async () => {
    const src = await createWorkspace(t.app, { plan: 'business' });
    const api = new Client(t.baseUrl, src.key);
    const made = async (path: string, body: unknown) => {
      const answer = await api.post(path, body);
      expect([200, 201]).toContain(answer.status);
      return answer.body.data;
    };
    const dark = await made('/api/v1/posts', { board: 'ideas', title: 'Dark mode, please', body: 'At night\n"the glare" hurts', author: { email: 'Zed@Example.com', name: 'Zed' } });
    const hidden = await made('/api/v1/posts', { board: 'secret', title: 'Private roadmap item', author: { name: 'Guest Gil' } });
    const night = await made('/api/v1/posts', { board: 'ideas', title: 'Night theme' });
    await made(`/api/v1/posts/${dark.id}/votes`, { voter: { email: 'amy@example.com', name: 'Amy' } });
    await made(`/api/v1/posts/${dark.id}/votes`, { voter: { name: 'Nameless Ned' } });
    await made(`/api/v1/posts/${hidden.id}/votes`, { voter: { email: 'amy@example.com' } });
    await made(`/api/v1/posts/${dark.id}/comments`, { body: 'We are on it' });
    // Moderation's verdicts travel too: a rejected post, and a rejected comment that counts on no post.
    const spam = await made('/api/v1/posts', { board: 'ideas', title: 'Cheap watches, very cheap' });
    expect((await made(`/api/v1/posts/${spam.id}/reject`, {})).moderation).toBe('rejected');
    const junk = await made(`/api/v1/posts/${dark.id}/comments`, { body: 'Visit my shop' });
    expect((await made(`/api/v1/comments/${junk.id}/reject`, {})).moderation).toBe('rejected');
    expect((await api.patch(`/api/v1/posts/${dark.id}`, { status: 'planned' })).status).toBe(200);
    await made(`/api/v1/posts/${night.id}/merge`, { into: dark.id });
    // The changelog: a draft, a scheduled and a published entry, linking posts (a private and a merged one too).
    const draft = await made('/api/v1/changelog', { title: 'Notes on night themes', body: 'Still *writing* this', type: 'improved', post_ids: [night.id] });
    const scheduled = await made('/api/v1/changelog', {
      title: 'Private roadmaps',
      type: 'new',
      post_ids: [hidden.id, dark.id],
      publish_at: '2099-01-01T09:00:00.000Z',
    });
    const shipped = await made('/api/v1/changelog', { title: 'Dark mode is here', body: 'Turn it on in **Settings**.', type: 'fixed', post_ids: [dark.id] });
    expect((await made(`/api/v1/changelog/${shipped.id}/publish`, {})).state).toBe('published');
    // Secrets the workspace holds, none of which may leave in an export.
    const sso = await cliJson('sso', 'rotate', '--workspace', src.slug);
    const made_ = await runToEnd(
      'cli',
      ['endpoint', 'create', '--workspace', src.slug, '--kind', 'webhook', '--url', 'http://127.0.0.1:9/hook', '--events', 'post.created', '--json'],
      { ...env(), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    );
    const endpoint = JSON.parse(made_.stdout);
    expect(endpoint.secret).toMatch(/^whsec_/);
    await cli('endpoint', 'disable', '--id', endpoint.id);
    const [{ key_hash: keyHash }] = await t.db.query(`SELECT key_hash FROM api_keys WHERE id = $1`, [src.keyId]);

    const first = join(dir, 'first.tar.gz');
    const exported = await cliJson('export', '--workspace', src.slug, '--out', first);
    const a = await readArchive(await readFile(first));
    expect(a.names).toEqual(['manifest.json', 'boards.ndjson', 'people.ndjson', 'posts.ndjson', 'votes.ndjson', 'comments.ndjson', 'changelog.ndjson']);
    expect(a.manifest).toEqual({
      format: 'chorus-export',
      version: 1,
      workspace: { slug: src.slug, name: `Workspace ${src.slug}` },
      exported_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      counts: { boards: 2, people: 5, posts: 4, votes: 8, comments: 2, changelog: 3 },
    });
    expect(exported.counts).toEqual(a.manifest.counts);
    for (const [file, rows] of Object.entries(a.files)) expect(rows).toHaveLength(a.manifest.counts[file]);
    for (const file of ['boards', 'people', 'posts', 'comments', 'changelog']) expect(ascending(a.files[file].map((r) => r.id))).toBe(true);
    expect(a.files.votes.map((v) => `${v.post_id}`.padStart(12, '0') + v.person_id)).toEqual(a.files.votes.map((v) => `${v.post_id}`.padStart(12, '0') + v.person_id).sort());
    // The API's post, merged and private ones included, with its author's id.
    const apiDark = (await api.get(`/api/v1/posts/${dark.id}`)).body.data;
    expect(a.files.posts.find((p) => p.id === dark.id)).toEqual({ ...apiDark, author_id: expect.any(String) });
    expect(a.files.posts.find((p) => p.id === night.id)!.merged_into).toEqual(expect.objectContaining({ id: dark.id }));
    expect(a.files.posts.find((p) => p.id === hidden.id)!.board.slug).toBe('secret');
    expect(a.files.people.find((p) => p.email === 'zed@example.com')).toEqual(
      expect.objectContaining({ name: 'Zed', member: false, unsubscribed: false }),
    );
    expect(a.files.people.find((p) => p.email === src.member.email)!.member).toBe(true);
    expect(a.files.comments[0]).toEqual(expect.objectContaining({ body: 'We are on it', official: true, moderation: 'approved', author_id: src.member.id }));
    expect(a.files.comments[1]).toEqual(expect.objectContaining({ body: 'Visit my shop', moderation: 'rejected' }));
    expect(a.files.posts.find((p) => p.id === spam.id)!.moderation).toBe('rejected');
    expect(a.files.posts.find((p) => p.id === dark.id)!.comments).toBe(1);
    // Every entry, whatever its state: the API's entry with its linked posts' ids instead of the posts.
    expect(a.files.changelog.map((e) => [e.id, e.state])).toEqual([
      [draft.id, 'draft'],
      [scheduled.id, 'scheduled'],
      [shipped.id, 'published'],
    ]);
    for (const line of a.files.changelog) {
      const { posts: linked, ...entry } = (await api.get(`/api/v1/changelog/${line.id}`)).body.data;
      expect(line).toEqual({ ...entry, post_ids: linked.map((p: Row) => p.id) });
    }
    expect(a.files.changelog.map((e) => e.post_ids)).toEqual([[night.id], [dark.id, hidden.id].sort((x, y) => x - y), [dark.id]]);
    expect(a.files.changelog[1].publish_at).toBe('2099-01-01T09:00:00.000Z');
    expect(a.files.changelog[2].published_at).toEqual(expect.any(String));
    for (const secret of [src.key, keyHash, sso.secret, endpoint.secret, 'chorus_key_', 'whsec_']) expect(a.text).not.toContain(secret);
    expect(a.text).not.toMatch(/key_hash|_sealed|session|sign_in/i);

    // Into an empty workspace: dry run first, then for real.
    const dst = await emptyWorkspace();
    const mailsBefore = smtp.accepted.length;
    const dry = await cliJson('import', '--workspace', dst.slug, first, '--dry-run');
    expect(dry).toEqual({ created: a.manifest.counts, skipped: zeros, errors: [] });
    expect(await count('posts', dst.id)).toBe(0);
    expect(await count('people', dst.id)).toBe(0);
    const imported = await cliJson('import', '--workspace', dst.slug, first);
    expect(imported).toEqual({ created: a.manifest.counts, skipped: zeros, errors: [] });

    const second = join(dir, 'second.tar.gz');
    await cliJson('export', '--workspace', dst.slug, '--out', second);
    const b = await readArchive(await readFile(second));
    expect(b.manifest.counts).toEqual(a.manifest.counts);
    expect(comparable(b, dst.slug)).toEqual(comparable(a, src.slug));
    // People come in as non-members.
    expect(b.files.people.every((p) => p.member === false)).toBe(true);
    expect(b.files.posts.map((p) => p.id)).not.toEqual(a.files.posts.map((p) => p.id));

    // The same export again adds nothing.
    const again = await cliJson('import', '--workspace', dst.slug, first);
    expect(again).toEqual({ created: zeros, skipped: a.manifest.counts, errors: [] });
    expect(await count('posts', dst.id)).toBe(4);
    const verdicts: Row[] = await t.db.query(
      `SELECT title, moderation, comments_count FROM posts WHERE workspace_id = $1 AND title IN ('Dark mode, please', 'Cheap watches, very cheap') ORDER BY title`,
      [dst.id],
    );
    expect(verdicts).toEqual([
      { title: 'Cheap watches, very cheap', moderation: 'rejected', comments_count: 0 },
      { title: 'Dark mode, please', moderation: 'approved', comments_count: 1 },
    ]);
    expect(await count('votes', dst.id)).toBe(8);
    expect(await count('changelog_entries', dst.id)).toBe(3);
    expect(await count('changelog_entry_posts', dst.id)).toBe(4);

    // The published entry came in published, not published again: no event, no email, none to make
    // (while the processor runs); the scheduled one waits for its time.
    await sleep(1_500);
    for (const table of ['outbox_events', 'webhook_deliveries', 'email_usage']) expect(await count(table, dst.id)).toBe(0);
    const states: Row[] = await t.db.query(
      `SELECT title, published_at, publish_at, mail_after FROM changelog_entries WHERE workspace_id = $1 ORDER BY id`,
      [dst.id],
    );
    expect(states).toEqual([
      { title: 'Notes on night themes', published_at: null, publish_at: null, mail_after: null },
      { title: 'Private roadmaps', published_at: null, publish_at: new Date('2099-01-01T09:00:00.000Z'), mail_after: null },
      { title: 'Dark mode is here', published_at: new Date(a.files.changelog[2].published_at), publish_at: null, mail_after: null },
    ]);
    expect(smtp.accepted.slice(mailsBefore).filter((m) => m.raw.includes(dst.slug))).toEqual([]);

    // An entry linking a post the export does not hold is reported with its file and line; the rest goes in.
    const lines = a.contents['changelog.ndjson'].trimEnd().split('\n');
    const stray = { ...a.files.changelog[2], id: 999_999, title: 'Links a post from nowhere', post_ids: [dark.id, 888_888] };
    const edited = join(dir, 'edited.tar.gz');
    await writeFile(
      edited,
      await packArchive([
        ['manifest.json', a.contents['manifest.json']],
        ...(['boards', 'people', 'posts', 'votes', 'comments'] as const).map((f): [string, string] => [`${f}.ndjson`, a.contents[`${f}.ndjson`]]),
        ['changelog.ndjson', [lines[0], JSON.stringify(stray), lines[1], lines[2]].join('\n') + '\n'],
      ]),
    );
    const elsewhere = await emptyWorkspace();
    const partial = await cliJson('import', '--workspace', elsewhere.slug, edited);
    expect(partial).toEqual({
      created: a.manifest.counts,
      skipped: zeros,
      errors: [{ file: 'changelog.ndjson', line: 2, message: 'post_ids: 888888 is not a post of this import' }],
    });
    expect(await count('changelog_entries', elsewhere.id)).toBe(3);

    // The running service shows what came in: its pages, and a search.
    const page = await new Visitor(t.baseUrl).get(`/${dst.slug}/ideas`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Dark mode, please');
    const [{ n: found }] = await t.db.query(
      `SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1 AND chorus_search_keys(workspace_id, title || ' ' || body) @> chorus_search_term_keys($1::uuid, ARRAY['glare'])`,
      [dst.id],
    );
    expect(found).toBe(1);
  });

  it('imports posts, votes and comments from CSV, reporting each bad row with its file and line while the rest goes in', async () => {
    const dst = await emptyWorkspace();
    const posts = join(dir, 'posts.csv');
    const votes = join(dir, 'votes.csv');
    const comments = join(dir, 'comments.csv');
    const long = 'x'.repeat(121);
    await writeFile(
      posts,
      '\ufeffid,board,title,body,status,author_email,author_name,created_at\r\n' +
        '1,feature-requests,"Export, to PDF","Line one\r\nline ""two""",under review,Ann@Example.com,Ann,2023-05-01T10:00:00Z\r\n' + // lines 2-3
        '2,feature-requests,Slack alerts,,in progress,,Bob Guest,2023-05-02T10:00:00.123Z\r\n' + // 4
        '3,bugs,Crash on save,,complete,ann@example.com,,2023-05-03\r\n' + // 5
        ',bugs,No id here,,open,,Cy,\r\n' + // 6: missing id
        '4,Not A Slug,Bad board,,open,,Cy,\r\n' + // 7: board not a slug
        '5,bugs,Bad status,,someday,,Cy,\r\n' + // 8: unknown status
        '6,bugs,Bad time,,open,,Cy,yesterday\r\n' + // 9: not a time
        '7,bugs,Bad email,,open,not-an-address,Cy,\r\n' + // 10: bad address
        '8,bugs,Nobody wrote this,,open,,,\r\n' + // 11: no author
        `9,bugs,${long},,open,,Cy,\r\n` + // 12: title too long
        '10,bugs,,,open,,Cy,\r\n' + // 13: no title
        '11,bugs,Too few fields\r\n' + // 14: wrong number of fields
        '2,bugs,Same id again,,open,,Cy,\r\n' + // 15: duplicate id
        '\r\n' +
        '12,bugs,After a blank line,,closed,,Dee,2023-06-01T00:00:00+02:00\r\n' + // 17
        '13,roadmap,A board the site keeps,,open,,Cy,\r\n', // 18: a slug that is one of the site's own pages
    );
    await writeFile(
      votes,
      'post_id,voter_email,voter_name,created_at\n' +
        '1,vic@example.com,Vic,2023-05-05T00:00:00Z\n' +
        '1,ANN@example.com,,\n' +
        '2,vic@example.com,Vic,\n' +
        '1,vic@example.com,Vic,\n' + // 5: the same vote twice: one vote
        '99,vic@example.com,Vic,\n' + // 6: no such post
        '5,vic@example.com,Vic,\n' + // 7: a post that did not go in
        '2,,,\n' + // 8: no voter
        '2,bad@,X,\n', // 9: bad address
    );
    await writeFile(
      comments,
      'post_id,author_email,author_name,body,official,created_at\n' +
        '1,ann@example.com,Ann,"Thanks, all",true,2023-05-06T00:00:00Z\n' +
        '2,,Wes,"Multi\nline\ncomment",false,\n' + // 3-5
        '1,,Wes,Nope,yes,\n' + // 6: official not true/false
        '1,,Wes,,false,\n' + // 7: empty body
        '42,,Wes,Lost,false,\n', // 8: no such post
    );
    const expectedErrors = [
      { file: 'posts.csv', line: 6, message: 'id: is required' },
      { file: 'posts.csv', line: 8, message: expect.stringContaining('status: "someday" is not a status') },
      { file: 'posts.csv', line: 9, message: 'created_at: "yesterday" is not an ISO 8601 time' },
      { file: 'posts.csv', line: 14, message: 'has 3 fields, the header 8' },
      { file: 'posts.csv', line: 7, message: 'board: "Not A Slug" is not a board slug' },
      { file: 'posts.csv', line: 18, message: 'board: "roadmap" is not a board slug' },
      { file: 'posts.csv', line: 10, message: 'author_email: "not-an-address" is not an email address' },
      { file: 'posts.csv', line: 11, message: 'author_email or author_name: is required' },
      { file: 'posts.csv', line: 12, message: 'title: must be at most 120 characters' },
      { file: 'posts.csv', line: 13, message: 'title: is required' },
      { file: 'posts.csv', line: 15, message: 'id: 2 is listed twice' },
      { file: 'votes.csv', line: 6, message: 'post_id: 99 is not a post of this import' },
      { file: 'votes.csv', line: 7, message: 'post_id: 5 is not a post of this import' },
      { file: 'votes.csv', line: 8, message: 'voter_email or voter_name: is required' },
      { file: 'votes.csv', line: 9, message: 'voter_email: "bad@" is not an email address' },
      { file: 'comments.csv', line: 6, message: 'official: "yes" must be true or false' },
      { file: 'comments.csv', line: 7, message: 'body: is required' },
      { file: 'comments.csv', line: 8, message: 'post_id: 42 is not a post of this import' },
    ];
    const sortErrors = (errors: Row[]) => [...errors].sort((x, y) => x.file.localeCompare(y.file) || x.line - y.line);
    const args = ['import', '--workspace', dst.slug, '--posts', posts, '--votes', votes, '--comments', comments];
    const created = { boards: 2, people: 5, posts: 4, votes: 3, comments: 2, changelog: 0 };

    const dry = await cliJson(...args, '--dry-run');
    expect(dry.created).toEqual(created);
    expect(sortErrors(dry.errors)).toEqual(sortErrors(expectedErrors));
    expect(await count('posts', dst.id)).toBe(0);
    expect(await count('boards', dst.id)).toBe(0);

    const report = await cliJson(...args);
    expect(report.created).toEqual(created);
    expect(report.skipped).toEqual({ ...zeros, votes: 1 });
    expect(sortErrors(report.errors)).toEqual(sortErrors(expectedErrors));

    const rows: Row[] = await t.db.query(
      `SELECT p.title, p.body, p.status, p.votes, p.comments_count, p.created_at, b.slug AS board, a.name AS author, a.email, a.kind
         FROM posts p JOIN boards b ON b.workspace_id = p.workspace_id AND b.id = p.board_id
         JOIN people a ON a.workspace_id = p.workspace_id AND a.id = p.author_id
        WHERE p.workspace_id = $1 ORDER BY p.id`,
      [dst.id],
    );
    expect(rows).toEqual([
      expect.objectContaining({ title: 'Export, to PDF', body: 'Line one\nline "two"', status: 'open', votes: 2, comments_count: 1, board: 'feature-requests', author: 'Ann', email: 'ann@example.com', kind: 'guest', created_at: new Date('2023-05-01T10:00:00Z') }),
      expect.objectContaining({ title: 'Slack alerts', status: 'in_progress', votes: 1, comments_count: 1, author: 'Bob Guest', email: null, created_at: new Date('2023-05-02T10:00:00.123Z') }),
      expect.objectContaining({ title: 'Crash on save', status: 'done', votes: 0, board: 'bugs', author: 'Ann' }),
      expect.objectContaining({ title: 'After a blank line', status: 'closed', author: 'Dee', created_at: new Date('2023-05-31T22:00:00Z') }),
    ]);
    const [comment] = await t.db.query(`SELECT body, official FROM comments WHERE workspace_id = $1 AND body LIKE 'Multi%'`, [dst.id]);
    expect(comment).toEqual({ body: 'Multi\nline\ncomment', official: false });

    // Again: nothing new, the same rows reported.
    const again = await cliJson(...args);
    expect(again.created).toEqual(zeros);
    expect(again.skipped).toEqual({ ...zeros, people: 5, posts: 4, votes: 4, comments: 2 });
    expect(sortErrors(again.errors)).toEqual(sortErrors(expectedErrors));
    expect(await count('posts', dst.id)).toBe(4);
    expect(await count('comments', dst.id)).toBe(2);

    // A file that cannot be read writes nothing, and says why.
    const other = await emptyWorkspace();
    const headless = join(dir, 'headless.csv');
    await writeFile(headless, 'id,title\n1,Hello there\n');
    const refused = await cli('import', '--workspace', other.slug, '--posts', headless, '--json');
    expect(refused.code).not.toBe(0);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('headless.csv: the header row lacks board, body, status, author_email, author_name, created_at');
    const missing = await cli('import', '--workspace', other.slug, '--posts', posts, '--votes', join(dir, 'nowhere.csv'));
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('nowhere.csv cannot be read');
    expect(await count('posts', other.id)).toBe(0);
    expect(await count('people', other.id)).toBe(0);
  });

  describe('from Canny', () => {
    let canny: http.Server;
    let cannyUrl: string;
    const KEY = 'canny-secret-key';
    const seen: { path: string; skip?: number; status: number }[] = [];
    let throttled = false;
    const statuses = ['open', 'under review', 'planned', 'in progress', 'complete', 'closed'];
    const boards = [
      { id: 'b1', name: 'Feature Requests', url: 'https://acme.canny.io/feature-requests', isPrivate: false, created: '2022-01-01T00:00:00.000Z', postCount: 80 },
      { id: 'b2', name: 'Internal Ideas', url: 'https://acme.canny.io/internal', isPrivate: true, created: '2022-01-02T00:00:00.000Z', postCount: 50 },
    ];
    const user = (n: number) => ({ id: `u${n}`, name: `User ${n}`, email: n % 3 === 0 ? null : `user${n}@canny.example`, isAdmin: n === 1 });
    const posts = Array.from({ length: 130 }, (_, i) => ({
      id: `p${i + 1}`,
      title: `Canny post number ${i + 1}`,
      details: i === 0 ? 'The first, with details' : '',
      status: statuses[i % statuses.length],
      board: boards[i < 80 ? 0 : 1],
      author: user((i % 7) + 1),
      created: new Date(Date.UTC(2022, 2, 1) + i * 3_600_000).toISOString(),
      score: 2,
      commentCount: 0,
    }));
    const votes = posts.flatMap((p, i) => [
      { id: `v${i}a`, post: { id: p.id }, voter: user(((i + 1) % 7) + 1), created: '2022-04-01T00:00:00.000Z' },
      { id: `v${i}b`, post: { id: p.id }, voter: user(((i + 3) % 7) + 1), created: '2022-04-02T00:00:00.000Z' },
    ]);
    const comments = [
      { id: 'c1', post: { id: 'p1' }, author: user(1), value: 'Thanks, on the roadmap', internal: false, created: '2022-05-01T00:00:00.000Z' },
      { id: 'c2', post: { id: 'p1' }, author: user(2), value: 'Me too', internal: false, created: '2022-05-02T00:00:00.000Z' },
      { id: 'c3', post: { id: 'p1' }, author: user(1), value: 'Team note: big customer', internal: true, created: '2022-05-03T00:00:00.000Z' },
    ];

    beforeAll(async () => {
      canny = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          const body = JSON.parse(raw || '{}');
          const path = (req.url ?? '').replace(/^\/api\/v1\//, '');
          const answer = (status: number, json: unknown, headers: Record<string, string> = {}) => {
            seen.push({ path, skip: body.skip, status });
            res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(json));
          };
          if (req.method !== 'POST') return answer(404, { error: 'not found' });
          if (body.apiKey !== KEY) return answer(401, { error: 'invalid api key' });
          const page = (items: unknown[]) => {
            const limit = Math.min(Number(body.limit ?? 10), 100);
            const skip = Number(body.skip ?? 0);
            return { hasMore: skip + limit < items.length, items: items.slice(skip, skip + limit) };
          };
          if (path === 'boards/list') return answer(200, { boards });
          if (path === 'posts/list') {
            if (body.skip === 100 && !throttled) {
              throttled = true;
              return answer(429, { error: 'too many requests' }, { 'retry-after': '1' });
            }
            const { hasMore, items } = page(posts);
            return answer(200, { hasMore, posts: items });
          }
          if (path === 'votes/list') {
            const { hasMore, items } = page(votes);
            return answer(200, { hasMore, votes: items });
          }
          if (path === 'comments/list') {
            const { hasMore, items } = page(comments);
            return answer(200, { hasMore, comments: items });
          }
          return answer(404, { error: 'not found' });
        });
      });
      await new Promise<void>((resolve) => canny.listen(0, '127.0.0.1', resolve));
      cannyUrl = `http://127.0.0.1:${(canny.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => canny.close(() => resolve())));

    it('refuses a wrong key, writing nothing, with a non-zero exit', async () => {
      const dst = await emptyWorkspace();
      const result = await cli('import', '--workspace', dst.slug, '--from', 'canny', '--canny-key', 'wrong', '--canny-url', cannyUrl, '--json');
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toContain('Canny refused the key (invalid api key)');
      expect(await count('boards', dst.id)).toBe(0);
      expect(await count('people', dst.id)).toBe(0);
    });

    it('reads every page of boards, posts, votes and comments, waits out a 429, and a second run adds nothing', async () => {
      const dst = await emptyWorkspace();
      const args = ['import', '--workspace', dst.slug, '--from', 'canny', '--canny-key', KEY, '--canny-url', cannyUrl];
      const report = await cliJson(...args);
      const people = new Set([...posts.map((p) => p.author.id), ...votes.map((v) => v.voter.id), 'u1', 'u2']).size;
      expect(report).toEqual({
        created: { boards: 2, people, posts: 130, votes: 260, comments: 2, changelog: 0 },
        skipped: zeros,
        errors: [],
      });
      const postPages = seen.filter((s) => s.path === 'posts/list').map((s) => [s.skip, s.status]);
      expect(postPages).toEqual([[0, 200], [100, 429], [100, 200]]);
      expect(seen.filter((s) => s.path === 'votes/list').map((s) => s.skip)).toEqual([0, 100, 200]);

      const boardsHere: Row[] = await t.db.query(`SELECT slug, name, public FROM boards WHERE workspace_id = $1 ORDER BY slug`, [dst.id]);
      expect(boardsHere).toEqual([
        { slug: 'feature-requests', name: 'Feature Requests', public: true },
        { slug: 'internal', name: 'Internal Ideas', public: false },
      ]);
      const byStatus: Row[] = await t.db.query(
        `SELECT status, count(*)::int AS n FROM posts WHERE workspace_id = $1 GROUP BY status ORDER BY status`,
        [dst.id],
      );
      // open and under review → open; in progress → in_progress; complete → done.
      expect(byStatus).toEqual([
        { status: 'closed', n: 21 },
        { status: 'done', n: 21 },
        { status: 'in_progress', n: 22 },
        { status: 'open', n: 44 },
        { status: 'planned', n: 22 },
      ]);
      const [first] = await t.db.query(
        `SELECT p.title, p.body, p.votes, p.comments_count, p.created_at, a.name, a.email FROM posts p
           JOIN people a ON a.workspace_id = p.workspace_id AND a.id = p.author_id
          WHERE p.workspace_id = $1 AND p.title = 'Canny post number 1'`,
        [dst.id],
      );
      expect(first).toEqual({
        title: 'Canny post number 1', body: 'The first, with details', votes: 2, comments_count: 2,
        created_at: new Date(posts[0].created), name: 'User 1', email: 'user1@canny.example',
      });
      const official: Row[] = await t.db.query(`SELECT body, official FROM comments WHERE workspace_id = $1 ORDER BY created_at`, [dst.id]);
      expect(official).toEqual([{ body: 'Thanks, on the roadmap', official: true }, { body: 'Me too', official: false }]);

      const again = await cliJson(...args);
      expect(again.created).toEqual(zeros);
      expect(again.skipped).toEqual({ boards: 2, people, posts: 130, votes: 260, comments: 2, changelog: 0 });
      expect(await count('posts', dst.id)).toBe(130);
      expect(await count('people', dst.id)).toBe(people);
    });
  });

  it('is quiet: no event, webhook, email or rate-limit count comes of an import', async () => {
    const dst = await createWorkspace(t.app, { plan: 'business' });
    const api = new Client(t.baseUrl, dst.key);
    const hook = await api.post('/api/v1/webhook_endpoints', { url: `${receiver.url}/quiet`, events: ['post.created', 'post.status_changed', 'comment.created', 'post.voted'] });
    expect(hook.status).toBe(201);
    const posts = join(dir, 'quiet-posts.csv');
    const votes = join(dir, 'quiet-votes.csv');
    const comments = join(dir, 'quiet-comments.csv');
    await writeFile(posts, 'id,board,title,body,status,author_email,author_name,created_at\n1,ideas,Loud idea,,planned,poster@quiet.example,Poster,\n2,ideas,Done idea,,complete,poster@quiet.example,Poster,\n');
    await writeFile(votes, 'post_id,voter_email,voter_name,created_at\n1,voter1@quiet.example,V1,\n2,voter2@quiet.example,V2,\n');
    await writeFile(comments, 'post_id,author_email,author_name,body,official,created_at\n1,,Team,Shipping soon,true,\n');
    const mailsBefore = smtp.accepted.length;
    // The board's page, seen (and remembered by the page cache) before the import.
    const visitor = new Visitor(t.baseUrl);
    const before = await visitor.get(`/${dst.slug}/ideas`);
    expect(before.status).toBe(200);
    expect(before.text).not.toContain('Loud idea');
    const report = await cliJson('import', '--workspace', dst.slug, '--posts', posts, '--votes', votes, '--comments', comments);
    // The import told the running service its pages changed.
    // Asked with the validator of the page before: a stale cache would answer 304.
    const etag = before.headers.get('etag');
    expect(etag).toBeTruthy();
    const after = await visitor.get(`/${dst.slug}/ideas`, { 'if-none-match': etag! });
    expect(after.status).toBe(200);
    expect(after.text).toContain('Loud idea');
    expect(report.created).toEqual({ boards: 0, people: 4, posts: 2, votes: 2, comments: 1, changelog: 0 });

    for (const table of ['outbox_events', 'webhook_deliveries', 'delivery_usage', 'email_usage']) expect(await count(table, dst.id)).toBe(0);
    // The workspace's rate-limit window is untouched: this is its first counted request.
    const first = await api.get('/api/v1/boards');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('298'); // 300 a minute, the endpoint's creation and this one
    // A post made through the API reaches the receiver: the channel works, and is all it got.
    await api.post('/api/v1/posts', { board: 'ideas', title: 'Made after the import' });
    const [delivered] = await receiver.waitFor(1);
    await sleep(1_500);
    expect(receiver.requests.filter((r) => r.path === '/quiet')).toHaveLength(1);
    expect(delivered.body.type).toBe('post.created');
    expect(delivered.body.data.post.title).toBe('Made after the import');
    const quietAddresses = ['poster@quiet.example', 'voter1@quiet.example', 'voter2@quiet.example'];
    expect(smtp.accepted.slice(mailsBefore).filter((m) => m.envelopeTo.some((to) => quietAddresses.includes(to)))).toEqual([]);
  });

  it('serves GET /api/v1/export to Business workspaces only', async () => {
    const pro = await createWorkspace(t.app, { plan: 'pro' });
    const refused = await new Client(t.baseUrl, pro.key).get('/api/v1/export');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'plan_required', message: 'Exporting through the API is available on the Business plan.' } });
    const free = await createWorkspace(t.app, { plan: 'free' });
    expect((await new Client(t.baseUrl, free.key).get('/api/v1/export')).status).toBe(403);

    const business = await createWorkspace(t.app, { plan: 'business' });
    await new Client(t.baseUrl, business.key).post('/api/v1/posts', { board: 'ideas', title: 'Through the API' });
    const answer = await fetch(`${t.baseUrl}/api/v1/export`, { headers: { authorization: `Bearer ${business.key}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/gzip');
    expect(answer.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="chorus-${business.slug}-\\d{4}-\\d\\d-\\d\\d\\.tar\\.gz"$`));
    const archive = await readArchive(Buffer.from(await answer.arrayBuffer()));
    expect(archive.manifest.workspace).toEqual({ slug: business.slug, name: `Workspace ${business.slug}` });
    expect(archive.files.posts.map((p) => p.title)).toEqual(['Through the API']);
    expect(archive.text).not.toContain(business.key);

    const document = (await new Client(t.baseUrl).get('/api/v1/openapi.json')).body;
    expect(document.paths['/api/v1/export'].get.responses['200'].content).toHaveProperty('application/gzip');
  });
});
