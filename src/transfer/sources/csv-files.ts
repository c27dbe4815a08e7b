import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { Transform } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { normalEmail } from '../../common/email-address';
import { ImportSource, PersonRef, SourceError, SourceRecord, statusOf, timeOf, Where } from './source';

/** The columns each file's header row must name (in any order; others are ignored). */
export const CSV_COLUMNS = {
  posts: ['id', 'board', 'title', 'body', 'status', 'author_email', 'author_name', 'created_at'],
  votes: ['post_id', 'voter_email', 'voter_name', 'created_at'],
  comments: ['post_id', 'author_email', 'author_name', 'body', 'official', 'created_at'],
} as const;

type Kind = keyof typeof CSV_COLUMNS;
type Row = Record<string, string>;

export interface CsvFiles {
  posts: string;
  votes?: string;
  comments?: string;
}

/**
 * Posts, and their votes and comments, from CSV files (RFC 4180: quoted fields may hold commas,
 * quotes and line breaks; a UTF-8 BOM is ignored), each with a header row. A row's line is the
 * one where it starts, the header being line 1. Its identity is the posts file's name: a post is
 * its `id` there, a person their address (or, without one, their name), a comment what it says,
 * who said it, when and on which post.
 */
export class CsvSource implements ImportSource {
  readonly name: string;
  private read = 0;
  private total = 0;

  constructor(private readonly files: CsvFiles) {
    this.name = `csv:${basename(files.posts)}`;
  }

  progress() {
    return this.total ? { done: this.read, total: this.total } : undefined;
  }

  async *records(): AsyncGenerator<SourceRecord> {
    // Comments before votes: the importer holds a post back until its votes are read, and writes it
    // once, with its counts (import.service.ts), so they come before.
    const kinds = (['posts', 'comments', 'votes'] as const).filter((kind) => this.files[kind]);
    for (const kind of kinds) {
      try {
        this.total += (await stat(this.files[kind]!)).size;
      } catch (error) {
        throw new SourceError(`${this.files[kind]} cannot be read: ${(error as Error).message}`);
      }
    }
    for (const kind of kinds) {
      const path = this.files[kind]!;
      for await (const row of this.rows(kind, path)) {
        if ('error' in row) yield { kind: 'error', at: row.at, message: row.error };
        else yield recordOf(kind, row.row, row.at);
      }
    }
  }

  /** The file's rows as objects by column, or the problem of a row that has the wrong shape. */
  private async *rows(kind: Kind, path: string): AsyncGenerator<{ row: Row; at: Where } | { error: string; at: Where }> {
    const file = basename(path);
    const input = createReadStream(path);
    input.on('data', (chunk) => (this.read += chunk.length));
    const parser = parse({ bom: true, info: true, skip_empty_lines: true, relax_column_count: true, skip_records_with_error: true });
    const skipped: { error: string; at: Where }[] = [];
    parser.on('skip', (error: CsvError) => {
      skipped.push({ error: `not CSV: ${error.message}`, at: { file, line: (error as CsvError & { lines?: number }).lines ?? 0 } });
    });
    input.on('error', (error) => parser.destroy(error));
    input.pipe(lineFeeds()).pipe(parser);
    let header: string[] | undefined;
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        while (skipped.length) yield skipped.shift()!;
        // info.lines is where the row ends; the line breaks before it are in its quoted fields.
        let breaks = 0;
        for (const field of record) for (let i = field.indexOf('\n'); i !== -1; i = field.indexOf('\n', i + 1)) breaks++;
        const at = { file, line: info.lines - breaks };
        if (!header) {
          header = record.map((name) => name.trim().toLowerCase());
          const missing = CSV_COLUMNS[kind].filter((name) => !header!.includes(name));
          if (missing.length) throw new SourceError(`${file}: the header row lacks ${missing.join(', ')} (expected ${CSV_COLUMNS[kind].join(',')})`);
          continue;
        }
        if (record.length !== header.length) {
          yield { error: `has ${record.length} fields, the header ${header.length}`, at };
          continue;
        }
        yield { row: Object.fromEntries(header.map((name, i) => [name, record[i]])), at };
      }
      while (skipped.length) yield skipped.shift()!;
    } catch (error) {
      if (error instanceof SourceError) throw error;
      throw new SourceError(`${file} cannot be read: ${(error as Error).message}`);
    } finally {
      input.destroy();
    }
    if (!header) throw new SourceError(`${file} is empty: a header row is needed (${CSV_COLUMNS[kind].join(',')})`);
  }
}

/**
 * Line ends as line feeds: CR LF (a spreadsheet's) becomes LF, in quoted fields too, so that the
 * parser counts each line once (it counts CR and LF apart) and texts keep one kind of line end.
 */
function lineFeeds(): Transform {
  let carry = '';
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let text = carry + chunk.toString('latin1');
      carry = text.endsWith('\r') ? '\r' : '';
      if (carry) text = text.slice(0, -1);
      done(null, Buffer.from(text.replace(/\r\n/g, '\n'), 'latin1'));
    },
    flush(done) {
      done(null, carry ? Buffer.from(carry, 'latin1') : null);
    },
  });
}

/** A person a row names: by address when it has one, else by name. */
function personOf(email: string, name: string): PersonRef {
  const trimmedEmail = email.trim();
  const trimmedName = name.trim();
  const normal = trimmedEmail ? normalEmail(trimmedEmail) : null;
  return {
    key: normal ? `email:${normal}` : trimmedEmail ? `bad:${trimmedEmail}` : `name:${trimmedName}`,
    email: trimmedEmail || null,
    name: trimmedName,
  };
}

function recordOf(kind: Kind, row: Row, at: Where): SourceRecord {
  const problems: string[] = [];
  const time = timeOf(row.created_at);
  if (time === undefined) problems.push(`created_at: "${row.created_at}" is not an ISO 8601 time`);
  if (kind === 'posts') {
    const status = row.status.trim() === '' ? 'open' : statusOf(row.status);
    if (!row.id.trim()) problems.push('id: is required');
    if (!row.board.trim()) problems.push('board: is required');
    if (!status) problems.push(`status: "${row.status}" is not a status (open, under review, planned, in progress, complete, done, closed)`);
    if (problems.length) return { kind: 'error', at, message: problems.join('; ') };
    return {
      kind: 'post', at,
      key: row.id.trim(),
      board: { key: `slug:${row.board.trim()}`, slug: row.board.trim() },
      title: row.title,
      body: row.body,
      category: 'feature',
      status: status!,
      pinned: false,
      author: personOf(row.author_email, row.author_name),
      mergedInto: null,
      createdAt: time ?? null,
      updatedAt: time ?? null,
    };
  }
  if (!row.post_id.trim()) problems.push('post_id: is required');
  if (kind === 'votes') {
    if (problems.length) return { kind: 'error', at, message: problems.join('; ') };
    return { kind: 'vote', at, postKey: row.post_id.trim(), voter: personOf(row.voter_email, row.voter_name), createdAt: time ?? null };
  }
  const official = row.official.trim().toLowerCase();
  if (official !== 'true' && official !== 'false' && official !== '') problems.push(`official: "${row.official}" must be true or false`);
  if (problems.length) return { kind: 'error', at, message: problems.join('; ') };
  const author = personOf(row.author_email, row.author_name);
  return {
    kind: 'comment', at,
    key: createHash('sha256').update(JSON.stringify([row.post_id.trim(), author.key, time, row.body])).digest('base64url'),
    postKey: row.post_id.trim(),
    author,
    body: row.body,
    official: official === 'true',
    createdAt: time ?? null,
  };
}
