import { randomBytes } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { OutboxProcessor } from '../src/outbox/outbox.processor';
import { WebhookSender } from '../src/webhooks/webhook-sender';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { TestDnsServer } from './support/dns-server';
import { holdProcessorLock } from './support/processor-lock';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Slack and Discord endpoints end to end (decisions.md, "Slack and Discord"): the real app over
// HTTP with its outbox processor in-process, and local HTTP servers on 127.0.0.1 that answer as
// Slack's incoming webhooks and Discord's webhooks do (status codes, bodies, Retry-After /
// retry_after, and the payload checks that make them answer 400). The file holds the processor
// lock while its processor runs.

// hooks.slack.com and discord.com must resolve when a Slack or Discord endpoint is saved without
// WEBHOOK_ALLOW_PRIVATE_TARGETS (the address check at save time). This machine has no outside
// DNS, so the strict app below asks a DNS server on a local port (DNS_SERVERS), which answers
// public addresses for those two names. Nothing may connect to them: the test below checks that
// no connection is attempted.
const CHAT_HOSTS: Record<string, string[]> = { 'hooks.slack.com': ['52.0.0.10'], 'discord.com': ['162.159.135.232'] };

const ALL_EVENTS = ['post.created', 'post.status_changed', 'comment.created'];
const ENDPOINT_KEYS = ['consecutive_failures', 'created_at', 'disabled_reason', 'enabled', 'events', 'id', 'kind', 'url'];
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SCHEDULE = [200, 400, 600, 800, 1000];
/** Timestamps come from one clock, but a send is timed from just before its request leaves. */
const CLOCK_SLACK_MS = 50;
/** A family of four: 7 code points (4 emoji joined by 3 ZWJ), 11 UTF-16 units, one grapheme. */
const FAMILY = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}';

const codePoints = (text: string) => [...text].length;

// ---------------------------------------------------------------------------------------------
// Fake Slack and Discord

interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string;
  /** Answers only once this settles. */
  hold?: Promise<unknown>;
}

interface ChatRequest {
  method: string;
  /** The path without the query: one channel (one webhook URL). */
  channel: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  /** The body as UTF-8, or null when it is not valid UTF-8. */
  text: string | null;
  body: any;
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** When the answer was handed to the socket. */
  respondedAt: number;
  status: number;
  answer: string;
}

const plain = (status: number, body: string, headers: Record<string, string> = {}): FakeAnswer => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', ...headers },
  body,
});
const json = (status: number, body: unknown, headers: Record<string, string> = {}): FakeAnswer => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** Slack's answers (api.slack.com, "Sending messages using incoming webhooks": errors). */
const SLACK = {
  ok: plain(200, 'ok'),
  invalidPayload: plain(400, 'invalid_payload'),
  rateLimited: (seconds: number) => plain(429, 'rate_limited', { 'retry-after': String(seconds) }),
  noService: plain(404, 'no_service'),
  archived: plain(410, 'channel_is_archived'),
};

/** Discord's answers (discord.com/developers/docs: Execute Webhook, rate limits, JSON error codes). */
const DISCORD = {
  rateLimited: (seconds: number) =>
    json(
      429,
      { message: 'You are being rate limited.', retry_after: seconds, global: false },
      { 'retry-after': String(Math.ceil(seconds)), 'x-ratelimit-scope': 'user' },
    ),
  unknownWebhook: json(404, { message: 'Unknown Webhook', code: 10015 }),
  invalidForm: (errors: string[]) => json(400, { message: 'Invalid Form Body', code: 50035, errors: { _errors: errors } }),
};

/** What Slack checks before posting: `text`, and blocks of known shape within their limits. */
function slackServe(request: ChatRequest): FakeAnswer {
  if (request.method !== 'POST') return plain(405, 'invalid_method');
  if (request.channel.split('/').length !== 5 || !request.channel.startsWith('/services/')) return SLACK.noService;
  const body = request.body;
  if (!/^application\/json\b/.test(String(request.headers['content-type'] ?? ''))) return SLACK.invalidPayload;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return SLACK.invalidPayload;
  if (typeof body.text !== 'string' || body.text.trim() === '') return SLACK.invalidPayload;
  if (body.blocks !== undefined) {
    if (!Array.isArray(body.blocks) || body.blocks.length > 50) return SLACK.invalidPayload;
    for (const block of body.blocks) {
      if (!block || typeof block !== 'object' || typeof block.type !== 'string') return SLACK.invalidPayload;
      if (block.type === 'section') {
        const text = block.text;
        if (!text || !['mrkdwn', 'plain_text'].includes(text.type) || typeof text.text !== 'string') return SLACK.invalidPayload;
        if (text.text.length === 0 || text.text.length > 3000) return SLACK.invalidPayload;
      } else if (block.type === 'context') {
        const elements = block.elements;
        if (!Array.isArray(elements) || elements.length === 0 || elements.length > 10) return SLACK.invalidPayload;
        if (elements.some((e: any) => typeof e?.text !== 'string' || e.text.length > 3000)) return SLACK.invalidPayload;
      }
    }
  }
  return SLACK.ok;
}

const DISCORD_PATH = /^\/api(?:\/v\d+)?\/webhooks\/(\d+)\/([A-Za-z0-9_-]+)$/;
let snowflake = 1_234_567_890_123_456_789n;

