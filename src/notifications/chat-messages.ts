/**
 * Chat messages for Slack and Discord endpoints (decisions.md, "Slack and Discord").
 *
 * Pure functions: an event in, a JSON-ready request body out. No Nest, no I/O.
 *
 * Every message names the event, the board and the post title, and links to the post's
 * `admin_url`; a comment message quotes the start of the comment. User text (titles, board
 * and author names, comment bodies) is cleaned, cut to a length that fits the target's limits
 * (never rejected, never split inside a grapheme cluster, so surrogate pairs and emoji ZWJ
 * sequences stay whole) and then escaped for the target:
 * - Slack: `&`, `<`, `>` become `&amp;`, `&lt;`, `&gt;`, as Slack's formatting docs ask, so
 *   user text can never form a link or a mention (`<!everyone>`, `<@U123>`).
 * - Discord: Markdown punctuation gets a backslash, so user text can form no masked link,
 *   heading, quote or mention, and `allowed_mentions: { parse: [] }` is always sent, so nothing
 *   in the message can ping (`@everyone`, `@here`, `<@id>`, `<@&role>`).
 */

/** The parts of the API's Post object (PostResponse) that messages read. */
export interface ChatPost {
  id: number;
  board: { id?: string; slug?: string; name: string };
  title: string;
  status: string;
  category?: string;
  author?: { name: string } | null;
  merged_into?: ChatMergeTarget | null;
  url?: string;
  admin_url: string;
}

/** The merge target as events carry it: `{ id, title, url }`. */
export interface ChatMergeTarget {
  id: number;
  title: string;
  url?: string;
}

/** The parts of the API's Comment object (CommentResponse) that messages read. */
export interface ChatComment {
  id: number;
  body: string;
  official?: boolean;
  author?: { name: string } | null;
}

export interface PostCreatedData {
  post: ChatPost;
}

export interface PostStatusChangedData {
  post: ChatPost;
  previous_status: string;
  /** Present when the change is a merge. */
  merged_into?: ChatMergeTarget | null;
}

export interface CommentCreatedData {
  post: ChatPost;
  comment: ChatComment;
}

export interface PostVotedData {
  post: ChatPost & { votes?: number };
  voter: { name: string };
}

/** The parts of the API's ChangelogEntry object that messages read. */
export interface ChangelogPublishedData {
  entry: { id: number; title: string; type?: string; url: string; posts?: unknown[] };
}

export type ChatEvent =
  | { type: 'changelog.published'; data: ChangelogPublishedData }
  | { type: 'post.created'; data: PostCreatedData }
  | { type: 'post.voted'; data: PostVotedData }
  | { type: 'post.status_changed'; data: PostStatusChangedData }
  | { type: 'comment.created'; data: CommentCreatedData }
  | { type: 'post.pending'; data: PostCreatedData }
  | { type: 'comment.pending'; data: CommentCreatedData };

export type ChatEventType = ChatEvent['type'];

export interface SlackMessage {
  text: string;
  blocks: unknown[];
}

export interface DiscordMessage {
  content?: string;
  embeds?: unknown[];
  allowed_mentions: { parse: [] };
}

/** Limits of the targets, in UTF-16 code units (never less strict than the targets' own count). */
export const SLACK_LIMITS = {
  /** A section block's text object. */
  sectionText: 3000,
  /** A context block's text element. */
  contextText: 3000,
  /** Slack truncates `text` beyond 40,000; keep the fallback far below. */
  text: 4000,
} as const;

export const DISCORD_LIMITS = {
  content: 2000,
  embedTitle: 256,
  embedDescription: 4096,
  embedFooter: 2048,
  embedTotal: 6000,
} as const;

/** How much user text a message shows, in code points (before the '…'). */
export const CUT_LIMITS = {
  title: 150,
  boardName: 80,
  authorName: 80,
  /** The comment quote in the message body. */
  quote: 300,
  /** The comment quote in Slack's one-line `text` fallback. */
  quoteInText: 120,
} as const;

const ELLIPSIS = '…';

// ---------------------------------------------------------------------------------------------
// Text helpers

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** C0/C1 controls except tab and newline, and bidirectional overrides/isolates. */
const UNSAFE_CHARS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  return '';
}

