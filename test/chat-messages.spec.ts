import type { CommentResponse } from '../src/comments/comment.mapper';
import type { PostResponse } from '../src/posts/post.mapper';
import {
  CUT_LIMITS,
  ChatEvent,
  DISCORD_LIMITS,
  SLACK_LIMITS,
  discordEmbedLength,
  discordMessage,
  discordWebhookUrl,
  isDiscordWebhookUrl,
  isSlackWebhookUrl,
  maskChatUrl,
  slackMessage,
} from '../src/notifications/chat-messages';

// Plain unit tests: no app, no network.

const ADMIN_URL = 'https://chorus.test/admin/p/42';

function post(overrides: Partial<PostResponse> = {}): PostResponse {
  return {
    id: 42,
    board: { id: '0b6f7c1e-0000-4000-8000-000000000001', slug: 'features', name: 'Feature Requests' },
    title: 'Dark mode',
    body: 'Please add a dark theme.',
    category: 'feature',
    status: 'open',
    votes: 3,
    comments: 1,
    pinned: false,
    merged_into: null,
    author: { name: 'Ann' },
    moderation: 'approved',
    url: 'https://chorus.test/acme/features/p/42-dark-mode',
    admin_url: ADMIN_URL,
    created_at: '2024-05-01T10:00:00.000Z',
    updated_at: '2024-05-01T10:00:00.000Z',
    ...overrides,
  };
}

function comment(overrides: Partial<CommentResponse> = {}): CommentResponse {
  return {
    id: 7,
    post_id: 42,
    body: 'We are looking into this.',
    official: true,
    author: { name: 'Bob' },
    moderation: 'approved',
    created_at: '2024-05-02T10:00:00.000Z',
    ...overrides,
  };
}

const created = (p = post()): ChatEvent => ({ type: 'post.created', data: { post: p } });
const statusChanged = (p = post({ status: 'planned' }), previous = 'open'): ChatEvent => ({
  type: 'post.status_changed',
  data: { post: p, previous_status: previous },
});
const voted = (p = post(), voter = 'Vera'): ChatEvent => ({ type: 'post.voted', data: { post: p, voter: { name: voter } } });
const merged = (p = post({ status: 'closed' }), previous = 'planned'): ChatEvent => {
  const target = { id: 123, title: 'Night theme', url: 'https://chorus.test/acme/features/p/123-night-theme' };
  return {
    type: 'post.status_changed',
    data: { post: { ...p, merged_into: target }, previous_status: previous, merged_into: target },
  };
};
const commented = (p = post(), c = comment()): ChatEvent => ({ type: 'comment.created', data: { post: p, comment: c } });

interface SlackSection {
  type: 'section';
  text: { type: 'mrkdwn'; text: string };
}
interface SlackContext {
  type: 'context';
  elements: { type: 'mrkdwn'; text: string }[];
}
interface Embed {
  title: string;
  description: string;
  url?: string;
  footer?: { text: string };
}

function slackParts(event: ChatEvent) {
  const message = slackMessage(event);
  const section = message.blocks.find((b) => (b as SlackSection).type === 'section') as SlackSection;
  const context = message.blocks.find((b) => (b as SlackContext).type === 'context') as SlackContext | undefined;
  return { message, section: section.text.text, context: context?.elements.map((e) => e.text).join('\n') ?? '' };
}

/** Every string in a Slack message (text and every text in the blocks). */
function slackStrings(event: ChatEvent): string[] {
  const { message, section, context } = slackParts(event);
  return [message.text, section, context];
}

function embedOf(event: ChatEvent): Embed {
  const message = discordMessage(event);
  expect(message.embeds).toHaveLength(1);
  return message.embeds![0] as Embed;
}

function slackUnescape(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function discordUnescape(text: string): string {
  return text.replace(/\\([^0-9A-Za-z\s])/g, '$1');
}

const graphemes = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].map((s) => s.segment);
const codePoints = (text: string) => [...text].length;

/** `cut` is `original` cut at a grapheme boundary, with '…' added. */
function expectCutAtGrapheme(cut: string, original: string, maxCodePoints: number) {
  expect(cut.isWellFormed()).toBe(true);
  expect(cut.endsWith('…')).toBe(true);
  expect(codePoints(cut)).toBeLessThanOrEqual(maxCodePoints);
  const kept = cut.slice(0, -1);
  expect(original.startsWith(kept)).toBe(true);
  const boundaries = new Set<number>([0]);
  let at = 0;
  for (const g of graphemes(original)) boundaries.add((at += g.length));
  // trimEnd may have removed a space, which is its own grapheme: still a boundary.
  expect(boundaries.has(kept.length)).toBe(true);
}