/** What Discord checks: `wait=true` (to get the message back), mentions off, content and embed limits. */
function discordServe(request: ChatRequest): FakeAnswer {
  const path = DISCORD_PATH.exec(request.channel);
  if (!path) return json(404, { message: '404: Not Found', code: 0 });
  if (request.method !== 'POST') return json(405, { message: '405: Method Not Allowed', code: 0 });
  const errors: string[] = [];
  if (request.query.get('wait') !== 'true') errors.push('query: wait=true is required (Chorus sends it)');
  const body = request.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return json(400, { message: 'Cannot send an empty message', code: 50006 });
  const mentions = body.allowed_mentions;
  if (!mentions || !Array.isArray(mentions.parse) || mentions.parse.length !== 0) errors.push('allowed_mentions.parse: must be []');
  if (body.content !== undefined && (typeof body.content !== 'string' || body.content.length > 2000)) {
    errors.push('content: Must be 2000 or fewer in length.');
  }
  const embeds = body.embeds ?? [];
  if (!Array.isArray(embeds) || embeds.length > 10) errors.push('embeds: Must be 10 or fewer in length.');
  let total = 0;
  for (const embed of Array.isArray(embeds) ? embeds : []) {
    const length = (value: unknown, max: number, name: string) => {
      if (value === undefined) return;
      if (typeof value !== 'string' || value.length > max) errors.push(`${name}: Must be ${max} or fewer in length.`);
      else total += value.length;
    };
    length(embed?.title, 256, 'embeds.title');
    length(embed?.description, 4096, 'embeds.description');
    length(embed?.footer?.text, 2048, 'embeds.footer.text');
    length(embed?.author?.name, 256, 'embeds.author.name');
    if (embed?.url !== undefined && (typeof embed.url !== 'string' || !/^https?:\/\//.test(embed.url))) {
      errors.push('embeds.url: Not a well formed URL.');
    }
  }
  if (total > 6000) errors.push('embeds: Embed size exceeds maximum size of 6000');
  if ((typeof body.content !== 'string' || body.content === '') && (!Array.isArray(embeds) || embeds.length === 0)) {
    return json(400, { message: 'Cannot send an empty message', code: 50006 });
  }
  if (errors.length > 0) return DISCORD.invalidForm(errors);
  const id = String(snowflake++);
  return json(200, {
    id,
    type: 0,
    content: body.content ?? '',
    channel_id: '1100000000000000001',
    author: { id: path[1], username: 'Chorus', bot: true },
    embeds,
    mentions: [],
    mention_roles: [],
    mention_everyone: false,
    attachments: [],
    pinned: false,
    tts: false,
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    flags: 0,
    components: [],
    webhook_id: path[1],
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** A local Slack or Discord: records every request and answers as the real one would. */
class FakeChat {
  readonly requests: ChatRequest[] = [];
  private readonly scripted = new Map<string, FakeAnswer[]>();
  private readonly fixed = new Map<string, FakeAnswer>();

  private constructor(
    readonly kind: 'slack' | 'discord',
    private readonly server: http.Server,
    readonly base: string,
  ) {}

  static async start(kind: 'slack' | 'discord'): Promise<FakeChat> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeChat(kind, server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => fake.handle(req, res));
    return fake;
  }

  /** A new channel's webhook URL, shaped like the real ones. */
  newUrl(): string {
    const token = randomBytes(24).toString('base64url').replace(/[-_]/g, 'x');
    if (this.kind === 'slack') return `${this.base}/services/T0CHORUS/B0${randomBytes(4).toString('hex').toUpperCase()}/${token}`;
    return `${this.base}/api/webhooks/${BigInt('0x' + randomBytes(7).toString('hex'))}/${token}${token}`;
  }

  /** These answers, one per request, before normal service resumes on the channel. */
  script(url: string, ...answers: FakeAnswer[]): void {
    this.scripted.set(channelOf(url), answers);
  }

  /** Every request to the channel gets this answer. */
  always(url: string, answer: FakeAnswer): void {
    this.fixed.set(channelOf(url), answer);
  }

  to(url: string): ChatRequest[] {
    const channel = channelOf(url);
    return this.requests.filter((r) => r.channel === channel);
  }

  waitFor(url: string, count: number, timeoutMs = 15_000): Promise<ChatRequest[]> {
    return until(`${count} requests to ${this.kind} ${channelOf(url)}`, () => this.to(url).length >= count && this.to(url), timeoutMs);
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const at = Date.now();
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const url = new URL(req.url!, this.base);
      let text: string | null = null;
      let body: unknown;
      try {
        text = utf8.decode(raw);
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const request: ChatRequest = {
        method: req.method!,
        channel: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        raw,
        text,
        body,
        at,
        respondedAt: 0,
        status: 0,
        answer: '',
      };
      this.requests.push(request);
      const answer =
        this.scripted.get(request.channel)?.shift() ??
        this.fixed.get(request.channel) ??
        (this.kind === 'slack' ? slackServe(request) : discordServe(request));
      request.status = answer.status;
      request.answer = answer.body;
      const send = () => {
        request.respondedAt = Date.now();
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body);
      };
      if (answer.hold) void answer.hold.finally(send);
      else send();
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const channelOf = (url: string) => new URL(url).pathname;

// ---------------------------------------------------------------------------------------------
// Helpers on the API and the database

interface DeliveryRow {
  id: string;
  status: string;
  reason: string | null;
  attempt_count: number;
  event_type: string;
}


interface ChatEndpoint {
  id: string;
  kind: string;
  url: string;
  /** The full URL as given (the API shows it masked). */
  given: string;
}

async function chatEndpoint(api: Client, kind: 'slack' | 'discord', url: string, events = ALL_EVENTS): Promise<ChatEndpoint> {
  const answer = await api.post('/api/v1/webhook_endpoints', { kind, url, events });
  expect(answer.status).toBe(201);
  return { ...answer.body.data, given: url };
}

async function createPost(api: Client, title: string) {
  const answer = await api.post('/api/v1/posts', { board: 'ideas', title });
  expect(answer.status).toBe(201);
  return answer.body.data;
}

/** The secret part of a Slack or Discord URL: everything after the path's public prefix and ids. */
const tokenOf = (url: string) => new URL(url).pathname.split('/').pop()!;

/** Shown masked: scheme, host, the public start of the path, at most 4 more characters and '…'. */
function expectMasked(shown: string, full: string) {
  const parsed = new URL(full);
  const prefix = parsed.pathname.startsWith('/services/') ? '/services/' : '/api/webhooks/';
  expect(shown.startsWith(`${parsed.protocol}//${parsed.host}${prefix}`)).toBe(true);
  expect(shown.endsWith('…')).toBe(true);
  const rest = shown.slice(`${parsed.protocol}//${parsed.host}${prefix}`.length, -1);
  expect(codePoints(rest)).toBeLessThanOrEqual(4);
  expect(parsed.pathname.slice(prefix.length).startsWith(rest)).toBe(true);
  expect(shown).not.toContain(tokenOf(full));
}

/** Every string in a JSON value, with its path. */
function* strings(value: unknown, path = '$'): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${path}[${i}]`);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) yield* strings(v, `${path}.${k}`);
}

// ---------------------------------------------------------------------------------------------

describe('Slack and Discord endpoints', () => {
  let releaseLock: () => Promise<void>;
  let t: TestApp;
  let slack: FakeChat;
  let discord: FakeChat;
  const workspaces: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    slack = await FakeChat.start('slack');
    discord = await FakeChat.start('discord');
    t = await startTestApp({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE.map((ms) => `${ms}ms`).join(','),
      WEBHOOK_TIMEOUT_MS: '2000',
    });
  }, 180_000);

  afterAll(async () => {
    if (t) {
      // Leaves nothing of this file pending for a later processor.
      await t.db.query(
        `UPDATE webhook_deliveries SET status = 'cancelled', reason = 'endpoint_disabled', next_attempt_at = NULL
          WHERE workspace_id = ANY($1::uuid[]) AND status = 'pending'`,
        [workspaces],
      );
      await t.close();
    }
    await slack?.close();
    await discord?.close();
    await releaseLock?.();
  });

  async function workspace(plan: 'pro' | 'business' = 'business', app: TestApp = t): Promise<{ ws: TestWorkspace; api: Client }> {
    const ws = await createWorkspace(app.app, { plan });
    workspaces.push(ws.id);
    return { ws, api: new Client(app.baseUrl, ws.key) };
  }

  const deliveryRows = (endpointId: string): Promise<DeliveryRow[]> =>
    t.db.query(
      `SELECT id, status, reason, attempt_count, event_type FROM webhook_deliveries
        WHERE endpoint_id = $1 ORDER BY created_at, id`,
      [endpointId],
    );

  /** Waits until the endpoint has `count` deliveries and none is pending any more. */
  const settled = (endpointId: string, count: number, timeoutMs = 15_000): Promise<DeliveryRow[]> =>
    until(
      `${count} settled deliveries of endpoint ${endpointId}`,
      async () => {
        const rows = await deliveryRows(endpointId);
        return rows.length >= count && rows.every((r) => r.status !== 'pending') && rows;
      },
      timeoutMs,
    );

  const dispatched = (workspaceId: string) =>
    until(`events of workspace ${workspaceId} to be fanned out`, async () => {
      const [row] = await t.db.query(
        `SELECT count(*)::int AS waiting FROM outbox_events WHERE workspace_id = $1 AND dispatched_at IS NULL`,
        [workspaceId],
      );
      return row.waiting === 0;
    });

  const attemptsOf = (deliveryId: string): Promise<{ at: Date; status_code: number | null; error: string | null; response_body: string | null }[]> =>
    t.db.query(
      `SELECT at, status_code, error, response_body FROM delivery_attempts WHERE delivery_id = $1 ORDER BY at`,
      [deliveryId],
    );

  // -------------------------------------------------------------------------------------------

  it('creates slack and discord endpoints without a secret, shows their URL masked in create, get, list and PATCH, and counts them against the plan', async () => {
    const { ws, api } = await workspace('pro');
    const slackUrl = slack.newUrl();
    const discordUrl = discord.newUrl();

    const created = await api.post('/api/v1/webhook_endpoints', { kind: 'slack', url: slackUrl, events: ['post.created'] });
    expect(created.status).toBe(201);
    // No signing secret: Slack and Discord check nothing, the URL itself is the credential. The
    // answer has no `secret` at all (not even null), as in get and list.
    expect(Object.keys(created.body.data).sort()).toEqual(ENDPOINT_KEYS);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      kind: 'slack',
      url: expect.any(String),
      events: ['post.created'],
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 0,
      created_at: expect.stringMatching(ISO),
    });
    expectMasked(created.body.data.url, slackUrl);
    expect(created.text).not.toContain(tokenOf(slackUrl));

    const createdDiscord = await api.post('/api/v1/webhook_endpoints', { kind: 'discord', url: discordUrl, events: ALL_EVENTS });
    expect(createdDiscord.status).toBe(201);
    expect(Object.keys(createdDiscord.body.data).sort()).toEqual(ENDPOINT_KEYS);
    expect(createdDiscord.body.data).toMatchObject({ kind: 'discord', events: ALL_EVENTS, enabled: true, disabled_reason: null });
    expectMasked(createdDiscord.body.data.url, discordUrl);
    expect(createdDiscord.text).not.toContain(tokenOf(discordUrl));

    // An own server next to them gets its secret, and its URL unmasked.
    const own = await api.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/own', events: ['post.created'] });
    expect(own.status).toBe(201);
    expect(own.body.data).toMatchObject({ kind: 'webhook', url: 'http://127.0.0.1:9/own', secret: expect.stringMatching(/^whsec_/) });

    for (const [endpoint, full] of [
      [created.body.data, slackUrl],
      [createdDiscord.body.data, discordUrl],
    ] as const) {
      const got = await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(endpoint);
      expect(got.text).not.toContain(tokenOf(full));
    }
    const list = await api.get('/api/v1/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => [e.kind, e.url])).toEqual([
      ['slack', created.body.data.url],
      ['discord', createdDiscord.body.data.url],
      ['webhook', 'http://127.0.0.1:9/own'],
    ]);
    expect(list.text).not.toContain(tokenOf(slackUrl));
    expect(list.text).not.toContain(tokenOf(discordUrl));
    expect(list.text).not.toContain('whsec_');

    // A chat endpoint has no secret to rotate.
    expectError(await api.post(`/api/v1/webhook_endpoints/${created.body.data.id}/rotate_secret`), 400, 'invalid_request', /^path: endpoint \S+ is a slack endpoint; only webhook endpoints have a signing secret$/);

    // PATCH to another channel: masked again, the new token never shown.
    const movedUrl = slack.newUrl();
    const moved = await api.patch(`/api/v1/webhook_endpoints/${created.body.data.id}`, { url: movedUrl });
    expect(moved.status).toBe(200);
    expect(Object.keys(moved.body.data).sort()).toEqual(ENDPOINT_KEYS);
    expectMasked(moved.body.data.url, movedUrl);
    expect(moved.text).not.toContain(tokenOf(movedUrl));

    // At rest: the URL sealed (no token in any column), no secret.
    const rows: { kind: string; row: string; secret_sealed: string | null }[] = await t.db.query(
      `SELECT kind, row_to_json(e)::text AS row, secret_sealed FROM webhook_endpoints e WHERE workspace_id = $1`,
      [ws.id],
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      for (const url of [slackUrl, discordUrl, movedUrl]) expect(row.row).not.toContain(tokenOf(url));
      if (row.kind === 'webhook') expect(row.secret_sealed).not.toBeNull();
      else expect(row.secret_sealed).toBeNull();
    }

    // The plan's 5 endpoints count every kind: 2 more fill it, the 6th of any kind is refused.
    await chatEndpoint(api, 'discord', discord.newUrl());
    await chatEndpoint(api, 'slack', slack.newUrl());
    for (const body of [
      { kind: 'slack', url: slack.newUrl(), events: ['post.created'] },
      { kind: 'discord', url: discord.newUrl(), events: ['post.created'] },
      { url: 'http://127.0.0.1:9/sixth', events: ['post.created'] },
    ]) {
      expectError(await api.post('/api/v1/webhook_endpoints', body), 403, 'plan_required', /\b5\b/);
    }
    const five = (await api.get('/api/v1/webhook_endpoints')).body.data;
    expect(five.map((e: any) => e.kind).sort()).toEqual(['discord', 'discord', 'slack', 'slack', 'webhook']);
  });

  describe('without WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
    let strict: TestApp; // the default switch, API only
    let dns: TestDnsServer;

    beforeAll(async () => {
      dns = await TestDnsServer.start({ records: CHAT_HOSTS });
      strict = await startTestApp({ DNS_SERVERS: dns.address });
    });
    afterAll(async () => {
      await strict?.close();
      await dns?.close();
    });

    it("accepts only Slack and Discord webhook URLs for those kinds, and contacts neither when saving", async () => {
      const { ws, api } = await workspace('pro', strict);
      const connect = jest.spyOn(net.Socket.prototype, 'connect');
      const send = jest.spyOn(WebhookSender.prototype, 'post');
      try {
        const post = (kind: string, url: string) => api.post('/api/v1/webhook_endpoints', { kind, url, events: ['post.created'] });
        for (const url of [
          'https://example.com/x',
          'http://hooks.slack.com/services/T0/B0/XXXX',
          'https://hooks.slack.com.example.com/services/T0/B0/XXXX',
          'https://hooks.slack.com/api/T0/B0/XXXX',
          'https://user:pw@hooks.slack.com/services/T0/B0/XXXX',
          'https://discord.com/api/webhooks/123/abc',
          `${slack.base}/services/T0/B0/XXXX`,
        ]) {
          expectError(await post('slack', url), 400, 'invalid_request', /^url: .*Slack/);
        }
        for (const url of [
          'https://example.com/x',
          'http://discord.com/api/webhooks/123/abc',
          'https://discord.com/api/webhooks/abc/def',
          'https://discord.com.example.com/api/webhooks/123/abc',
          'https://hooks.slack.com/services/T0/B0/XXXX',
          `${discord.base}/api/webhooks/123/abc`,
        ]) {
          expectError(await post('discord', url), 400, 'invalid_request', /^url: .*Discord/);
        }

        const slackAnswer = await post('slack', 'https://hooks.slack.com/services/T0/B0/XXXX');
        expect(slackAnswer.status).toBe(201);
        expect(slackAnswer.body.data).toMatchObject({ kind: 'slack', url: 'https://hooks.slack.com/services/T0/B…', enabled: true });
        expect(slackAnswer.text).not.toContain('XXXX');
        // A token no UUID or timestamp in the answer can contain by chance.
        const discordAnswer = await post('discord', 'https://discord.com/api/webhooks/123/XYZ');
        expect(discordAnswer.status).toBe(201);
        expect(discordAnswer.body.data).toMatchObject({ kind: 'discord', url: 'https://discord.com/api/webhooks/123…', enabled: true });
        expect(discordAnswer.text).not.toContain('XYZ');

        // PATCH is held to the same rule.
        const path = `/api/v1/webhook_endpoints/${slackAnswer.body.data.id}`;
        expectError(await api.patch(path, { url: 'https://example.com/x' }), 400, 'invalid_request', /^url: /);
        expect((await api.get(path)).body.data.url).toBe('https://hooks.slack.com/services/T0/B…');

        // Saving resolved the names (the address check) and connected to nothing but this test's
        // own loopback servers: no request to Slack or Discord.
        expect(new Set(dns.queries.map((q) => q.name))).toEqual(new Set(['hooks.slack.com', 'discord.com']));
        const targets = connect.mock.calls.map((args) => JSON.stringify(args, (_k, v) => (typeof v === 'function' ? undefined : v)));
        for (const target of targets) expect(target).not.toMatch(/52\.0\.0\.10|162\.159\.135\.232|slack\.com|discord\.com/);
        expect(send.mock.calls.filter(([target]) => /slack\.com|discord\.com/.test(target.url))).toEqual([]);
        expect(
          await strict.db.query(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE workspace_id = $1`, [ws.id]),
        ).toEqual([{ n: 0 }]);
      } finally {
        connect.mockRestore();
        send.mockRestore();
        // No processor may ever try the real hosts: the endpoints go before any event is made.
        for (const { id } of (await api.get('/api/v1/webhook_endpoints')).body.data) {
          expect((await api.request('DELETE', `/api/v1/webhook_endpoints/${id}`)).status).toBe(204);
        }
      }
    });
  });

  it('sends one message per event type to Slack and to Discord, naming the event, the board and the post, linking to admin_url, quoting a comment', async () => {
    const { api } = await workspace();
    const s = await chatEndpoint(api, 'slack', slack.newUrl());
    const d = await chatEndpoint(api, 'discord', discord.newUrl());

    const post = await createPost(api, 'Dark mode for the dashboard');
    const planned = await api.patch(`/api/v1/posts/${post.id}`, { status: 'planned' });
    expect(planned.status).toBe(200);
    const comment = await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Thanks! It is on our list.' });
    expect(comment.status).toBe(201);

    await Promise.all([settled(s.id, 3), settled(d.id, 3)]);
    await sleep(200);
    const toSlack = slack.to(s.given);
    const toDiscord = discord.to(d.given);
    expect(toSlack).toHaveLength(3);
    expect(toDiscord).toHaveLength(3);
    expect((await deliveryRows(s.id)).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect((await deliveryRows(d.id)).map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered']);

    const admin = post.admin_url;
    expect(admin).toBe(`https://chorus.test/admin/p/${post.id}`);
    const title = 'Dark mode for the dashboard';
    const link = `<${admin}|${title}>`;

    for (const request of [...toSlack, ...toDiscord]) {
      expect(request.status).toBe(200);
      expect(request.method).toBe('POST');
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toMatch(/^Chorus-Webhooks\//);
      // Own-server headers are not for chat services.
      expect(request.headers['chorus-signature']).toBeUndefined();
      expect(request.headers['chorus-delivery']).toBeUndefined();
    }
    expect(toSlack.map((r) => r.answer)).toEqual(['ok', 'ok', 'ok']);
    expect(toDiscord.every((r) => r.query.get('wait') === 'true')).toBe(true);
    expect(toDiscord.every((r) => JSON.parse(r.answer).webhook_id === channelOf(d.given).split('/')[3])).toBe(true);

    // Slack: `text` makes sense alone; the section says the same with formatting.
    const slackBy = (head: string) => {
      const found = toSlack.filter((r) => r.body.text.startsWith(head));
      expect(found).toHaveLength(1);
      const { text, blocks } = found[0].body;
      expect(blocks.map((b: any) => b.type)).toEqual(['section', 'context']);
      return { text: text as string, section: blocks[0].text.text as string, context: blocks[1].elements[0].text as string };
    };
    const created = slackBy('New post');
    expect(created.text).toBe(`New post in Ideas: ${link}`);
    expect(created.section).toBe(`*New post* in *Ideas*\n*${link}*`);
    expect(created.context).toContain(`Post #${post.id}`);
    const changed = slackBy('Status changed');
    expect(changed.text).toBe(`Status changed (open → planned) in Ideas: ${link}`);
    expect(changed.section).toContain('open → planned');
    expect(changed.section).toContain('*Ideas*');
    expect(changed.section).toContain(link);
    const commented = slackBy('New comment');
    expect(commented.text).toBe(`New comment by Olive Owner in Ideas: ${link} — “Thanks! It is on our list.”`);
    // A member's comment through the API is an official one.
    expect(comment.body.data.official).toBe(true);
    expect(commented.section).toBe(`*New comment* by *Olive Owner* (official) in *Ideas*\n*${link}*\n>Thanks! It is on our list.`);
    expect(commented.context).toContain(`Comment #${comment.body.data.id} on post #${post.id}`);

    // Discord: one embed titled with the post and linked to admin_url; no ping possible.
    const discordBy = (head: string) => {
      const found = toDiscord.filter((r) => r.body.embeds[0].description.startsWith(head));
      expect(found).toHaveLength(1);
      expect(found[0].body.allowed_mentions).toEqual({ parse: [] });
      expect(found[0].body.embeds).toHaveLength(1);
      const [embed] = found[0].body.embeds;
      expect(embed).toMatchObject({ title, url: admin });
      return embed;
    };
    expect(discordBy('**New post**').description).toBe('**New post** in **Ideas**');
    expect(discordBy('**Status changed:**').description).toBe('**Status changed:** open → planned in **Ideas**');
    const commentEmbed = discordBy('**New comment**');
    expect(commentEmbed.description).toBe('**New comment** by **Olive Owner** (official) in **Ideas**\n> Thanks! It is on our list.');
    expect(commentEmbed.footer.text).toContain(`Comment #${comment.body.data.id} on post #${post.id}`);
  });

  it('escapes hostile titles and comments for each target, cuts long text with … between graphemes, sends well-formed Unicode both accept', async () => {
    const { api } = await workspace();
    const s = await chatEndpoint(api, 'slack', slack.newUrl());
    const d = await chatEndpoint(api, 'discord', discord.newUrl());

    // The title: markup, a mass mention, emoji (a ZWJ family among them), 120 code points (the API's maximum).
    const head = `<script>alert(1)</script> @everyone ${FAMILY} 🎉 *bold* [x](https://evil.example) & `;
    const title = head + 'x'.repeat(120 - codePoints(head) - 1) + '🚀';
    expect(codePoints(title)).toBe(120);
    // The comment: mentions, then the family straddling the 300-code-point cut, 2,000 code points in all.
    const start = '@here <@123> <!channel> 🎉 ';
    const beforeFamily = start + 'a'.repeat(295 - codePoints(start));
    const body = beforeFamily + FAMILY + 'b'.repeat(2000 - 295 - 7);
    expect(codePoints(body)).toBe(2000);

    const post = await createPost(api, title);
    expect(post.title).toBe(title);
    const comment = await api.post(`/api/v1/posts/${post.id}/comments`, { body });
    expect(comment.status).toBe(201);

    await Promise.all([settled(s.id, 2), settled(d.id, 2)]);
    const all = [...slack.to(s.given), ...discord.to(d.given)];
    expect(all).toHaveLength(4);
    for (const request of all) {
      // Accepted as is, valid UTF-8, no lone surrogate anywhere (raw or escaped in the JSON).
      expect([request.status, request.answer.slice(0, 80)]).toEqual([200, expect.any(String)]);
      expect(request.text).not.toBeNull();
      expect(request.text).not.toMatch(/\\u[dD][89a-fA-F][0-9a-fA-F]{2}/);
      for (const [path, value] of strings(request.body)) expect([path, value.isWellFormed()]).toEqual([path, true]);
    }

    const slackPost = slack.to(s.given).find((r) => r.body.text.startsWith('New post'))!.body;
    const slackComment = slack.to(s.given).find((r) => r.body.text.startsWith('New comment'))!.body;
    const escapedTitle = title.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    for (const message of [slackPost, slackComment]) {
      const raw = JSON.stringify(message);
      expect(raw).not.toContain('<script>');
      expect(raw).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      // Every '<' left opens the one link Chorus made: to admin_url, labelled with the escaped title.
      for (const [, value] of strings(message)) {
        for (const match of value.matchAll(/<([^>]*)>/g)) expect(match[1]).toBe(`${post.admin_url}|${escapedTitle}`);
      }
      expect(message.text).toContain(FAMILY);
      expect(message.text).toContain('🚀');
    }
    // The quote: mentions escaped, cut before the family (which does not fit whole) with '…'.
    const quote = slackComment.blocks[0].text.text.split('\n').slice(2).join('\n');
    expect(quote).toBe(`>@here &lt;@123&gt; &lt;!channel&gt; 🎉 ${'a'.repeat(295 - codePoints(start))}…`);
    expect(quote).not.toContain('\u200D');
    expect(slackComment.text).toMatch(/ — “@here &lt;@123&gt; &lt;!channel&gt; 🎉 a+…”$/);
    // At most 120 code points of comment (before escaping), '…' included.
    const unescaped = slackComment.text.split(' — “')[1].slice(0, -1).replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
    expect(codePoints(unescaped)).toBeLessThanOrEqual(120);
    expect(body.startsWith(unescaped.slice(0, -1))).toBe(true);

    const discordPost = discord.to(d.given).find((r) => r.body.embeds[0].description.startsWith('**New post**'))!.body;
    const discordComment = discord.to(d.given).find((r) => r.body.embeds[0].description.startsWith('**New comment**'))!.body;
    for (const message of [discordPost, discordComment]) {
      expect(message.allowed_mentions).toEqual({ parse: [] });
      expect(message.content ?? '').toBe('');
      const [embed] = message.embeds;
      expect(embed.url).toBe(post.admin_url);
      // Markdown and mentions neutralised with backslashes; the emoji whole.
      expect(embed.title).toBe(title.replace(/[\\*_~`|<>[\]()#@]/g, '\\$&'));
      expect(embed.title.startsWith('\\<script\\>alert\\(1\\)\\</script\\> \\@everyone')).toBe(true);
      expect(embed.title).toContain(FAMILY);
      for (const [, value] of strings(message.embeds)) {
        expect(value).not.toMatch(/(?<!\\)@(everyone|here)/);
        expect(value).not.toMatch(/(?<!\\)<[@#:!]/);
        expect(value).not.toMatch(/(?<!\\)\[x\]\(/);
      }
    }
    const discordQuote = discordComment.embeds[0].description.split('\n').slice(1).join('\n');
    expect(discordQuote).toBe(`> \\@here \\<\\@123\\> \\<!channel\\> 🎉 ${'a'.repeat(295 - codePoints(start))}…`);
    expect(discordQuote).not.toContain('\u200D');
  });

  it('paces each channel at one message a second: a burst of 20 events arrives whole, ≥ ~1 s apart per channel, channels independently', async () => {
    const { ws, api } = await workspace();
    const a = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    const b = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    const c = await chatEndpoint(api, 'discord', discord.newUrl(), ['post.created']);

    const titles: string[] = [];
    for (let i = 1; i <= 20; i++) {
      titles.push(`Burst idea number ${i}`);
      await createPost(api, titles[i - 1]);
    }
    await dispatched(ws.id);
    const [toA, toB, toC] = await Promise.all([
      slack.waitFor(a.given, 20, 40_000),
      slack.waitFor(b.given, 20, 40_000),
      discord.waitFor(c.given, 20, 40_000),
    ]);
    await sleep(300);

    const titleOf = (r: ChatRequest) => (r.body.embeds ? r.body.embeds[0].title : /\|([^>]*)>/.exec(r.body.text)![1]);
    for (const [requests, endpoint] of [
      [toA, a],
      [toB, b],
      [toC, c],
    ] as const) {
      // None lost, none twice, each accepted at the first try.
      expect(requests).toHaveLength(20);
      expect(requests.every((r) => r.status === 200)).toBe(true);
      expect(requests.map(titleOf).sort()).toEqual([...titles].sort());
      const rows = await deliveryRows(endpoint.id);
      expect(rows.map((r) => [r.status, r.attempt_count])).toEqual(Array(20).fill(['delivered', 1]));
      // One per second per channel.
      const gaps = requests.slice(1).map((r, i) => r.at - requests[i].at);
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(1000 - CLOCK_SLACK_MS);
    }
    // Channels do not wait for each other: 60 messages in about the time of 20.
    const arrivals = [...toA, ...toB, ...toC].map((r) => r.at).sort((x, y) => x - y);
    expect(arrivals.at(-1)! - arrivals[0]).toBeLessThan(19 * 1000 + 3000);
    const close = arrivals.slice(1).filter((at, i) => at - arrivals[i] < 500).length;
    expect(close).toBeGreaterThanOrEqual(30);
  }, 60_000);

  it('honours 429: the channel waits Retry-After (Slack) or retry_after (Discord) before its next message; the message is sent again', async () => {
    const { ws, api } = await workspace();
    const s = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    const d = await chatEndpoint(api, 'discord', discord.newUrl(), ['post.created']);
    slack.script(s.given, SLACK.rateLimited(2));
    discord.script(d.given, DISCORD.rateLimited(1.5));

    // Counts the processor's claiming passes, to see that it does not spin while channels wait.
    const claimTimes: number[] = [];
    const original = (OutboxProcessor.prototype as any).claimAndSend;
    const claims = jest.spyOn(OutboxProcessor.prototype as any, 'claimAndSend').mockImplementation(function (this: unknown, ...args: unknown[]) {
      claimTimes.push(Date.now());
      return original.apply(this, args);
    });
    try {
      await createPost(api, 'First of two, limited');
      await createPost(api, 'Second of two');
      await dispatched(ws.id);
      const [toSlack, toDiscord] = await Promise.all([slack.waitFor(s.given, 3), discord.waitFor(d.given, 3)]);
      await Promise.all([settled(s.id, 2), settled(d.id, 2)]);
      await sleep(300);

      for (const [requests, waitMs, endpoint] of [
        [toSlack, 2000, s],
        [toDiscord, 1500, d],
      ] as const) {
        expect(requests.map((r) => r.status)).toEqual([429, 200, 200]);
        const [limited, next] = requests;
        // Nothing reaches the channel until the wait is over, and then it goes on promptly.
        expect(next.at - limited.respondedAt).toBeGreaterThanOrEqual(waitMs - CLOCK_SLACK_MS);
        expect(next.at - limited.respondedAt).toBeLessThan(waitMs + 2000);
        // The refused message is sent again, the same bytes, and both messages arrive.
        expect(requests.slice(1).filter((r) => r.raw.equals(limited.raw))).toHaveLength(1);
        const rows = await deliveryRows(endpoint.id);
        expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
        const statuses = await Promise.all(rows.map(async (r) => (await attemptsOf(r.id)).map((x) => x.status_code)));
        expect(statuses.sort((x, y) => x.length - y.length)).toEqual([[200], [429, 200]]);
        expect((await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).body.data).toMatchObject({
          enabled: true,
          consecutive_failures: 0,
        });
      }
      expect(toSlack[0].answer).toBe('rate_limited');
      expect(JSON.parse(toDiscord[0].answer)).toMatchObject({ retry_after: 1.5 });

      // Waiting does not make the processor spin: few passes while both channels were held back.
      // (The Slack channel is held for 2 s; the processor polls every 0.2 s on the embedded
      // database and every 1 s on PostgreSQL, and wakes for retries and sends as they fall due.)
      const heldFrom = toSlack[0].respondedAt + 100;
      const heldUntil = toSlack[1].at - 100;
      expect(claimTimes.length).toBeGreaterThan(0);
      const passes = claimTimes.filter((at) => at > heldFrom && at < heldUntil).length;
      expect(passes).toBeLessThan(40);
    } finally {
      claims.mockRestore();
    }
  });

  it("turns the endpoint off at once on 404 or 410 (disabled_reason 'gone'), cancels what it had pending and sends nothing more", async () => {
    const { ws, api } = await workspace();
    const s404 = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    const s410 = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    const d404 = await chatEndpoint(api, 'discord', discord.newUrl(), ['post.created']);
    const healthy = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    // The first answers wait until all three events are fanned out, so that two deliveries
    // are pending behind the refused one.
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    slack.always(s404.given, { ...SLACK.noService, hold });
    slack.always(s410.given, { ...SLACK.archived, hold });
    discord.always(d404.given, { ...DISCORD.unknownWebhook, hold });

    for (let i = 1; i <= 3; i++) await createPost(api, `Into the void ${i}`);
    await dispatched(ws.id);
    release();
    const gone = [
      { endpoint: s404, fake: slack, status: 404, answer: 'no_service' },
      { endpoint: s410, fake: slack, status: 410, answer: 'channel_is_archived' },
      { endpoint: d404, fake: discord, status: 404, answer: JSON.stringify({ message: 'Unknown Webhook', code: 10015 }) },
    ];
    for (const { endpoint, status, answer } of gone) {
      const shown = await until(`endpoint ${endpoint.id} off`, async () => {
        const got = (await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).body.data;
        return got.enabled === false && got;
      }, 15_000, 250); // asks the API: slowly, or the plan's rate limit answers 429
      expect(shown).toMatchObject({ enabled: false, disabled_reason: 'gone' });
      const listed = (await api.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries`)).body.data;
      expect(listed).toHaveLength(3);
      // The refused message and the two waiting behind it: cancelled, none pending.
      expect(listed.map((x: any) => [x.status, x.reason, x.next_attempt_at])).toEqual(
        Array(3).fill(['cancelled', 'endpoint_disabled', null]),
      );
      expect(listed.flatMap((x: any) => x.attempts.map((a: any) => a.status_code))).toEqual([status]);
      const [tried] = listed.filter((x: any) => x.attempts.length === 1);
      expect((await attemptsOf(tried.id))[0].response_body).toBe(answer);
    }
    // The working channel beside them got all three.
    await settled(healthy.id, 3);
    expect(slack.to(healthy.given)).toHaveLength(3);

    // Nothing more goes to the gone channels: not the cancelled ones, not new events.
    await createPost(api, 'After the channels went away');
    await dispatched(ws.id);
    await settled(healthy.id, 4);
    await sleep(1200);
    for (const { endpoint, fake } of gone) {
      expect(fake.to(endpoint.given)).toHaveLength(1);
      expect(await deliveryRows(endpoint.id)).toHaveLength(3);
    }
  });

  it('counts 400 invalid_payload as a failure and retries it on the schedule until the retries are spent', async () => {
    const { ws, api } = await workspace();
    const s = await chatEndpoint(api, 'slack', slack.newUrl(), ['post.created']);
    slack.always(s.given, SLACK.invalidPayload);

    await createPost(api, 'Slack will not have it');
    await dispatched(ws.id);
    const [row] = await settled(s.id, 1, 20_000);
    expect(row).toMatchObject({ status: 'failed', reason: 'retries_exhausted', attempt_count: 6 });
    const requests = slack.to(s.given);
    expect(requests).toHaveLength(6);
    expect(requests.every((r) => r.raw.equals(requests[0].raw))).toBe(true);
    // Each retry waits its step of the schedule, and the channel's one second.
    requests.slice(1).forEach((r, i) => {
      expect(r.at - requests[i].respondedAt).toBeGreaterThanOrEqual(SCHEDULE[i] - CLOCK_SLACK_MS);
      expect(r.at - requests[i].at).toBeGreaterThanOrEqual(1000 - CLOCK_SLACK_MS);
    });
    const attempts = await attemptsOf(row.id);
    expect(attempts.map((a) => [a.status_code, a.error, a.response_body])).toEqual(Array(6).fill([400, null, 'invalid_payload']));
    const [listed] = (await api.get(`/api/v1/webhook_endpoints/${s.id}/deliveries`)).body.data;
    expect(listed).toMatchObject({ status: 'failed', reason: 'retries_exhausted', next_attempt_at: null });
    expect(listed.attempts.map((a: any) => a.status_code)).toEqual([400, 400, 400, 400, 400, 400]);
    // Failures in a row are counted, but a bad payload is not a gone channel.
    expect((await api.get(`/api/v1/webhook_endpoints/${s.id}`)).body.data).toMatchObject({
      enabled: true,
      disabled_reason: null,
      consecutive_failures: 6,
    });
  });
});