/** One line of user text: well-formed, no controls, white space runs collapsed. */
function oneLine(value: unknown): string {
  return asText(value).toWellFormed().replace(/\r\n?/g, '\n').replace(UNSAFE_CHARS, '').replace(/\s+/g, ' ').trim();
}

/** Several lines of user text: line breaks kept (at most one empty line in a row). */
function multiLine(value: unknown): string {
  return asText(value)
    .toWellFormed()
    .replace(/\r\n?/g, '\n')
    .replace(UNSAFE_CHARS, '')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function codePoints(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * Cuts `text` so that it has at most `maxCodePoints` code points and its escaped form at most
 * `maxLength` UTF-16 code units, both counting the '…' added when something was cut. Cuts
 * between grapheme clusters (an emoji ZWJ sequence or a flag stays whole); only a single
 * cluster too long for the budget on its own (e.g. a pile of combining marks) is cut between
 * code points, which still never splits a surrogate pair. Returns the escaped result.
 */
export function cutAndEscape(
  text: string,
  maxCodePoints: number,
  maxLength = Number.POSITIVE_INFINITY,
  escape: (s: string) => string = (s) => s,
): string {
  const whole = escape(text);
  if (codePoints(text) <= maxCodePoints && whole.length <= maxLength) return whole;

  const cpBudget = maxCodePoints - 1;
  const lenBudget = maxLength - ELLIPSIS.length;
  let out = '';
  let cp = 0;
  outer: for (const { segment } of segmenter.segment(text)) {
    const escaped = escape(segment);
    const n = codePoints(segment);
    if (cp + n <= cpBudget && out.length + escaped.length <= lenBudget) {
      out += escaped;
      cp += n;
      continue;
    }
    if (out === '') {
      // A single cluster larger than the whole budget: take what fits of it, code point by code point.
      for (const point of segment) {
        const e = escape(point);
        if (cp + 1 > cpBudget || out.length + e.length > lenBudget) break outer;
        out += e;
        cp += 1;
      }
    }
    break;
  }
  return out.trimEnd() + ELLIPSIS;
}

/** Slack: only `&`, `<` and `>` are control characters (api.slack.com, "Formatting text"). */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * A URL for Slack's `<url|label>` syntax: characters that would end the URL part (`|`, `>`),
 * `<` and white space are percent-encoded, and `&` is written `&amp;` (Slack decodes it).
 */
export function slackLinkUrl(url: string): string {
  return url
    .replace(/[|<>"\s]/g, (c) => encodeURIComponent(c))
    .replace(/&/g, '&amp;');
}

/** `<url|label>` with the label escaped; a label-less `<url>` when the label is empty. */
function slackLink(url: string, escapedLabel: string): string {
  const target = slackLinkUrl(url);
  return escapedLabel ? `<${target}|${escapedLabel}>` : `<${target}>`;
}

/**
 * Discord: a backslash before Markdown punctuation renders the character itself, so user
 * text cannot form bold/italic/strike/code/spoilers, headings, quotes, masked links
 * (`[x](y)`), mentions (`<@id>`, `@everyone`) or custom emoji (`<:x:1>`).
 */
export function escapeDiscord(text: string): string {
  return text.replace(/[\\*_~`|<>[\]()#@]/g, '\\$&');
}

function statusWords(status: unknown): string {
  return oneLine(status).replace(/_/g, ' ') || 'unknown';
}

// ---------------------------------------------------------------------------------------------
// What a message says, independent of the target

interface Described {
  boardName: string;
  title: string;
  adminUrl: string;
  status?: { from: string; to: string };
  merge?: { id: number; title: string };
  comment?: { author: string; body: string; official: boolean };
  vote?: { voter: string; count: string };
  /** A changelog entry published: the link goes to its public page. */
  changelog?: true;
  /** Held for review (`post.pending`, `comment.pending`). */
  pending?: true;
  /** Footer / context facts: "Post #42 · feature · by Ann". */
  facts: string[];
}

const ENTRY_TYPE_WORDS: Record<string, string> = { new: 'New', improved: 'Improved', fixed: 'Fixed' };

function describe(event: ChatEvent): Described {
  if (event?.type === 'changelog.published') {
    const entry = (event.data?.entry ?? {}) as Partial<ChangelogPublishedData['entry']>;
    const linked = Array.isArray(entry.posts) ? entry.posts.length : 0;
    return {
      boardName: 'the changelog',
      title: oneLine(entry.title) || `Entry #${asText(entry.id)}`,
      adminUrl: asText(entry.url),
      changelog: true,
      facts: [
        `Entry #${asText(entry.id)}`,
        ...(entry.type ? [ENTRY_TYPE_WORDS[entry.type] ?? oneLine(entry.type)] : []),
        ...(linked > 0 ? [`${linked} linked post${linked === 1 ? '' : 's'}`] : []),
      ],
    };
  }
  const data = (event?.data ?? {}) as Partial<PostStatusChangedData & CommentCreatedData & PostVotedData>;
  const post = (data.post ?? {}) as ChatPost;
  const base = {
    boardName: oneLine(post.board?.name) || oneLine(post.board?.slug) || 'a board',
    title: oneLine(post.title) || `Post #${asText(post.id)}`,
    adminUrl: asText(post.admin_url),
  };
  const postFacts = [
    `Post #${asText(post.id)}`,
    ...(post.category ? [oneLine(post.category)] : []),
    ...(post.author?.name ? [`by ${oneLine(post.author.name)}`] : []),
  ];

  switch (event?.type) {
    case 'post.created':
      return { ...base, facts: postFacts };
    case 'post.pending':
      return { ...base, pending: true, facts: postFacts };
    case 'post.status_changed': {
      const from = statusWords(data.previous_status);
      const to = statusWords(post.status);
      const target = data.merged_into ?? null;
      if (target) {
        return {
          ...base,
          status: { from, to },
          merge: { id: Number(target.id), title: oneLine(target.title) },
          facts: postFacts,
        };
      }
      return { ...base, status: { from, to }, facts: postFacts };
    }
    case 'post.voted': {
      const votes = Number((post as PostVotedData['post']).votes);
      return {
        ...base,
        vote: { voter: oneLine(data.voter?.name) || 'someone', count: Number.isInteger(votes) ? ` (${votes} vote${votes === 1 ? '' : 's'})` : '' },
        facts: [`Post #${asText(post.id)}`],
      };
    }
    case 'comment.created':
    case 'comment.pending': {
      const comment = (data.comment ?? {}) as ChatComment;
      const author = oneLine(comment.author?.name) || 'someone';
      return {
        ...base,
        ...(event.type === 'comment.pending' ? { pending: true as const } : {}),
        comment: { author, body: multiLine(comment.body), official: comment.official === true },
        facts: [`Comment #${asText(comment.id)} on post #${asText(post.id)}`, ...(comment.official ? ['official'] : [])],
      };
    }
    default:
      throw new Error(`No chat message for event type ${JSON.stringify((event as { type?: unknown })?.type)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Slack

/**
 * Slack incoming-webhook body: `text` (the notification and fallback, readable on its own)
 * and Block Kit `blocks`: one mrkdwn section (event, board, linked title, quote) and one
 * context line. Every user string is cut and then escaped for Slack.
 */
export function slackMessage(event: ChatEvent): SlackMessage {
  const d = describe(event);
  const esc = (text: string, max: number, maxLength?: number) => cutAndEscape(text, max, maxLength, escapeSlack);

  const board = esc(d.boardName, CUT_LIMITS.boardName, 400);
  const title = esc(d.title, CUT_LIMITS.title, 800);
  const link = slackLink(d.adminUrl, title);
  const statusLine = d.status ? `${escapeSlack(d.status.from)} → ${escapeSlack(d.status.to)}` : '';

  let headline: string;
  let textHead: string;
  if (d.merge) {
    const target = esc(d.merge.title, CUT_LIMITS.title, 800);
    headline = `*Merged into #${d.merge.id}* “${target}” (${statusLine}) in *${board}*`;
    textHead = `Merged into #${d.merge.id} “${target}” in ${board}`;
  } else if (d.status) {
    headline = `*Status changed:* ${statusLine} in *${board}*`;
    textHead = `Status changed (${statusLine}) in ${board}`;
  } else if (d.changelog) {
    headline = `*Published* in *${board}*`;
    textHead = `Published in ${board}`;
  } else if (d.vote) {
    const voter = esc(d.vote.voter, CUT_LIMITS.authorName, 400);
    headline = `*New vote* by *${voter}* in *${board}*${d.vote.count}`;
    textHead = `New vote by ${voter} in ${board}${d.vote.count}`;
  } else if (d.comment) {
    const author = esc(d.comment.author, CUT_LIMITS.authorName, 400);
    const what = d.pending ? 'Comment awaiting review' : 'New comment';
    headline = `*${what}* by *${author}*${d.comment.official ? ' (official)' : ''} in *${board}*`;
    textHead = `${what} by ${author} in ${board}`;
  } else {
    const what = d.pending ? 'Post awaiting review' : 'New post';
    headline = `*${what}* in *${board}*`;
    textHead = `${what} in ${board}`;
  }

  let section = `${headline}\n*${link}*`;
  let text = `${textHead}: ${link}`;
  if (d.comment) {
    const quote = esc(d.comment.body, CUT_LIMITS.quote, 1500);
    section += `\n${quote
      .split('\n')
      .map((line) => `>${line}`)
      .join('\n')}`;
    const short = esc(oneLine(d.comment.body), CUT_LIMITS.quoteInText, 800);
    text += ` — “${short}”`;
  }

  const context = esc(d.facts.join(' · '), 300, 1500);
  return {
    text,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: section } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
    ],
  };
}

// ---------------------------------------------------------------------------------------------
// Discord

const DISCORD_COLORS = {
  created: 0x5865f2,
  status: 0xfee75c,
  merged: 0x99aab5,
  comment: 0x57f287,
  vote: 0xeb459e,
  changelog: 0x3ba55d,
} as const;

/**
 * Discord webhook body: one embed (title = the post title, linked to `admin_url`; description
 * naming the event and board, and quoting a comment), and `allowed_mentions: { parse: [] }`.
 */
export function discordMessage(event: ChatEvent): DiscordMessage {
  const d = describe(event);
  const esc = (text: string, max: number, maxLength?: number) => cutAndEscape(text, max, maxLength, escapeDiscord);

  const board = esc(d.boardName, CUT_LIMITS.boardName, 400);
  const title = esc(d.title, CUT_LIMITS.title, DISCORD_LIMITS.embedTitle);
  const statusLine = d.status ? `${escapeDiscord(d.status.from)} → ${escapeDiscord(d.status.to)}` : '';

  let description: string;
  let color: number;
  if (d.merge) {
    const target = esc(d.merge.title, CUT_LIMITS.title, 800);
    description = `**Merged into #${d.merge.id}** “${target}” (${statusLine}) in **${board}**`;
    color = DISCORD_COLORS.merged;
  } else if (d.status) {
    description = `**Status changed:** ${statusLine} in **${board}**`;
    color = DISCORD_COLORS.status;
  } else if (d.changelog) {
    description = `**Published** in **${board}**`;
    color = DISCORD_COLORS.changelog;
  } else if (d.vote) {
    description = `**New vote** by **${esc(d.vote.voter, CUT_LIMITS.authorName, 400)}** in **${board}**${d.vote.count}`;
    color = DISCORD_COLORS.vote;
  } else if (d.comment) {
    const author = esc(d.comment.author, CUT_LIMITS.authorName, 400);
    description = `**${d.pending ? 'Comment awaiting review' : 'New comment'}** by **${author}**${d.comment.official ? ' (official)' : ''} in **${board}**`;
    const quote = esc(d.comment.body, CUT_LIMITS.quote, 1500);
    description += `\n${quote
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n')}`;
    color = DISCORD_COLORS.comment;
  } else {
    description = `**${d.pending ? 'Post awaiting review' : 'New post'}** in **${board}**`;
    color = DISCORD_COLORS.created;
  }

  const embed: Record<string, unknown> = {
    title,
    description,
    color,
    // Footer text is not Markdown: cut only.
    footer: { text: cutAndEscape(d.facts.join(' · '), 300, 1000) },
  };
  if (/^https?:\/\//i.test(d.adminUrl)) embed.url = d.adminUrl;
  else embed.description = `${description}\n${escapeDiscord(d.adminUrl)}`;

  return { embeds: [embed], allowed_mentions: { parse: [] } };
}

/** Characters of an embed that count towards Discord's 6,000 total. */
export function discordEmbedLength(embed: {
  title?: string;
  description?: string;
  footer?: { text?: string };
  author?: { name?: string };
  fields?: { name?: string; value?: string }[];
}): number {
  return (
    (embed.title?.length ?? 0) +
    (embed.description?.length ?? 0) +
    (embed.footer?.text?.length ?? 0) +
    (embed.author?.name?.length ?? 0) +
    (embed.fields ?? []).reduce((n, f) => n + (f.name?.length ?? 0) + (f.value?.length ?? 0), 0)
  );
}

// ---------------------------------------------------------------------------------------------
// Test messages

const PING_TEXT = 'Chorus test message: notifications from Chorus arrive in this channel.';

/** What an endpoint test sends to a Slack or Discord channel: one line, no event. */
export function chatPingMessage(kind: 'slack' | 'discord'): SlackMessage | DiscordMessage {
  if (kind === 'slack') return { text: PING_TEXT, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: PING_TEXT } }] };
  return { content: PING_TEXT, allowed_mentions: { parse: [] } };
}

// ---------------------------------------------------------------------------------------------
// URLs

/** The Discord webhook URL with `wait=true` (any other query parameters kept as they are). */
export function discordWebhookUrl(url: string): string {
  const hashAt = url.indexOf('#');
  const withoutHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = withoutHash.indexOf('?');
  const base = queryAt === -1 ? withoutHash : withoutHash.slice(0, queryAt);
  const params = queryAt === -1 ? [] : withoutHash.slice(queryAt + 1).split('&');
  const kept = params.filter((p) => p !== '' && p.split('=')[0] !== 'wait');
  return `${base}?${[...kept, 'wait=true'].join('&')}`;
}

/** Path prefixes that are not secret, shown whole by maskChatUrl. */
const PUBLIC_PATH_PREFIXES = [/^\/services\//, /^\/api(?:\/v\d+)?\/webhooks\//];

/**
 * A Slack or Discord URL for display: scheme, host and the non-secret start of the path, then
 * at most four characters of the rest and '…'. Never the query, user info or the token.
 */
export function maskChatUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '…';
  }
  const origin = `${parsed.protocol}//${parsed.host}`;
  const path = parsed.pathname;
  const prefix = PUBLIC_PATH_PREFIXES.map((re) => re.exec(path)?.[0]).find(Boolean) ?? '/';
  const rest = path.slice(prefix.length);
  const shown = [...rest].slice(0, Math.min(4, Math.floor(codePoints(rest) / 2))).join('');
  return `${origin}${prefix}${shown}…`;
}

function parseHttps(url: string): URL | null {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' || parsed.username || parsed.password || parsed.port) return null;
    return parsed;
  } catch {
    return null;
  }
}

/** `https://hooks.slack.com/services/<team>/<bot>/<token>`. */
export function isSlackWebhookUrl(url: string): boolean {
  const parsed = parseHttps(url);
  return (
    parsed !== null &&
    parsed.hostname === 'hooks.slack.com' &&
    /^\/services\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/[A-Za-z0-9_-]+\/?$/.test(parsed.pathname)
  );
}

const DISCORD_HOSTS = new Set([
  'discord.com',
  'discordapp.com',
  'ptb.discord.com',
  'canary.discord.com',
  'ptb.discordapp.com',
  'canary.discordapp.com',
]);

/** `https://discord.com/api/webhooks/<id>/<token>` (also discordapp.com, ptb./canary., /api/v10/). */
export function isDiscordWebhookUrl(url: string): boolean {
  const parsed = parseHttps(url);
  return (
    parsed !== null &&
    DISCORD_HOSTS.has(parsed.hostname) &&
    /^\/api(?:\/v\d+)?\/webhooks\/\d+\/[A-Za-z0-9_-]+\/?$/.test(parsed.pathname)
  );
}
