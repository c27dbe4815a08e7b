import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox } from '../src/common/secret-box';
import { secretContext, urlContext } from '../src/webhooks/endpoints.service';
import { createWorkspace } from './support/factories';
import { Client } from './support/http';
import { freePort, ROOT, runBuilt, runToEnd } from './support/processes';
import { startTestApp, testDatabaseUrl, TestApp } from './support/test-app';

// Secrets at rest: signing secrets and Slack and Discord URLs are stored sealed (AES-256-GCM,
// bound to their row and column), shown masked or once, and the key must be there to start.
// No processor runs in this file (RUN_WORKER stays 'false') and no event is made, so nothing is
// ever sent to the realistic chat URLs below.

const SLACK_TOKEN = 'SECRETTOKEN123';
const SLACK_URL = `https://hooks.slack.com/services/T000/B000/${SLACK_TOKEN}`;
const DISCORD_TOKEN = 'DISCORDTOKENabc';
const DISCORD_URL = `https://discord.com/api/webhooks/1234567890/${DISCORD_TOKEN}`;
const DISCORD_TOKEN_2 = 'SECONDdiscordTOKENxyz';
const DISCORD_URL_2 = `https://discord.com/api/webhooks/1234567890/${DISCORD_TOKEN_2}`;
const WEBHOOK_URL = 'https://receiver.example.com/chorus/hook';
const SECRET = /^whsec_[0-9A-Za-z]{32,}$/;
const SEALED = /^v1:[A-Za-z0-9+/]+=*$/;
const ENDPOINT_KEYS = ['consecutive_failures', 'created_at', 'disabled_reason', 'enabled', 'events', 'id', 'kind', 'url'];

