import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { extract as tarExtract } from 'tar-stream';
import { ENTRY_STATES, ENTRY_TYPES, EntryState, EntryType } from '../../changelog/changelog-entry';
import { MODERATION_STATES, ModerationState, POST_CATEGORIES, POST_STATUSES, PostCategory, PostStatus } from '../../posts/post.entity';
import { EXPORT_FORMAT, EXPORT_VERSION, Manifest } from '../export.service';
import { linesOf } from './lines';
import { ImportSource, SourceError, SourceRecord, timeOf, Where } from './source';

/** The files of an export, in the order an import reads them. */
const FILES = ['boards.ndjson', 'people.ndjson', 'posts.ndjson', 'votes.ndjson', 'comments.ndjson', 'changelog.ndjson'];

type Json = Record<string, unknown>;

/**
 * A Chorus export (`chorus export`, `GET /api/v1/export`): the gzipped tar read as a stream, one
 * line at a time. Its identity is the exported workspace's slug. The manifest must come first
 * and name this format; a file that is not a gzipped tar, or a tar cut short, cannot be read.
 */
export class ChorusArchiveSource implements ImportSource {
  name = 'chorus';
  private read = 0;
  private total = 0;

  constructor(private readonly path: string) {}

  progress() {
    return this.total ? { done: this.read, total: this.total } : undefined;
  }

  async *records(): AsyncGenerator<SourceRecord> {
    try {
      this.total = (await stat(this.path)).size;
    } catch (error) {
      throw new SourceError(`${this.path} cannot be read: ${(error as Error).message}`);
    }
    const file = createReadStream(this.path);
    file.on('data', (chunk) => (this.read += chunk.length));
    const gunzip = createGunzip();
    const extract = tarExtract();
    file.on('error', (error) => extract.destroy(error));
    gunzip.on('error', (error) => extract.destroy(new SourceError(`${this.path} is not a gzipped tar (${error.message})`)));
    file.pipe(gunzip).pipe(extract);
    let manifest: Manifest | undefined;
    try {
      for await (const entry of extract) {
        const name = entry.header.name.replace(/^\.\//, '');
        if (!manifest) {
          if (name !== 'manifest.json') throw new SourceError(`${this.path} is not a Chorus export: manifest.json is not its first file`);
          manifest = await readManifest(entry, this.path);
          this.name = `chorus:${manifest.workspace.slug}`;
          continue;
        }
        if (!FILES.includes(name)) {
          entry.resume();
          continue;
        }
        let line = 0;
        for await (const text of linesOf(entry)) {
          line++;
          if (text.trim() === '') continue;
          const at = { file: name, line };
          let object: Json;
          try {
            object = JSON.parse(text) as Json;
          } catch {
            yield { kind: 'error', at, message: 'not a JSON object' };
            continue;
          }
          yield recordOf(name, object, at);
        }
      }
    } catch (error) {
      if (error instanceof SourceError) throw error;
      throw new SourceError(`${this.path} cannot be read: ${(error as Error).message}`);
    } finally {
      file.destroy();
    }
    if (!manifest) throw new SourceError(`${this.path} is not a Chorus export: it has no manifest.json`);
  }
}

async function readManifest(entry: AsyncIterable<unknown>, path: string): Promise<Manifest> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Manifest;
  } catch {
    throw new SourceError(`${path} is not a Chorus export: manifest.json is not JSON`);
  }
  if (manifest?.format !== EXPORT_FORMAT) throw new SourceError(`${path} is not a Chorus export (format "${String(manifest?.format)}")`);
  if (manifest.version !== EXPORT_VERSION) throw new SourceError(`${path} is a Chorus export of version ${String(manifest.version)}; this version reads ${EXPORT_VERSION}`);
  if (typeof manifest.workspace?.slug !== 'string') throw new SourceError(`${path}: manifest.json names no workspace`);
  return manifest;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const id = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : undefined);