// A hostile title: markup, a mass mention, an ampersand, emoji (ZWJ family, flags, skin tone), 500 code points.
const EMOJI = '👨‍👩‍👧‍👦🇫🇷🇯🇵👍🏽';
function hostileTitle(): string {
  let title = '<script>alert("x")</script> @everyone @here <!channel> <@123> Tom & Jerry > [click](https://evil.example) ';
  while (codePoints(title) < 500) title += `${EMOJI}é`;
  return [...title].slice(0, 500).join('');
}

describe('slackMessage', () => {
  it('escapes &, < and > in user text and keeps its own link syntax intact', () => {
    const title = '<script>alert(1)</script> & a > b';
    const event = commented(
      post({ title, board: { id: 'b', slug: 'b', name: 'R&D <team>' } }),
      comment({ body: 'I <3 this & >that<', author: { name: '<@U123>' } }),
    );
    const strings = slackStrings(event);
    const escapedTitle = '&lt;script&gt;alert(1)&lt;/script&gt; &amp; a &gt; b';
    const link = `<${ADMIN_URL}|${escapedTitle}>`;
    const { message, section } = slackParts(event);
    expect(message.text).toContain(link);
    expect(section).toContain(link);
    expect(section).toContain('R&amp;D &lt;team&gt;');
    expect(section).toContain('&lt;@U123&gt;');
    expect(section).toContain('>I &lt;3 this &amp; &gt;that&lt;');

    for (const s of strings) {
      expect(s).not.toContain('&amp;amp;');
      expect(s).not.toContain('&amp;lt;');
      // Once our own links and quote markers are taken out, no raw < or > is left.
      const rest = s.replace(/<https:\/\/chorus\.test\/admin\/p\/42\|[^<>|]*>/g, '').replace(/^>/gm, '');
      expect(rest).not.toMatch(/[<>]/);
    }
  });

  it('writes the admin URL so that it cannot end the link early', () => {
    const event = created(post({ admin_url: 'https://chorus.test/admin/p/42?a=1&b=|x>' }));
    const { section } = slackParts(event);
    expect(section).toContain('<https://chorus.test/admin/p/42?a=1&amp;b=%7Cx%3E|Dark mode>');
  });

  it('cuts a 500-character hostile title with emoji at a grapheme boundary and escapes it', () => {
    const title = hostileTitle();
    const event = created(post({ title }));
    const { message, section } = slackParts(event);
    const label = /<https:\/\/chorus\.test\/admin\/p\/42\|([^>]*)>/.exec(section)![1];
    expect(message.text).toContain(label);
    expect(label.startsWith('&lt;script&gt;')).toBe(true);
    expectCutAtGrapheme(slackUnescape(label), title, CUT_LIMITS.title);
    for (const s of slackStrings(event)) expect(s.isWellFormed()).toBe(true);
    expect(JSON.parse(JSON.stringify(message))).toEqual(message);
  });

  it('never splits a surrogate pair, even when the cut falls inside a run of emoji', () => {
    for (let prefix = 0; prefix < 8; prefix++) {
      const title = 'x'.repeat(prefix) + '😀'.repeat(300) + '👨‍👩‍👧‍👦'.repeat(50);
      const { section } = slackParts(created(post({ title })));
      const label = /\|([^>]*)>/.exec(section)![1];
      expectCutAtGrapheme(slackUnescape(label), title, CUT_LIMITS.title);
    }
  });

  it('stays within Slack limits with the worst user text', () => {
    const worst = post({
      title: '&'.repeat(120),
      board: { id: 'b', slug: 'b', name: '<'.repeat(100) },
      author: { name: '>'.repeat(100) },
    });
    const events = [
      created(worst),
      statusChanged(worst),
      merged(worst),
      commented(worst, comment({ body: '&\n'.repeat(1000), author: { name: '&'.repeat(100) } })),
    ];
    for (const event of events) {
      const { message, section, context } = slackParts(event);
      expect(section.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      expect(context.length).toBeLessThanOrEqual(SLACK_LIMITS.contextText);
      expect(message.text.length).toBeLessThanOrEqual(SLACK_LIMITS.text);
      expect(message.blocks.length).toBeLessThanOrEqual(50);
    }
  });

  it('quotes the start of a comment, cut to its limit', () => {
    const body = 'lorem ipsum '.repeat(200).trim();
    const { message, section } = slackParts(commented(post(), comment({ body })));
    const quote = section
      .split('\n')
      .filter((line) => line.startsWith('>'))
      .map((line) => line.slice(1))
      .join('\n');
    expectCutAtGrapheme(quote, body, CUT_LIMITS.quote);
    expect(codePoints(quote)).toBeGreaterThan(CUT_LIMITS.quote - 20);
    // The fallback text quotes a shorter start of it.
    expect(message.text).toMatch(/— “lorem ipsum .*…”$/);
  });

  it('keeps a short comment whole, line breaks as quote lines', () => {
    const { section } = slackParts(commented(post(), comment({ body: 'first line\n\n\n\nsecond line' })));
    expect(section).toContain('>first line\n>\n>second line');
    expect(section).not.toContain('…');
  });
});

describe('discordMessage', () => {
  it('always sends allowed_mentions with parse [] and escapes @everyone', () => {
    const event = commented(
      post({ title: '@everyone look', board: { id: 'b', slug: 'b', name: '@here' } }),
      comment({ body: '@everyone <@123> <@&456>', author: { name: '@everyone' } }),
    );
    for (const e of [created(), statusChanged(), merged(), event]) {
      expect(discordMessage(e).allowed_mentions).toEqual({ parse: [] });
    }
    const message = discordMessage(event);
    const embed = embedOf(event);
    expect(embed.title).toBe('\\@everyone look');
    for (const text of [embed.title, embed.description, message.content ?? '']) {
      expect(text).not.toMatch(/(^|[^\\])@(everyone|here)/);
      expect(text).not.toMatch(/(^|[^\\])<@/);
    }
    expect(embed.description).toContain('\\<\\@123\\> \\<\\@&456\\>');
  });

  it('links the embed to admin_url and lets user text form no masked link', () => {
    const title = '[click me](https://evil.example) **bold** `code` ||spoiler|| # head';
    const event = commented(post({ title }), comment({ body: '[x](https://evil.example)\n# Heading\n> fake quote' }));
    const embed = embedOf(event);
    expect(embed.url).toBe(ADMIN_URL);
    expect(embed.title).toBe(
      '\\[click me\\]\\(https://evil.example\\) \\*\\*bold\\*\\* \\`code\\` \\|\\|spoiler\\|\\| \\# head',
    );
    expect(discordUnescape(embed.title)).toBe(title);
    expect(embed.description).toContain('> \\[x\\]\\(https://evil.example\\)\n> \\# Heading\n> \\> fake quote');
    expect(embed.description).not.toMatch(/(^|[^\\])\[[^\]]*(^|[^\\])\]\(/);
  });

  it('cuts a 500-character hostile title with emoji, escaped and within the embed title limit', () => {
    const title = hostileTitle();
    const event = created(post({ title }));
    const message = discordMessage(event);
    const embed = embedOf(event);
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedTitle);
    expect(embed.title.startsWith('\\<script\\>')).toBe(true);
    expect(embed.title).toContain('\\@everyone');
    expectCutAtGrapheme(discordUnescape(embed.title), title, CUT_LIMITS.title);
    expect(embed.description.isWellFormed()).toBe(true);
  });

  it('fits an emoji-only title into 256 UTF-16 units without splitting a pair', () => {
    const title = '👨‍👩‍👧‍👦'.repeat(100);
    const embed = embedOf(created(post({ title })));
    expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedTitle);
    expectCutAtGrapheme(embed.title, title, CUT_LIMITS.title);
  });

  it('stays within Discord limits with the worst user text', () => {
    const worst = post({
      title: '*'.repeat(120),
      board: { id: 'b', slug: 'b', name: '_'.repeat(100) },
      author: { name: '@'.repeat(100) },
    });
    const events = [
      created(worst),
      statusChanged(worst),
      merged(worst),
      commented(worst, comment({ body: '[\n'.repeat(1000), author: { name: '~'.repeat(100) } })),
      commented(worst, comment({ body: '😀'.repeat(2000) })),
    ];
    for (const event of events) {
      const message = discordMessage(event);
      expect((message.content ?? '').length).toBeLessThanOrEqual(DISCORD_LIMITS.content);
      expect(message.embeds?.length ?? 0).toBeLessThanOrEqual(1);
      const embed = embedOf(event);
      expect(embed.title.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedTitle);
      expect(embed.description.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedDescription);
      expect(embed.footer!.text.length).toBeLessThanOrEqual(DISCORD_LIMITS.embedFooter);
      expect(discordEmbedLength(embed)).toBeLessThanOrEqual(DISCORD_LIMITS.embedTotal);
      expect(JSON.stringify(message).isWellFormed()).toBe(true);
    }
  });

  it('quotes the start of a comment, cut to its limit', () => {
    const body = 'lorem ipsum '.repeat(200).trim();
    const embed = embedOf(commented(post(), comment({ body })));
    const quote = embed.description
      .split('\n')
      .filter((line) => line.startsWith('> '))
      .map((line) => line.slice(2))
      .join('\n');
    expectCutAtGrapheme(quote, body, CUT_LIMITS.quote);
  });
});