describe('secrets at rest', () => {
  let t: TestApp;
  let api: Client;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    const ws = await createWorkspace(t.app, { plan: 'pro' });
    workspaceId = ws.id;
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(async () => {
    if (t) {
      await t.db.query(`DELETE FROM webhook_endpoints WHERE workspace_id = $1`, [workspaceId]).catch(() => {});
      await t.close();
    }
  });

  async function create(kind: string, url: string) {
    const answer = await api.post('/api/v1/webhook_endpoints', { kind, url, events: ['post.status_changed'] });
    expect(answer.status).toBe(201);
    return answer;
  }

  /** Every row of every table, as JSON text. */
  async function dump(): Promise<string> {
    const tables: { table_name: string }[] = await t.db.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    const names = tables.map((r) => r.table_name);
    for (const required of ['webhook_endpoints', 'webhook_deliveries', 'delivery_attempts', 'outbox_events']) {
      expect(names).toContain(required);
    }
    const parts: string[] = [];
    for (const name of names) {
      const rows: { row: string }[] = await t.db.query(`SELECT row_to_json(t)::text AS row FROM "${name}" t`);
      parts.push(...rows.map((r) => r.row));
    }
    return parts.join('\n');
  }

  it('stores secrets and chat URLs sealed, shows chat URLs masked and the secret only on create and rotate', async () => {
    // An own server: the secret is in the create answer only.
    const webhook = await create('webhook', WEBHOOK_URL);
    const firstSecret: string = webhook.body.data.secret;
    expect(firstSecret).toMatch(SECRET);
    expect(webhook.body.data.url).toBe(WEBHOOK_URL);

    // Slack and Discord: masked from the first answer on, and no secret at all.
    const slack = await create('slack', SLACK_URL);
    const discord = await create('discord', DISCORD_URL);
    for (const [answer, token] of [
      [slack, SLACK_TOKEN],
      [discord, DISCORD_TOKEN],
    ] as const) {
      expect(answer.text).not.toContain(token);
      expect(Object.keys(answer.body.data).sort()).toEqual(ENDPOINT_KEYS);
    }
    expect(slack.body.data.url).toMatch(/^https:\/\/hooks\.slack\.com\/services\/.{0,4}…$/);
    expect(discord.body.data.url).toMatch(/^https:\/\/discord\.com\/api\/webhooks\/.{0,4}…$/);

    // Rotation: a new secret, in that answer only; the old one keeps signing for a while.
    const rotated = await api.post(`/api/v1/webhook_endpoints/${webhook.body.data.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    const secondSecret: string = rotated.body.data.secret;
    expect(secondSecret).toMatch(SECRET);
    expect(secondSecret).not.toBe(firstSecret);
    const chatRotate = await api.post(`/api/v1/webhook_endpoints/${slack.body.data.id}/rotate_secret`);
    expect(chatRotate.status).toBe(400);

    // A new Discord URL by PATCH: masked in the answer too.
    const patched = await api.patch(`/api/v1/webhook_endpoints/${discord.body.data.id}`, { url: DISCORD_URL_2 });
    expect(patched.status).toBe(200);
    expect(patched.text).not.toContain(DISCORD_TOKEN_2);
    expect(patched.body.data.url).toMatch(/^https:\/\/discord\.com\/api\/webhooks\/.{0,4}…$/);
    expect(patched.body.data).not.toHaveProperty('secret');

    // Reading back: no secret, chat URLs masked.
    const list = await api.get('/api/v1/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.body.data.map((e: any) => [e.kind, e.id])).toEqual([
      ['webhook', webhook.body.data.id],
      ['slack', slack.body.data.id],
      ['discord', discord.body.data.id],
    ]);
    for (const e of list.body.data) expect(Object.keys(e).sort()).toEqual(ENDPOINT_KEYS);
    expect(list.body.data[0].url).toBe(WEBHOOK_URL);
    expect(list.body.data[1].url).toBe(slack.body.data.url);
    expect(list.body.data[2].url).toBe(patched.body.data.url);
    const reads = [list.text];
    for (const e of list.body.data) {
      const got = await api.get(`/api/v1/webhook_endpoints/${e.id}`);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(e);
      reads.push(got.text);
    }
    for (const text of reads) {
      for (const secret of [firstSecret, secondSecret, 'whsec_', SLACK_TOKEN, DISCORD_TOKEN, DISCORD_TOKEN_2, SLACK_URL, DISCORD_URL, DISCORD_URL_2]) {
        expect(text).not.toContain(secret);
      }
    }

    // The database: every table, every row. The secrets and chat URLs appear nowhere.
    const everything = await dump();
    expect(everything.length).toBeGreaterThan(0);
    for (const secret of [firstSecret, secondSecret, SLACK_URL, SLACK_TOKEN, DISCORD_URL, DISCORD_TOKEN, DISCORD_URL_2, DISCORD_TOKEN_2]) {
      expect(everything).not.toContain(secret);
    }
    // … nor the tokens' base64, say, from a value stored encoded instead of encrypted.
    for (const token of [SLACK_TOKEN, DISCORD_TOKEN, DISCORD_TOKEN_2]) {
      expect(everything).not.toContain(Buffer.from(token).toString('base64').slice(0, 12));
    }
    const rows: { id: string; kind: string; url_sealed: string; url_shown: string; secret_sealed: string | null; rotated_secrets: { sealed: string }[] }[] =
      await t.db.query(
        `SELECT id, kind, url_sealed, url_shown, secret_sealed, rotated_secrets FROM webhook_endpoints
          WHERE workspace_id = $1 ORDER BY created_at, id`,
        [workspaceId],
      );
    expect(rows.map((r) => r.kind)).toEqual(['webhook', 'slack', 'discord']);
    for (const row of rows) expect(row.url_sealed).toMatch(SEALED);
    expect(rows[0].url_shown).toBe(WEBHOOK_URL);
    expect(rows[0].secret_sealed).toMatch(SEALED);
    expect(rows[0].rotated_secrets.map((r) => r.sealed)).toEqual([expect.stringMatching(SEALED)]);
    expect(rows[1].secret_sealed).toBeNull();
    expect(rows[2].secret_sealed).toBeNull();

    // They open with the app's key in their own place, and give back what was stored.
    const box = t.app.get(SecretBox);
    const [web, sl, dc] = rows;
    expect(box.open(web.secret_sealed!, secretContext(web.id))).toBe(secondSecret);
    expect(box.open(web.rotated_secrets[0].sealed, secretContext(web.id))).toBe(firstSecret);
    expect(box.open(sl.url_sealed, urlContext(sl.id))).toBe(SLACK_URL);
    expect(box.open(dc.url_sealed, urlContext(dc.id))).toBe(DISCORD_URL_2);
    expect(box.open(web.url_sealed, urlContext(web.id))).toBe(WEBHOOK_URL);
    // Two seals of one value differ (random IV).
    expect(box.seal(SLACK_URL, urlContext(sl.id))).not.toBe(sl.url_sealed);
  });

  it('does not open a sealed value copied to another endpoint’s row or to another column', async () => {
    const box = t.app.get(SecretBox);
    const first = (await create('webhook', 'https://receiver.example.com/one')).body.data;
    const second = (await create('webhook', 'https://receiver.example.com/two')).body.data;
    const read = async (id: string) =>
      (
        await t.db.query(`SELECT url_sealed, secret_sealed FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, [
          workspaceId,
          id,
        ])
      )[0] as { url_sealed: string; secret_sealed: string };
    const original = await read(first.id);
    expect(box.open(original.secret_sealed, secretContext(first.id))).toBe(first.secret);

    // Copy the first endpoint's sealed secret and URL into the second's row, as an attacker with
    // write access to the table (but not the key) might, to make Chorus sign or send for them.
    await t.db.query(`UPDATE webhook_endpoints SET secret_sealed = $3, url_sealed = $4 WHERE workspace_id = $1 AND id = $2`, [
      workspaceId,
      second.id,
      original.secret_sealed,
      original.url_sealed,
    ]);
    const copied = await read(second.id);
    expect(copied.secret_sealed).toBe(original.secret_sealed);
    expect(() => box.open(copied.secret_sealed, secretContext(second.id))).toThrow();
    expect(() => box.open(copied.url_sealed, urlContext(second.id))).toThrow();
    // Another column of the same row does not open it either.
    expect(() => box.open(original.secret_sealed, urlContext(first.id))).toThrow();
    expect(() => box.open(original.url_sealed, secretContext(first.id))).toThrow();
    // A flipped byte does not open (GCM's tag).
    const raw = Buffer.from(original.secret_sealed.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => box.open(`v1:${raw.toString('base64')}`, secretContext(first.id))).toThrow();
    // Another key does not open it.
    expect(() => new SecretBox('a1'.repeat(32)).open(original.secret_sealed, secretContext(first.id))).toThrow();

    // Leave no row behind that the processor could not open.
    for (const id of [first.id, second.id]) expect((await api.request('DELETE', `/api/v1/webhook_endpoints/${id}`)).status).toBe(204);
  });
});

