import { loadConfig } from '../src/config/app-config';
import { Mailer, SMTP_CONNECTIONS } from '../src/notifications/mailer';
import { addressOf, MailServer } from './support/mail';

// The mailer's pooled SMTP transport against a real SMTP server (smtp-server) on 127.0.0.1:
// connections reused, every message delivered once, workspaces taking turns for connections,
// and connections the server drops.

const mailerFor = (server: MailServer, query = '') =>
  new Mailer(loadConfig({ SMTP_URL: `${server.url}${query}`, WEBHOOK_TIMEOUT_MS: '5000' }));

const message = (to: string) => ({ to, subject: `For ${to}`, text: `Hello ${to}` });

/** Sends each workspace's messages four at a time (the outbox's EMAIL_CONCURRENCY), workspaces side by side. */
async function sendAsOutbox(mailer: Mailer, byWorkspace: Map<string, string[]>): Promise<PromiseSettledResult<void>[]> {
  const results: PromiseSettledResult<void>[] = [];
  await Promise.all(
    [...byWorkspace].map(async ([workspaceId, recipients]) => {
      const queue = [...recipients];
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          for (let to = queue.shift(); to !== undefined; to = queue.shift()) {
            results.push(
              await mailer.send(message(to), workspaceId).then(
                () => ({ status: 'fulfilled', value: undefined }) as const,
                (reason) => ({ status: 'rejected', reason }) as const,
              ),
            );
          }
        }),
      );
    }),
  );
  return results;
}

describe('the pooled SMTP transport', () => {
  let server: MailServer;
  let mailer: Mailer | null = null;

  beforeEach(async () => {
    server = await new MailServer().start();
  });
  afterEach(async () => {
    mailer?.close();
    mailer = null;
    await server.close();
  });

  it('delivers every message exactly once over a few connections, each used for many messages', async () => {
    mailer = mailerFor(server);
    const byWorkspace = new Map<string, string[]>();
    for (let w = 0; w < 5; w++) byWorkspace.set(`ws-${w}`, Array.from({ length: 60 }, (_, i) => `voter${i}@w${w}.example`));
    const results = await sendAsOutbox(mailer, byWorkspace);

    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const received = server.accepted.map((m) => addressOf(m.mail.to)).sort();
    expect(received).toEqual([...byWorkspace.values()].flat().sort()); // each once, none missing
    expect(server.connections).toBeGreaterThanOrEqual(1);
    expect(server.connections).toBeLessThanOrEqual(SMTP_CONNECTIONS);
    expect(Math.max(...server.messagesPerConnection())).toBeGreaterThan(10);
    process.stdout.write(`300 messages over ${server.connections} connections: ${server.messagesPerConnection().join(', ')}\n`);
  });

  it('opens a new connection after maxMessages, and takes the pool size from SMTP_URL', async () => {
    mailer = mailerFor(server, '?maxConnections=1&maxMessages=10');
    for (let i = 0; i < 25; i++) await mailer.send(message(`one${i}@example.test`), 'ws');
    expect(server.accepted).toHaveLength(25);
    expect(server.connections).toBe(3);
    expect(server.messagesPerConnection()).toEqual([10, 10, 5]);
  });

  it("gives a waiting workspace the next free connection, not the busy workspace's next message", async () => {
    // Two connections, a slow server, and one workspace with twenty messages ready before another's one.
    mailer = mailerFor(server, '?maxConnections=2');
    server.delayMs = 40;
    const busy = Array.from({ length: 20 }, (_, i) => mailer!.send(message(`busy${i}@a.example`), 'ws-busy'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    const other = mailer.send(message('other@b.example'), 'ws-other');
    await Promise.all([...busy, other]);

    const order = server.accepted.map((m) => addressOf(m.mail.to));
    expect(order).toHaveLength(21);
    // Queued after twenty, served among the first few: at most the two in flight and one more before it.
    expect(order.indexOf('other@b.example')).toBeLessThanOrEqual(3);
  });

  it('fails a message whose connection the server drops mid-way (the outbox retries it), and sends it once on the retry', async () => {
    mailer = mailerFor(server);
    server.refuse('dropped@example.test', ['drop']);
    await mailer.send(message('before@example.test'), 'ws');
    await expect(mailer.send(message('dropped@example.test'), 'ws')).rejects.toThrow();
    // The pool goes on over a new connection; the retry (the outbox's next attempt) arrives once.
    await mailer.send(message('after@example.test'), 'ws');
    await mailer.send(message('dropped@example.test'), 'ws');
    expect(server.accepted.map((m) => addressOf(m.mail.to))).toEqual(['before@example.test', 'after@example.test', 'dropped@example.test']);
    expect(server.attempts.get('dropped@example.test')).toBe(2);
    expect(server.connections).toBe(2);
  });

  it('loses no message and sends none twice when the server closes each connection after three messages', async () => {
    mailer = mailerFor(server, '?maxConnections=2');
    server.closeAfter = 3;
    const recipients = Array.from({ length: 30 }, (_, i) => `closing${i}@example.test`);
    let results = await sendAsOutbox(mailer, new Map([['ws', recipients]]));
    // A message the close caught before any of it was sent goes over another connection; one
    // caught mid-way fails, as the outbox's attempt, and the outbox sends it again: so here.
    const failed: string[] = [];
    for (let round = 0; round < 5; round++) {
      const again = recipients.filter((to) => !server.accepted.some((m) => addressOf(m.mail.to) === to));
      if (again.length === 0) break;
      failed.push(...again);
      results = await sendAsOutbox(mailer, new Map([['ws', again]]));
    }
    process.stdout.write(`closed after 3 messages each: ${server.connections} connections, ${failed.length} sends failed and sent again\n`);
    expect(results.length).toBeGreaterThan(0);
    expect(server.accepted.map((m) => addressOf(m.mail.to)).sort()).toEqual([...recipients].sort()); // each exactly once
    expect(server.messagesPerConnection().every((n) => n <= 3)).toBe(true);
    expect(server.connections).toBeGreaterThanOrEqual(10);
  });
});