describe('every event names the event, the board and the post, and links to admin_url', () => {
  const cases: [string, ChatEvent, string[]][] = [
    ['post.created', created(), ['New post']],
    ['post.status_changed', statusChanged(post({ status: 'in_progress' }), 'open'), ['Status changed', 'open → in progress']],
    ['merge', merged(), ['Merged into #123', 'Night theme', 'planned → closed']],
    ['comment.created', commented(), ['New comment', 'Bob', 'We are looking into this.']],
    ['post.voted', voted(), ['New vote', 'Vera', '3 votes']],
  ];

  it.each(cases)('%s on Slack', (_name, event, words) => {
    const { message, section } = slackParts(event);
    for (const text of [section, message.text]) {
      expect(text).toContain('Feature Requests');
      expect(text).toContain(`<${ADMIN_URL}|Dark mode>`);
      expect(text).toContain(words[0]);
    }
    for (const word of words) expect(section).toContain(word);
  });

  it.each(cases)('%s on Discord', (_name, event, words) => {
    const embed = embedOf(event);
    expect(embed.title).toBe('Dark mode');
    expect(embed.url).toBe(ADMIN_URL);
    expect(embed.description).toContain('Feature Requests');
    for (const word of words) expect(embed.description).toContain(word);
  });

  it('a status change names both statuses', () => {
    const event = statusChanged(post({ status: 'done' }), 'planned');
    expect(slackParts(event).section).toContain('planned → done');
    expect(embedOf(event).description).toContain('planned → done');
    expect(slackParts(event).message.text).toContain('planned → done');
  });

  it('a merge names its target, even when the post was already closed', () => {
    const event = merged(post({ status: 'closed' }), 'closed');
    const { section, message } = slackParts(event);
    expect(section).toContain('Merged into #123');
    expect(message.text).toContain('Merged into #123 “Night theme”');
    expect(embedOf(event).description).toContain('Merged into #123');
    expect(embedOf(event).description).toContain('Night theme');
  });

  it('a vote is short: who voted, on what, and the count, with the voter\'s name escaped', () => {
    const event = voted(post({ votes: 1 }), '<!everyone> @here');
    const { message } = slackParts(event);
    expect(message.text).toBe(`New vote by &lt;!everyone&gt; @here in Feature Requests (1 vote): <${ADMIN_URL}|Dark mode>`);
    expect(message.text.length).toBeLessThan(200);
    const embed = embedOf(event);
    expect(embed.description).toBe('**New vote** by **\\<!everyone\\> \\@here** in **Feature Requests** (1 vote)');
    expect(embed.footer?.text).toBe('Post #42');
  });

  it('refuses an event type it does not know', () => {
    expect(() => slackMessage({ type: 'post.deleted', data: { post: post() } } as unknown as ChatEvent)).toThrow();
    expect(() => discordMessage({ type: 'post.deleted', data: { post: post() } } as unknown as ChatEvent)).toThrow();
  });
});

