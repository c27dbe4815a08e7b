import { pbkdf2 } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { EndpointsService } from '../src/webhooks/endpoints.service';
import { NameResolver } from '../src/webhooks/name-resolver';
import { TestDnsServer } from './support/dns-server';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { until } from './support/wait';

// Lookups that cannot stall the process (issue 9, point 4). The apps resolve webhook targets
// through a DNS server on a local UDP port (DNS_SERVERS): it answers the names below, and never
// answers any name under .hang.test. Receivers are HTTP servers on 127.0.0.1. The file holds the
// processor lock while its processors run.

const RECORDS: Record<string, string[]> = {
  'b.tenant.test': ['127.0.0.1'],
  'chat.tenant.test': ['127.0.0.1'],
  'public.test': ['93.184.216.34'],
  'internal.test': ['10.1.2.3'],
  'postgres': ['172.18.0.2'],
  'mixed.test': ['93.184.216.34', '172.18.0.2'],
};
const isHanging = (name: string) => name.endsWith('.hang.test');
const EVENTS = ['post.created'];

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

describe('lookups that cannot stall the process', () => {
  let dns: TestDnsServer;
  let releaseLock: () => Promise<void>;
  const workspaceIds: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    dns = await TestDnsServer.start({ records: RECORDS, silent: isHanging });
  }, 180_000);

  afterAll(async () => {
    await closeReceivers();
    await dns?.close();
    await releaseLock?.();
  });

  async function workspace(t: TestApp, plan: 'pro' | 'business' | 'free' = 'pro'): Promise<{ ws: TestWorkspace; api: Client }> {
    const ws = await createWorkspace(t.app, { plan });
    workspaceIds.push(ws.id);
    return { ws, api: new Client(t.baseUrl, ws.key) };
  }

  const hangingQueries = () => dns.queries.filter((q) => isHanging(q.name));

  async function endpoint(api: Client, url: string, kind = 'webhook'): Promise<{ id: string }> {
    const answer = await api.post('/api/v1/webhook_endpoints', { kind, url, events: EVENTS });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  async function post(api: Client, title: string): Promise<Answer> {
    const answer = await api.post('/api/v1/posts', { board: 'ideas', title });
    expect(answer.status).toBe(201);
    return answer;
  }

  async function firstAttempts(t: TestApp, workspaceId: string) {
    return t.db.query(
      `SELECT d.endpoint_id, d.event_id, a.error, a.status_code, a.duration_ms
         FROM webhook_deliveries d JOIN delivery_attempts a ON a.workspace_id = d.workspace_id AND a.delivery_id = d.id
        WHERE d.workspace_id = $1 ORDER BY a.at`,
      [workspaceId],
    ) as Promise<{ endpoint_id: string; event_id: string; error: string | null; status_code: number | null; duration_ms: number }[]>;
  }

  describe('deliveries: the processor in the API, private targets allowed', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({
        RUN_WORKER: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        DNS_SERVERS: dns.address,
        DNS_TIMEOUT_MS: '4000',
        WEBHOOK_TIMEOUT_MS: '8000',
        // One attempt each here: no retry comes back during the test.
        WEBHOOK_RETRY_SCHEDULE: '1h',
      });
    });
    afterAll(async () => {
      await cancelPending(t.db, workspaceIds);
      await t.close();
    });

    it("while one workspace's names hang, another workspace's deliveries and the API answer at once; the hanging ones end as dns_error", async () => {
      const a = await workspace(t, 'business');
      const b = await workspace(t, 'pro');
      const aEndpoints = [];
      for (let i = 0; i < 25; i++) aEndpoints.push(await endpoint(a.api, `http://a${i}.hang.test:9/hook`));
      const bReceiver = await Receiver.start();
      await endpoint(b.api, `http://b.tenant.test:${bReceiver.port}/hook`);
      expect(hangingQueries()).toEqual([]); // saving under the switch makes no lookup

      // A's two posts: 50 deliveries whose lookups hang.
      await post(a.api, 'First of A');
      await post(a.api, 'Second of A');
      const resolver = t.app.get(NameResolver);
      await until("A's lookups to hang", () => resolver.inFlight(a.ws.id) === 8, 3_000);
      expect(resolver.inFlight()).toBe(8);

      // B's post, and the API, while A's lookups hang.
      const bPosted = Date.now();
      await post(b.api, 'B meanwhile');
      const [arrival] = await bReceiver.waitFor(1, 3_000);
      expect(arrival.at - bPosted).toBeLessThan(1_500);
      const list = await timed(b.api.get('/api/v1/posts'));
      expect(list.value.status).toBe(200);
      expect(list.ms).toBeLessThan(500);
      const aList = await timed(a.api.get('/api/v1/webhook_endpoints'));
      expect(aList.value.body.data).toHaveLength(25);
      expect(aList.ms).toBeLessThan(500);
      // libuv's thread pool (file access, crypto) is free: c-ares lookups do not run on it.
      const pool = await timed(Promise.all([0, 1, 2, 3, 4, 5].map(() => promisify(pbkdf2)('x', 'y', 1, 32, 'sha256')).concat(readFile(__filename))));
      expect(pool.ms).toBeLessThan(300);
      // All of this happened while A's lookups were still hanging.
      expect(resolver.inFlight(a.ws.id)).toBe(8);
      expect(await firstAttempts(t, a.ws.id)).toEqual([]);
      expect(dns.queriesFor('b.tenant.test').length).toBeGreaterThan(0);

      // Each of A's attempts ends at DNS_TIMEOUT_MS, a slot's wait included, with a clean error.
      const attempts = await until("A's 50 attempts", async () => {
        const rows = await firstAttempts(t, a.ws.id);
        return rows.length === 50 && rows;
      }, 25_000);
      for (const attempt of attempts) {
        expect(attempt).toMatchObject({ error: 'dns_error', status_code: null });
        expect(attempt.duration_ms).toBeGreaterThanOrEqual(3_900);
        expect(attempt.duration_ms).toBeLessThan(6_000);
      }
      expect(resolver.inFlight()).toBe(0);
      expect(new Set(attempts.map((x) => x.endpoint_id))).toEqual(new Set(aEndpoints.map((e) => e.id)));
    }, 60_000);
  });

  describe('saving endpoints: API only, the default switch', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({ DNS_SERVERS: dns.address, DNS_TIMEOUT_MS: '4000' });
    });
    afterAll(() => t.close());

    it("while one workspace's saves wait on hanging names, another workspace saves at once; the wait ends in a clean 400", async () => {
      const a = await workspace(t, 'business');
      const b = await workspace(t, 'pro');
      const resolver = t.app.get(NameResolver);
      // More saves at once than the process has lookup slots (64): A still holds only its share.
      const started = Date.now();
      const saves = Array.from({ length: 70 }, (_, i) =>
        a.api.post('/api/v1/webhook_endpoints', { url: `https://s${i}.hang.test/hook`, events: EVENTS }),
      );
      // Every one of A's requests has reached its lookup: 8 hang at the server, 62 wait for a slot.
      await until("A's lookups to hang", () => resolver.inFlight(a.ws.id) === 8 && resolver.waiting(a.ws.id) === 62, 3_500);
      expect(resolver.inFlight()).toBe(8);

      const saved = await timed(b.api.post('/api/v1/webhook_endpoints', { url: 'https://public.test/hook', events: EVENTS }));
      expect(saved.value.status).toBe(201);
      expect(saved.ms).toBeLessThan(1_000);
      const listed = await timed(b.api.get('/api/v1/webhook_endpoints'));
      expect(listed.value.body.data).toHaveLength(1);
      expect(listed.ms).toBeLessThan(1_000);
      expect(resolver.inFlight(a.ws.id)).toBe(8);

      const answers = await Promise.all(saves);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
      expect(Date.now() - started).toBeLessThan(8_000);
      answers.forEach((answer, i) =>
        expectError(answer, 400, 'invalid_request', `url: s${i}.hang.test did not resolve within 4000 ms; try again later`),
      );
      expect((await a.api.get('/api/v1/webhook_endpoints')).body.data).toEqual([]);
      expect(resolver.inFlight()).toBe(0);
    }, 30_000);

    it('never names a resolved address in the 400 (create and PATCH)', async () => {
      const { api } = await workspace(t, 'pro');
      const kept = await endpoint(api, 'https://public.test/kept');
      for (const host of ['internal.test', 'postgres', 'mixed.test']) {
        const message = `url: must resolve to public addresses only (${host} does not)`;
        const created = await api.post('/api/v1/webhook_endpoints', { url: `https://${host}/hook`, events: EVENTS });
        expectError(created, 400, 'invalid_request', message);
        const patched = await api.patch(`/api/v1/webhook_endpoints/${kept.id}`, { url: `https://${host}:8443/hook` });
        expectError(patched, 400, 'invalid_request', message);
        for (const answer of [created, patched]) expect(answer.text).not.toMatch(/10\.1\.2\.3|172\.18\.0\.2|private/);
      }
    });

    it("checks the plan's endpoint count before any lookup", async () => {
      const { api } = await workspace(t, 'pro');
      for (let i = 0; i < 5; i++) await endpoint(api, `https://public.test/e${i}`);
      const sixth = await api.post('/api/v1/webhook_endpoints', { url: 'https://sixth.hang.test/hook', events: EVENTS });
      expectError(sixth, 403, 'plan_required', /\b5\b/);

      // A free workspace has no API key access; its endpoints come through the service (the CLI's way).
      const free = await workspace(t, 'free');
      await expect(
        t.app.get(EndpointsService).create({ workspaceId: free.ws.id, plan: 'free' }, { url: 'https://free.hang.test/hook', events: ['post.created'] }),
      ).rejects.toMatchObject({ code: 'plan_required' });

      // Neither asked the DNS server (a hanging name would have held each answer for 4 s).
      expect(dns.queriesFor('sixth.hang.test')).toEqual([]);
      expect(dns.queriesFor('free.hang.test')).toEqual([]);
    });
  });

  describe('the send-time re-check', () => {
    it('stops endpoints saved under WEBHOOK_ALLOW_PRIVATE_TARGETS once the switch is off, before any lookup or connection', async () => {
      const env = { DNS_SERVERS: dns.address, RUN_WORKER: 'true', WEBHOOK_RETRY_SCHEDULE: '1h', WEBHOOK_TIMEOUT_MS: '2000' };
      const open = await startTestApp({ ...env, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
      const r = await Receiver.start();
      let ws: TestWorkspace;
      let saved: { id: string }[];
      try {
        const created = await workspace(open, 'pro');
        ws = created.ws;
        saved = [
          await endpoint(created.api, `http://b.tenant.test:${r.port}/own`),
          await endpoint(created.api, `http://chat.tenant.test:${r.port}/services/T0/B0/XXXX`, 'slack'),
          await endpoint(created.api, `http://chat.tenant.test:${r.port}/api/webhooks/1/XYZ`, 'discord'),
        ];
        // With the switch on, all three are delivered.
        await post(created.api, 'While the switch is on');
        const delivered = await r.waitFor(3);
        expect(delivered.map((a) => a.path).sort()).toEqual(['/api/webhooks/1/XYZ?wait=true', '/own', '/services/T0/B0/XXXX']);
        // Plain http to a public address: allowed with the switch on, never sent to here.
        saved.push(await endpoint(created.api, 'http://public.test/plain'));
      } finally {
        await open.close();
      }

      const strict = await startTestApp(env);
      try {
        const queriesBefore = dns.queries.length;
        await post(new Client(strict.baseUrl, ws.key), 'After the switch went off');
        const refused = await until('four refused attempts', async () => {
          const rows = (await firstAttempts(strict, ws.id)).filter((row) => row.error !== null);
          return rows.length === 4 && rows;
        });
        expect(new Set(refused.map((row) => row.endpoint_id))).toEqual(new Set(saved.map((e) => e.id)));
        for (const row of refused) expect(row).toMatchObject({ error: 'unsafe_target', status_code: null });
        expect(r.requests).toHaveLength(3);
        // Refused on the URL alone: no name was even looked up.
        expect(dns.queries.length).toBe(queriesBefore);
      } finally {
        await cancelPending(strict.db, workspaceIds);
        await strict.close();
      }
    }, 30_000);
  });
});