function recordOf(file: string, o: Json, at: Where): SourceRecord {
  const bad = (message: string): SourceRecord => ({ kind: 'error', at, message });
  switch (file) {
    case 'boards.ndjson': {
      const key = id(o.id);
      if (!key || typeof o.slug !== 'string' || typeof o.name !== 'string') return bad('a board needs id, slug and name');
      return {
        kind: 'board', at, key, slug: o.slug, name: o.name,
        description: str(o.description) ?? null,
        public: o.public !== false,
        notifyVoters: o.notify_voters !== false,
        createdAt: timeOf(str(o.created_at)) ?? null,
      };
    }
    case 'people.ndjson': {
      const key = id(o.id);
      if (!key || typeof o.name !== 'string') return bad('a person needs id and name');
      return {
        kind: 'person', at,
        person: { key, name: o.name, email: str(o.email) ?? null, unsubscribed: o.unsubscribed === true, createdAt: timeOf(str(o.created_at)) ?? null },
      };
    }
    case 'posts.ndjson': {
      const key = id(o.id);
      const board = o.board as Json | undefined;
      const boardKey = id(board?.id);
      const author = id(o.author_id);
      if (!key || !boardKey || !author || typeof o.title !== 'string') return bad('a post needs id, board, title and author_id');
      if (!POST_STATUSES.includes(o.status as PostStatus)) return bad(`status: "${String(o.status)}" is not a status`);
      if (o.moderation !== undefined && !MODERATION_STATES.includes(o.moderation as ModerationState)) return bad(`moderation: "${String(o.moderation)}" is not one of ${MODERATION_STATES.join(', ')}`);
      const merged = o.merged_into as Json | null | undefined;
      return {
        kind: 'post', at, key,
        board: { key: boardKey },
        title: o.title,
        body: str(o.body) ?? '',
        category: POST_CATEGORIES.includes(o.category as PostCategory) ? (o.category as PostCategory) : 'feature',
        status: o.status as PostStatus,
        pinned: o.pinned === true,
        moderation: (o.moderation as ModerationState | undefined) ?? 'approved',
        author: { key: author },
        mergedInto: merged ? (id(merged.id) ?? null) : null,
        createdAt: timeOf(str(o.created_at)) ?? null,
        updatedAt: timeOf(str(o.updated_at)) ?? null,
      };
    }
    case 'votes.ndjson': {
      const post = id(o.post_id);
      const person = id(o.person_id);
      if (!post || !person) return bad('a vote needs post_id and person_id');
      return { kind: 'vote', at, postKey: post, voter: { key: person }, createdAt: timeOf(str(o.created_at)) ?? null };
    }
    case 'comments.ndjson': {
      const key = id(o.id);
      const post = id(o.post_id);
      const author = id(o.author_id);
      if (!key || !post || !author || typeof o.body !== 'string') return bad('a comment needs id, post_id, author_id and body');
      if (o.moderation !== undefined && !MODERATION_STATES.includes(o.moderation as ModerationState)) return bad(`moderation: "${String(o.moderation)}" is not one of ${MODERATION_STATES.join(', ')}`);
      return {
        kind: 'comment', at, key, postKey: post, author: { key: author }, body: o.body,
        official: o.official === true,
        moderation: (o.moderation as ModerationState | undefined) ?? 'approved',
        createdAt: timeOf(str(o.created_at)) ?? null,
      };
    }
    default: {
      // changelog.ndjson
      const key = id(o.id);
      if (!key || typeof o.title !== 'string' || o.type === undefined || o.state === undefined) return bad('a changelog entry needs id, title, type and state');
      if (!ENTRY_TYPES.includes(o.type as EntryType)) return bad(`type: "${String(o.type)}" is not one of ${ENTRY_TYPES.join(', ')}`);
      if (!ENTRY_STATES.includes(o.state as EntryState)) return bad(`state: "${String(o.state)}" is not one of ${ENTRY_STATES.join(', ')}`);
      const postKeys = o.post_ids === undefined || o.post_ids === null ? [] : Array.isArray(o.post_ids) ? o.post_ids.map(id) : undefined;
      if (!postKeys || postKeys.some((k) => k === undefined)) return bad('post_ids: must be an array of post ids');
      const publishAt = timeOf(str(o.publish_at));
      const publishedAt = timeOf(str(o.published_at));
      if (o.state === 'published' && !publishedAt) return bad('published_at: a published entry needs the time it was published');
      if (o.state === 'scheduled' && !publishAt) return bad('publish_at: a scheduled entry needs the time it is to be published');
      return {
        kind: 'entry', at, key,
        title: o.title,
        body: str(o.body) ?? '',
        type: o.type as EntryType,
        // The state says which time counts: a draft has neither.
        publishAt: o.state === 'scheduled' ? publishAt! : null,
        publishedAt: o.state === 'published' ? publishedAt! : null,
        postKeys: [...new Set(postKeys as string[])],
        createdAt: timeOf(str(o.created_at)) ?? null,
        updatedAt: timeOf(str(o.updated_at)) ?? null,
      };
    }
  }
}
