import { createReadStream, createWriteStream, WriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Injectable } from '@nestjs/common';
import { pack as tarPack } from 'tar-stream';
import { ChangelogService } from '../changelog/changelog.service';
import { toCommentResponse } from '../comments/comment.mapper';
import { Links } from '../config/links';
import { Database, Queryable } from '../database/sql';
import { toPostResponse } from '../posts/post.mapper';
import { ExportedBoardRow, ExportedCommentRow, ExportedPersonRow, ExportedPostRow, ExportedVoteRow, TransferStore } from './transfer.store';

/** What `counts` of an export's manifest and of an import's report are keyed by. */
export const RECORD_FILES = ['boards', 'people', 'posts', 'votes', 'comments', 'changelog'] as const;
export type RecordFile = (typeof RECORD_FILES)[number];
export type Counts = Record<RecordFile, number>;

export const EXPORT_FORMAT = 'chorus-export';
export const EXPORT_VERSION = 1;

export interface Manifest {
  format: typeof EXPORT_FORMAT;
  version: typeof EXPORT_VERSION;
  workspace: { slug: string; name: string };
  exported_at: string;
  counts: Counts;
}

/** Rows read per statement: one page in memory at a time. */
const PAGE = 2_000;

/**
 * Writes a workspace as one gzipped tar: manifest.json, then one NDJSON file per kind of record,
 * in ascending id order. The records are read in one snapshot (REPEATABLE READ), a page at a
 * time, into temporary files (a tar entry's header states its size before its bytes), then
 * streamed into the tar; memory holds a page and the streams' buffers however big the
 * workspace. Nothing secret is read: no key or its hash, no endpoint or SSO secret, no session
 * or code. The changelog's entries are read through the changelog (its service), in the same
 * snapshot.
 *
 * Posts and comments carry their real `moderation` (held and rejected ones are exported too).
 */
@Injectable()
export class ExportService {
  constructor(
    private readonly db: Database,
    private readonly store: TransferStore,
    private readonly links: Links,
    private readonly changelog: ChangelogService,
  ) {}

  /**
   * Writes the workspace's export to `out`; `starting` is called once everything is read, just
   * before the first byte (an HTTP answer sets its headers then, so that a failure before is an
   * ordinary error answer).
   */
  async export(workspace: { id: string; slug: string; name: string }, out: Writable, starting?: () => void): Promise<Manifest> {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-export-'));
    try {
      const counts = await this.db.transaction(async (tx) => {
        await tx.rows('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        return this.writeFiles(tx, workspace, dir);
      });
      const manifest: Manifest = {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        workspace: { slug: workspace.slug, name: workspace.name },
        exported_at: new Date().toISOString(),
        counts,
      };
      starting?.();
      const tar = tarPack();
      const packed = pipeline(tar, createGzip(), out);
      packed.catch(() => {}); // awaited below
      tar.entry({ name: 'manifest.json', mtime: new Date(manifest.exported_at) }, `${JSON.stringify(manifest, null, 2)}\n`);
      for (const file of RECORD_FILES) {
        const path = join(dir, `${file}.ndjson`);
        const { size } = await stat(path);
        const entry = tar.entry({ name: `${file}.ndjson`, size, mtime: new Date(manifest.exported_at) });
        await pipeline(createReadStream(path), entry);
      }
      tar.finalize();
      await packed;
      return manifest;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async writeFiles(q: Queryable, workspace: { id: string; slug: string }, dir: string): Promise<Counts> {
    const ws = workspace.id;
    const counts = Object.fromEntries(RECORD_FILES.map((f) => [f, 0])) as Counts;
    const write = async <R>(file: RecordFile, next: (after: R | null) => Promise<R[]>, line: (row: R) => unknown) => {
      const stream = createWriteStream(join(dir, `${file}.ndjson`));
      try {
        let after: R | null = null;
        for (;;) {
          const rows = await next(after);
          if (rows.length === 0) break;
          await writeChunk(stream, rows.map((row) => `${JSON.stringify(line(row))}\n`).join(''));
          counts[file] += rows.length;
          after = rows[rows.length - 1];
        }
      } finally {
        stream.end();
        await once(stream, 'close');
      }
    };
    await write<ExportedBoardRow>('boards', (after) => this.store.boards(q, ws, after?.id ?? null, PAGE), (b) => ({
      id: b.id,
      slug: b.slug,
      name: b.name,
      description: b.description,
      public: b.public,
      notify_voters: b.notify_voters,
      url: this.links.board(workspace.slug, b.slug),
      created_at: b.created_at.toISOString(),
    }));
    await write<ExportedPersonRow>('people', (after) => this.store.people(q, ws, after?.id ?? null, PAGE), (p) => ({
      id: p.id,
      name: p.name,
      email: p.email,
      member: p.kind === 'member',
      unsubscribed: p.unsubscribed,
      created_at: p.created_at.toISOString(),
    }));
    await write<ExportedPostRow>('posts', (after) => this.store.posts(q, ws, after?.id ?? null, PAGE), (p) => ({
      ...toPostResponse(p, workspace.slug, this.links),
      author_id: p.author_id,
    }));
    await write<ExportedVoteRow>('votes', (after) => this.store.votes(q, ws, after, PAGE * 5), (v) => ({
      post_id: Number(v.post_id),
      person_id: v.person_id,
      created_at: v.created_at.toISOString(),
    }));
    await write<ExportedCommentRow>('comments', (after) => this.store.comments(q, ws, after?.id ?? null, PAGE), (c) => ({
      ...toCommentResponse(c),
      author_id: c.author_id,
    }));
    await write<{ id: number }>('changelog', (after) => this.changelog.exportPage(q, workspace, after?.id ?? null, PAGE), (e) => e);
    return counts;
  }
}

async function writeChunk(stream: WriteStream, chunk: string): Promise<void> {
  if (!stream.write(chunk)) await once(stream, 'drain');
}
