import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// One tenant's silent endpoints must not hold up another tenant's deliveries: the scheduler caps
// what one workspace and one endpoint may have in flight (across processes), opens an endpoint's
// circuit after failures in a row, and hands free slots round-robin across workspaces.

/** Accepts connections, reads the request line, and never answers. Counts what is open, per path. */
class SilentServer {
  private readonly server = net.createServer((socket) => this.hold(socket));
  private readonly sockets = new Set<net.Socket>();
  readonly open = new Map<string, number>();
  readonly maxOpen = new Map<string, number>();
  maxTotal = 0;
  accepted = 0;

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get total(): number {
    return [...this.open.values()].reduce((a, b) => a + b, 0);
  }

  private hold(socket: net.Socket): void {
    this.sockets.add(socket);
    this.accepted++;
    let head = '';
    let path: string | null = null;
    socket.on('data', (chunk) => {
      if (path !== null) return;
      head += chunk.toString('latin1');
      const line = head.split('\r\n')[0];
      if (!head.includes('\r\n')) return;
      path = line.split(' ')[1] ?? '?';
      this.open.set(path, (this.open.get(path) ?? 0) + 1);
      this.maxOpen.set(path, Math.max(this.maxOpen.get(path) ?? 0, this.open.get(path)!));
      this.maxTotal = Math.max(this.maxTotal, this.total);
    });
    socket.on('close', () => {
      this.sockets.delete(socket);
      if (path !== null) this.open.set(path, this.open.get(path)! - 1);
    });
    socket.on('error', () => {});
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const SHARES = {
  RUN_WORKER: 'true',
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_TIMEOUT_MS: '1500',
  OUTBOX_CONCURRENCY: '6',
  OUTBOX_WORKSPACE_CONCURRENCY: '4',
  OUTBOX_ENDPOINT_CONCURRENCY: '2',
};

describe('fair sending between workspaces', () => {
  let releaseLock: () => Promise<void>;
  let silent: SilentServer;
  const apps: TestApp[] = [];
  const workspaces: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    silent = await new SilentServer().start();
  }, 180_000);

  afterEach(async () => {
    if (apps[0]) await cancelPending(apps[0].db, workspaces);
    await Promise.all(apps.splice(0).map((t) => t.close()));
    await closeReceivers();
  });

  afterAll(async () => {
    await silent?.close();
    await releaseLock?.();
  });

  async function workspace(t: TestApp, plan: 'pro' | 'business'): Promise<{ ws: TestWorkspace; api: Client }> {
    const ws = await createWorkspace(t.app, { plan });
    workspaces.push(ws.id);
    return { ws, api: new Client(t.baseUrl, ws.key) };
  }

  async function endpoint(api: Client, url: string): Promise<string> {
    const answer = await api.post('/api/v1/webhook_endpoints', { url, events: ['post.created'] });
    expect(answer.status).toBe(201);
    return answer.body.data.id;
  }

  async function post(api: Client, title: string): Promise<{ id: number; committedAt: number }> {
    const answer = await api.post('/api/v1/posts', { board: 'ideas', title });
    expect(answer.status).toBe(201);
    return { id: answer.body.data.id, committedAt: Date.now() };
  }

  it("keeps another workspace's deliveries on time while one workspace's endpoints never answer, with two processors", async () => {
    // A's attempts hold their slots for the whole timeout. B's deliveries must arrive sooner than
    // one of A's attempts could end: then none of them waited for a slot of A's. The timeout is
    // long enough that a loaded machine's wake-ups (above 2 s on Citus in CI, three servers on two
    // cores) do not pass for waiting.
    const timeoutMs = 3_000;
    const shares = { ...SHARES, WEBHOOK_TIMEOUT_MS: String(timeoutMs) };
    apps.push(await startTestApp(shares), await startTestApp(shares));
    const [t] = apps;
    const a = await workspace(t, 'business');
    const b = await workspace(t, 'pro');
    for (let i = 0; i < 5; i++) await endpoint(a.api, `${silent.url}/a${i}`);
    const receiver = await Receiver.start();
    await endpoint(b.api, `${receiver.url}/b`);

    // A: 8 posts, 40 deliveries to endpoints that hold every connection for the whole timeout.
    for (let i = 0; i < 8; i++) await post(a.api, `Noisy post number ${i}`);
    await until('A to fill its share', () => silent.total >= 4);

    // B: a post every 300 ms, each delivered promptly although A has due work waiting.
    const sent: { id: number; committedAt: number }[] = [];
    for (let i = 0; i < 5; i++) {
      sent.push(await post(b.api, `Quiet post number ${i}`));
      await sleep(300);
    }
    const arrived = await receiver.waitFor(5, 10_000);
    const latencies = sent.map(({ id, committedAt }) => {
      const arrival = arrived.find((r) => r.body.data.post.id === id);
      return arrival === undefined ? null : arrival.at - committedAt;
    });
    console.log(`B's deliveries, commit to arrival: ${latencies.join(', ')} ms (each must be under A's timeout, ${timeoutMs})`);
    for (const latency of latencies) {
      expect(latency).not.toBeNull();
      expect(latency).toBeLessThan(timeoutMs);
    }

    // A keeps moving (attempts end at the timeout and the next ones start) but never holds more
    // than its share: 4 sends at once for the workspace, 2 per endpoint, across both processes.
    await until('A to make new attempts', () => silent.accepted >= 8, 10_000);
    expect(silent.maxTotal).toBeLessThanOrEqual(4);
    for (const [, max] of silent.maxOpen) expect(max).toBeLessThanOrEqual(2);
    expect(silent.maxTotal).toBe(4);
  }, 60_000);

  it('holds an answering endpoint to its share of sends at once, though a slot frees as soon as a delivery arrives', async () => {
    apps.push(await startTestApp(SHARES));
    const [t] = apps;
    const a = await workspace(t, 'business');
    const receiver = (await Receiver.start()).answerWith(() => ({ status: 200, sleepMs: 40 }));
    await endpoint(a.api, `${receiver.url}/answers`);
    // All at once, so that deliveries wait for the endpoint's slots however long a create takes
    // (one after another, on Citus each delivery could arrive before the next post committed).
    await Promise.all(Array.from({ length: 12 }, (_, i) => post(a.api, `Answered post number ${i}`)));

    const arrived = await receiver.waitFor(12, 15_000);
    await until('every answer to be sent', () => arrived.every((r) => r.respondedAt !== null) && arrived);
    // Requests open at once, as the receiver saw them (from arrival to its answer).
    const edges = arrived.flatMap((r) => [
      [r.at, 1],
      [r.respondedAt!, -1],
    ]);
    edges.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let open = 0;
    let most = 0;
    for (const [, step] of edges) most = Math.max(most, (open += step));
    expect(most).toBe(2);
    expect(new Set(arrived.map((r) => r.headers['chorus-delivery'])).size).toBe(12);
  }, 60_000);

  it('gives an endpoint whose circuit is open one send at a time; its deliveries wait, none is dropped', async () => {
    apps.push(await startTestApp({ ...SHARES, OUTBOX_WORKSPACE_CONCURRENCY: '8', OUTBOX_ENDPOINT_CONCURRENCY: '4' }));
    const [t] = apps;
    const a = await workspace(t, 'business');
    const ids = [await endpoint(a.api, `${silent.url}/open-circuit`), await endpoint(a.api, `${silent.url}/closed-circuit`)];
    // The first has failed 5 times in a row already: its circuit is open.
    await t.db.query(`UPDATE webhook_endpoints SET consecutive_failures = 5 WHERE workspace_id = $1 AND id = $2`, [a.ws.id, ids[0]]);
    for (let i = 0; i < 6; i++) await post(a.api, `Post for two endpoints ${i}`);

    await until('both endpoints to be tried', () => silent.maxOpen.has('/open-circuit') && (silent.open.get('/closed-circuit') ?? 0) >= 4);
    await sleep(2_000); // past one timeout: the next attempts have started
    expect(silent.maxOpen.get('/open-circuit')).toBe(1);
    expect(silent.maxOpen.get('/closed-circuit')).toBe(4);

    const rows: { endpoint_id: string; status: string }[] = await t.db.query(
      `SELECT endpoint_id, status FROM webhook_deliveries WHERE workspace_id = $1`,
      [a.ws.id],
    );
    expect(rows).toHaveLength(12);
    expect(rows.every((r) => r.status === 'pending')).toBe(true);
    const [{ failures }] = await t.db.query(
      `SELECT consecutive_failures AS failures FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`,
      [a.ws.id, ids[0]],
    );
    expect(failures).toBeGreaterThanOrEqual(6);
  }, 60_000);
});