describe('discordWebhookUrl', () => {
  it('adds wait=true and keeps other parameters', () => {
    expect(discordWebhookUrl('https://discord.com/api/webhooks/123/abc')).toBe(
      'https://discord.com/api/webhooks/123/abc?wait=true',
    );
    expect(discordWebhookUrl('https://discord.com/api/webhooks/123/abc?thread_id=9')).toBe(
      'https://discord.com/api/webhooks/123/abc?thread_id=9&wait=true',
    );
    expect(discordWebhookUrl('https://discord.com/api/webhooks/123/abc?wait=false&thread_id=9')).toBe(
      'https://discord.com/api/webhooks/123/abc?thread_id=9&wait=true',
    );
  });
});

describe('maskChatUrl', () => {
  it('shows scheme, host and the start of the path, never the secret', () => {
    const slack = 'https://hooks.slack.com/services/T0001AAAA/B0002BBBB/XXXXsecretXXXXsecret';
    const discord = 'https://discord.com/api/webhooks/123456789012345678/tokenTOKENtokenTOKEN?thread_id=5';
    expect(maskChatUrl(slack)).toBe('https://hooks.slack.com/services/T000…');
    expect(maskChatUrl(discord)).toBe('https://discord.com/api/webhooks/1234…');
    expect(maskChatUrl(slack)).not.toContain('secret');
    expect(maskChatUrl(discord)).not.toContain('token');
    expect(maskChatUrl(discord)).not.toContain('thread_id');
    expect(maskChatUrl('http://user:pw@127.0.0.1:8080/hook/abcdef')).toBe('http://127.0.0.1:8080/hook…');
    expect(maskChatUrl('https://example.com/ab')).toBe('https://example.com/a…');
    expect(maskChatUrl('not a url')).toBe('…');
  });
});