describe('the encryption key at start-up', () => {
  let dataDir: string;

  beforeAll(() => {
    if (!existsSync(join(ROOT, 'dist', 'src', 'main.js'))) throw new Error('Build first: npm run build');
    dataDir = mkdtempSync(join(tmpdir(), 'chorus-key-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses to start on a PostgreSQL server without ENCRYPTION_KEY, naming it', async () => {
    const run = await runToEnd('main', [], { DATABASE_URL: testDatabaseUrl(), PORT: String(await freePort()) });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/ENCRYPTION_KEY is required when DATABASE_URL is set/);
    expect(run.stderr).toMatch(/64 hex characters/);
    // One clear message, not a stack trace.
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stdout).not.toMatch(/Listening on/);
  });

  it('refuses a malformed ENCRYPTION_KEY, naming it', async () => {
    const run = await runToEnd('main', [], {
      DATABASE_URL: testDatabaseUrl(),
      PORT: String(await freePort()),
      ENCRYPTION_KEY: 'not-a-key',
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/ENCRYPTION_KEY="\(9 characters, not shown\)": must be 64 hex characters/);
    expect(run.stderr).not.toContain('not-a-key');
  });

  it('on the embedded database generates the key once into DATA_DIR (0600) and reuses it', async () => {
    const file = join(dataDir, 'encryption.key');
    const env = { PORT: String(await freePort()), DATA_DIR: dataDir };
    const first = runBuilt('main', [], env);
    try {
      await first.waitFor(/Listening on/, 120_000);
    } finally {
      expect(await first.stop('SIGTERM')).toBe(0);
    }
    expect(existsSync(file)).toBe(true);
    const key = readFileSync(file, 'utf8');
    expect(key.trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(first.output()).not.toContain(key.trim());

    const second = runBuilt('main', [], { ...env, PORT: String(await freePort()) });
    try {
      await second.waitFor(/Listening on/, 120_000);
    } finally {
      expect(await second.stop('SIGTERM')).toBe(0);
    }
    expect(readFileSync(file, 'utf8')).toBe(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // A damaged key file stops the start with a message naming it, and is left as it is.
    writeFileSync(file, 'garbage\n');
    const damaged = await runToEnd('main', [], { ...env, PORT: String(await freePort()) });
    expect(damaged.code).toBe(1);
    expect(damaged.stderr).toContain(`${file} does not hold a 64-hex-character key`);
    expect(readFileSync(file, 'utf8')).toBe('garbage\n');
    writeFileSync(file, key, { mode: 0o600 });
  }, 300_000);
});
