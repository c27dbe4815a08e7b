import { setTimeout as sleep } from 'node:timers/promises';
import { BOARD_SLUG, ImportSource, PersonRef, SourceError, SourceRecord, slugOf, statusOf, timeOf } from './source';

/** Canny's own API; `--canny-url` names another origin (a proxy, a test's stand-in). */
export const CANNY_ORIGIN = 'https://canny.io';

/** Items asked for per page (Canny's lists take `limit` and `skip`, and answer `hasMore`). */
const PAGE = 100;
/** Tries of one request that Canny answers 429 or 5xx (or that does not reach it), waiting longer each time. */
const TRIES = 6;

type Json = Record<string, any>;

/**
 * Boards, posts, votes and comments read from Canny's API as it documents it: POST
 * `<origin>/api/v1/<list>` with the secret key (`apiKey`) in the body, lists paged with
 * `limit` and `skip` until `hasMore` is false. Too many requests (429) are tried again after
 * `Retry-After` (or a growing delay); a refused key, or a request that keeps failing, stops the
 * import, which then writes nothing. Its identity is the origin: a record is its Canny id.
 * Internal and private comments (notes for the team) stay behind: they would be public here.
 */
export class CannySource implements ImportSource {
  readonly name: string;
  private readonly origin: string;

  constructor(
    private readonly apiKey: string,
    origin: string = CANNY_ORIGIN,
    private readonly wait: (ms: number) => Promise<unknown> = sleep,
  ) {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new SourceError(`--canny-url: "${origin}" is not a URL`);
    }
    this.origin = url.origin;
    this.name = `canny:${url.host}`;
  }

  progress() {
    return undefined;
  }

  async *records(): AsyncGenerator<SourceRecord> {
    const { boards } = await this.call('boards/list', {});
    if (!Array.isArray(boards)) throw new SourceError('Canny answered boards/list without boards');
    const slugs = new Set<string>();
    for (const [i, board] of (boards as Json[]).entries()) {
      const at = { file: 'canny boards', line: i + 1 };
      let slug = boardSlug(board);
      for (let n = 2; slugs.has(slug); n++) slug = `${slugOf(board.name ?? '').slice(0, 58)}-${n}`;
      slugs.add(slug);
      yield {
        kind: 'board', at, key: String(board.id), slug, name: String(board.name ?? slug),
        description: null, public: board.isPrivate !== true, notifyVoters: true, createdAt: timeOf(board.created) ?? null,
      };
    }
    let line = 0;
    for await (const post of this.list('posts/list', 'posts')) {
      const at = { file: 'canny posts', line: ++line };
      const status = statusOf(String(post.status ?? 'open'));
      if (!status) {
        yield { kind: 'error', at, message: `status: "${post.status}" is not one of Canny's statuses` };
        continue;
      }
      yield {
        kind: 'post', at, key: String(post.id),
        board: { key: String(post.board?.id) },
        title: String(post.title ?? ''),
        body: String(post.details ?? ''),
        category: 'feature',
        status,
        pinned: false,
        author: personOf(post.author),
        mergedInto: null,
        createdAt: timeOf(post.created) ?? null,
        updatedAt: timeOf(post.statusChangedAt ?? post.created) ?? null,
      };
    }
    line = 0;
    for await (const vote of this.list('votes/list', 'votes')) {
      yield { kind: 'vote', at: { file: 'canny votes', line: ++line }, postKey: String(vote.post?.id), voter: personOf(vote.voter), createdAt: timeOf(vote.created) ?? null };
    }
    line = 0;
    for await (const comment of this.list('comments/list', 'comments')) {
      const at = { file: 'canny comments', line: ++line };
      if (comment.internal === true || comment.private === true) continue;
      yield {
        kind: 'comment', at, key: String(comment.id), postKey: String(comment.post?.id),
        author: personOf(comment.author), body: String(comment.value ?? ''),
        official: comment.author?.isAdmin === true,
        createdAt: timeOf(comment.created) ?? null,
      };
    }
  }

  /** Every item of a paged list. */
  private async *list(path: string, field: string): AsyncGenerator<Json> {
    for (let skip = 0; ; ) {
      const page = await this.call(path, { limit: PAGE, skip });
      const items = page[field];
      if (!Array.isArray(items)) throw new SourceError(`Canny answered ${path} without ${field}`);
      yield* items as Json[];
      skip += items.length;
      if (page.hasMore !== true || items.length === 0) return;
    }
  }

  private async call(path: string, body: Json): Promise<Json> {
    const url = `${this.origin}/api/v1/${path}`;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ apiKey: this.apiKey, ...body }),
          signal: AbortSignal.timeout(60_000),
        });
      } catch (error) {
        if (attempt >= TRIES) throw new SourceError(`Canny could not be reached at ${url}: ${(error as Error).message}`);
        await this.wait(backoff(attempt));
        continue;
      }
      const text = await response.text();
      let answer: Json | undefined;
      try {
        answer = JSON.parse(text) as Json;
      } catch {
        answer = undefined;
      }
      if (response.status === 429 || response.status >= 500) {
        if (attempt >= TRIES) throw new SourceError(`Canny answered ${response.status} to ${path} ${TRIES} times`);
        const after = Number(response.headers.get('retry-after'));
        await this.wait(Number.isFinite(after) && after >= 0 && response.headers.has('retry-after') ? after * 1_000 : backoff(attempt));
        continue;
      }
      const problem = typeof answer?.error === 'string' ? answer.error : undefined;
      if (response.status === 401 || response.status === 403 || /api ?key/i.test(problem ?? '')) {
        throw new SourceError(`Canny refused the key${problem ? ` (${problem})` : ''}`);
      }
      if (!response.ok || problem || !answer) {
        throw new SourceError(`Canny answered ${response.status} to ${path}${problem ? `: ${problem}` : ''}`);
      }
      return answer;
    }
  }
}

const backoff = (attempt: number) => Math.min(30_000, 500 * 2 ** (attempt - 1));

/** A board's slug: the last part of its Canny address (`…/feature-requests`), else made from its name. */
function boardSlug(board: Json): string {
  try {
    const last = new URL(String(board.url)).pathname.split('/').filter(Boolean).pop() ?? '';
    if (BOARD_SLUG.test(last)) return last;
  } catch {
    // no usable address
  }
  return slugOf(String(board.name ?? ''));
}

/** A Canny user (an author, a voter): by their Canny id, with their name and address if Canny gives one. */
function personOf(user: Json | null | undefined): PersonRef {
  if (!user?.id) return { key: 'canny:nobody', name: 'Someone', email: null };
  return { key: `canny:${user.id}`, name: String(user.name ?? '').trim() || 'Someone', email: typeof user.email === 'string' && user.email ? user.email : null };
}