describe('isSlackWebhookUrl / isDiscordWebhookUrl', () => {
  it.each([
    ['https://hooks.slack.com/services/T0001/B0002/abcDEF123', true],
    ['http://hooks.slack.com/services/T0001/B0002/abcDEF123', false],
    ['https://hooks.slack.com.evil.example/services/T0001/B0002/abc', false],
    ['https://evil.example/services/T0001/B0002/abc', false],
    ['https://user@hooks.slack.com/services/T0001/B0002/abc', false],
    ['https://hooks.slack.com:8443/services/T0001/B0002/abc', false],
    ['https://hooks.slack.com/services/T0001/B0002', false],
    ['https://hooks.slack.com/workflows/T0001/B0002/abc', false],
    ['https://discord.com/api/webhooks/1/abc', false],
    ['not a url', false],
  ])('Slack %s → %s', (url, expected) => {
    expect(isSlackWebhookUrl(url)).toBe(expected);
  });

  it.each([
    ['https://discord.com/api/webhooks/123456789012345678/tok-EN_1', true],
    ['https://discordapp.com/api/webhooks/123456789012345678/tok', true],
    ['https://canary.discord.com/api/webhooks/123/tok', true],
    ['https://discord.com/api/v10/webhooks/123/tok?thread_id=5', true],
    ['http://discord.com/api/webhooks/123/tok', false],
    ['https://discord.com.evil.example/api/webhooks/123/tok', false],
    ['https://evil.example/api/webhooks/123/tok', false],
    ['https://discord.com/api/webhooks/abc/tok', false],
    ['https://discord.com/api/webhooks/123', false],
    ['https://discord.com/api/channels/123/messages', false],
    ['https://hooks.slack.com/services/T0001/B0002/abc', false],
    ['', false],
  ])('Discord %s → %s', (url, expected) => {
    expect(isDiscordWebhookUrl(url)).toBe(expected);
  });
});

describe('types', () => {
  it('accepts the API objects as event data', () => {
    // Compile-time: PostResponse and CommentResponse are valid ChatPost / ChatComment.
    const event: ChatEvent = { type: 'comment.created', data: { post: post(), comment: comment() } };
    expect(event.type).toBe('comment.created');
  });
});

describe('changelog.published', () => {
  const URL_OF_ENTRY = 'https://boards.chorus.test/acme/changelog/7-dark-mode-is-here';
  const event = (title: string): ChatEvent => ({
    type: 'changelog.published',
    data: { entry: { id: 7, title, type: 'new', url: URL_OF_ENTRY, posts: [post(), post({ id: 43 })] } },
  });

  it('names the entry and links to its public url, in Slack', () => {
    const message = slackMessage(event('Dark mode is here'));
    expect(message.text).toBe(`Published in the changelog: <${URL_OF_ENTRY}|Dark mode is here>`);
    const [section, context] = message.blocks as { text?: { text: string }; elements?: { text: string }[] }[];
    expect(section.text!.text).toContain(`<${URL_OF_ENTRY}|Dark mode is here>`);
    expect(context.elements![0].text).toBe('Entry #7 · New · 2 linked posts');
    expect(JSON.stringify(message)).not.toContain(ADMIN_URL);
  });

  it('escapes the title for Slack and Discord, and pings nobody', () => {
    const slack = slackMessage(event('<!everyone> & <@U1> shipped'));
    expect(slack.text).toContain('&lt;!everyone&gt; &amp; &lt;@U1&gt; shipped');
    const discord = discordMessage(event('@everyone [x](https://evil.example) **bold**'));
    const [embed] = discord.embeds as { title: string; url: string; description: string }[];
    expect(embed.title).toBe('\\@everyone \\[x\\]\\(https://evil.example\\) \\*\\*bold\\*\\*');
    expect(embed.url).toBe(URL_OF_ENTRY);
    expect(embed.description).toBe('**Published** in **the changelog**');
    expect(discord.allowed_mentions).toEqual({ parse: [] });
  });
});
