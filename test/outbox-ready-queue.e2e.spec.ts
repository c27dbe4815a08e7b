import { randomUUID } from 'node:crypto';
import { Database } from '../src/database/sql';
import { SIGN_IN_EMAIL } from '../src/notifications/sign-in-email';
import { ClaimsStore, EMAIL_CONCURRENCY } from '../src/outbox/claims.store';
import { DeliveriesStore, NewDelivery } from '../src/outbox/deliveries.store';
import { Lease } from '../src/outbox/lease';
import { OutboxDeliveries } from '../src/outbox/outbox-deliveries.service';
import { OutboxProcessor } from '../src/outbox/outbox.processor';
import { createWorkspace } from './support/factories';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { startTestApp, TestApp } from './support/test-app';
import { sleep } from './support/wait';

// The claim's ready-queue (outbox_queues, issue 35) kept current by the writers that make a
// delivery pending or due sooner, and by the claim itself: the processor is stopped and the
// outbox's own stores are driven by hand (claims, attempts written as the recorder writes
// them, retries from the API's service), so that every step's effect can be looked at. Nothing
// pending is lost and nothing is claimed twice while its lease lasts.

const LEASE_MS = 3_000; // WEBHOOK_TIMEOUT_MS 1,000: a lease is 2 × the timeout + 1 s

describe('the claim’s ready-queue', () => {
  let releaseLock: () => Promise<void>;
  let t: TestApp;
  let db: Database;
  let claims: ClaimsStore;
  let deliveries: DeliveriesStore;

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    t = await startTestApp({ RUN_WORKER: 'true', WEBHOOK_TIMEOUT_MS: '1000' });
    t.app.get(OutboxProcessor).stopClaiming();
    await sleep(300); // what its start began ends
    expect(t.app.get(Lease).ms).toBe(LEASE_MS);
    db = t.app.get(Database);
    claims = t.app.get(ClaimsStore);
    deliveries = t.app.get(DeliveriesStore);
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await releaseLock?.();
  });

  /** The workspaces made here: what an earlier case left pending in them must not take a later claim's share (on Citus, a claim's slots are shared among the workspaces with due work). */
  const made: string[] = [];
  async function workspace() {
    const ws = await createWorkspace(t.app, { plan: 'business', boards: false });
    made.push(ws.id);
    return ws;
  }

  async function endpoints(workspaceId: string, count: number): Promise<string[]> {
    const rows: { id: string }[] = await t.db.query(
      `INSERT INTO webhook_endpoints (workspace_id, id, kind, url_sealed, url_shown, events)
       SELECT $1, gen_random_uuid(), 'webhook', 'sealed', 'https://example.test/' || i, ARRAY['post.created']
         FROM generate_series(1, $2::integer) i RETURNING id`,
      [workspaceId, count],
    );
    return rows.map((row) => row.id);
  }

  /** Deliveries made as fan-out makes them (DeliveriesStore.insertMany): `perEndpoint` to each endpoint, due now. */
  async function fanOut(workspaceId: string, to: string[], perEndpoint: number): Promise<string[]> {
    const made: NewDelivery[] = [];
    for (let n = 0; n < perEndpoint; n++) {
      const event = randomUUID();
      for (const endpoint of to) {
        made.push({
          workspace_id: workspaceId,
          id: randomUUID(),
          endpoint_id: endpoint,
          recipient: null,
          event_id: event,
          event_type: 'post.created',
          event_created_at: new Date(),
          body: `{"n":${n}}`,
        });
      }
    }
    await db.transaction(async (tx) => deliveries.insertMany(tx, made));
    return made.map((d) => d.id);
  }

  /** One claim of up to `slots`, this workspace's rows only (other files' due deliveries may be claimed beside them, and are left leased). */
  async function claim(workspaceId: string, slots = 64) {
    return (await claims.claim(slots, [], 'all')).filter((row) => row.workspace_id === workspaceId);
  }

  async function queues(workspaceId: string): Promise<{ queue: string; due_in_ms: number }[]> {
    return t.db.query(
      `SELECT queue, (extract(epoch FROM due_at - now()) * 1000)::integer AS due_in_ms FROM outbox_queues WHERE workspace_id = $1 ORDER BY queue`,
      [workspaceId],
    );
  }

  async function status(workspaceId: string): Promise<Record<string, number>> {
    const rows: { status: string; n: number }[] = await t.db.query(
      `SELECT status, count(*)::integer AS n FROM webhook_deliveries WHERE workspace_id = $1 GROUP BY status`,
      [workspaceId],
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }

  /** An attempt written as the recorder writes it: delivered, or failed and retried in `retryInMs`. */
  async function attempted(workspaceId: string, row: { id: string; attempt_count: number }, retryInMs: number | null): Promise<void> {
    await db.transaction(async (tx) => {
      if (retryInMs === null) deliveries.markDelivered(tx, workspaceId, row.id, row.attempt_count + 1);
      else deliveries.markFailedAttempt(tx, workspaceId, row.id, row.attempt_count + 1, new Date(Date.now() + retryInMs));
    });
  }

  it('fan-out puts each queue in it, due now; a claim that leases a queue’s last due delivery drops it, and a lease that ends brings it back', async () => {
    const ws = await workspace();
    const [e1, e2] = await endpoints(ws.id, 2);
    await fanOut(ws.id, [e1], 1);
    await fanOut(ws.id, [e2], 3);
    const before = await queues(ws.id);
    expect(before.map((q) => q.queue).sort()).toEqual([e1, e2].sort());
    for (const q of before) expect(q.due_in_ms).toBeLessThanOrEqual(0);

    const claimed = await claim(ws.id);
    expect(claimed).toHaveLength(4);
    expect(await queues(ws.id)).toEqual([]); // everything is under lease
    expect(await claim(ws.id)).toEqual([]);

    // The processor died without writing an outcome: once the leases end, a claim brings their
    // queues back (after its choice) and the next takes them again, each once.
    await sleep(LEASE_MS + 200);
    const again = [...(await claim(ws.id)), ...(await claim(ws.id))];
    expect(again.map((row) => row.id).sort()).toEqual(claimed.map((row) => row.id).sort());
    expect(await claim(ws.id)).toEqual([]);
    for (const row of again) await attempted(ws.id, row, null);
    expect(await status(ws.id)).toEqual({ delivered: 4 });
    expect(await queues(ws.id)).toEqual([]);
  }, 60_000);

  it('deliveries that arrived and whose outcome their processor is still writing are not claimed again when their lease ends', async () => {
    const ws = await workspace();
    const [e1] = await endpoints(ws.id, 1);
    await fanOut(ws.id, [e1], 3);
    const claimed = await claim(ws.id);
    expect(claimed).toHaveLength(3);
    // Two arrived; their write is slow (a busy server) and outlasts the lease. The third's
    // processor died: it is the only one taken again.
    const [slow1, slow2, lost] = claimed;
    await sleep(LEASE_MS + 200);
    const writing = [slow1.id, slow2.id];
    const again = [
      ...(await claims.claim(64, writing, 'all')).filter((row) => row.workspace_id === ws.id),
      ...(await claims.claim(64, writing, 'all')).filter((row) => row.workspace_id === ws.id),
    ];
    expect(again.map((row) => row.id)).toEqual([lost.id]);
    for (const row of [slow1, slow2, ...again]) await attempted(ws.id, row, null);
    expect(await status(ws.id)).toEqual({ delivered: 3 });
    expect(await claim(ws.id)).toEqual([]);
  }, 60_000);

  it('over more queues than a claim reads (one server: its `firsts` path), arrivals still being written are not claimed again when their lease ends', async () => {
    // 40 endpoints, one delivery each: a claim of 4 slots reads a window of 16 + 4 queues, which
    // the workspace fills, so on one server it opens only the queues it takes (`firsts`).
    const ws = await workspace();
    const to = await endpoints(ws.id, 40);
    // The first four endpoints' deliveries are the oldest: claimed first, and when their leases
    // end their queues are the first of the window (the others' 36 fill the rest).
    const oldest = await fanOut(ws.id, to.slice(0, 4), 1);
    await sleep(20);
    const all = [...oldest, ...(await fanOut(ws.id, to.slice(4), 1))];
    const first = await claim(ws.id, 4);
    expect(first.map((row) => row.id).sort()).toEqual([...oldest].sort());
    const [slow1, slow2, slow3, lost] = first;
    await sleep(LEASE_MS + 200);
    // The leases ended: their queues come back at the front of the window (their deliveries are
    // the oldest). Three arrived and are still being written; only the fourth is taken again.
    const writing = [slow1.id, slow2.id, slow3.id];
    const later: string[] = [];
    for (let round = 0; round < 40; round++) {
      const rows = (await claims.claim(4, writing, 'all')).filter((row) => row.workspace_id === ws.id);
      if (rows.length === 0) break;
      later.push(...rows.map((row) => row.id));
      // Delivered and written at once, as a processor would: what is under lease counts
      // against the workspace's cap (OUTBOX_WORKSPACE_CONCURRENCY).
      for (const row of rows) await attempted(ws.id, row, null);
    }
    expect(later.filter((id) => writing.includes(id))).toEqual([]);
    expect(later).toContain(lost.id);
    expect(new Set(later).size).toBe(later.length);
    expect([...later, ...writing].sort()).toEqual([...all].sort());
    for (const row of [slow1, slow2, slow3]) await attempted(ws.id, row, null);
    expect(await status(ws.id)).toEqual({ delivered: 40 });
  }, 60_000);

  it('a delivery retried later brings its queue to the retry’s time, and is claimed again then, once', async () => {
    const ws = await workspace();
    const [endpoint] = await endpoints(ws.id, 1);
    const [id] = await fanOut(ws.id, [endpoint], 1);
    const [first] = await claim(ws.id);
    expect(first.id).toBe(id);
    expect(await queues(ws.id)).toEqual([]); // under lease

    await attempted(ws.id, first, 800); // failed: retried in 0.8 s
    const [queue] = await queues(ws.id);
    expect(queue.due_in_ms).toBeGreaterThan(300);
    expect(queue.due_in_ms).toBeLessThanOrEqual(800);
    expect(await claim(ws.id)).toEqual([]); // not yet due

    await sleep(900);
    const again = await claim(ws.id);
    expect(again.map((row) => [row.id, row.attempt_count])).toEqual([[id, 1]]);
    expect(await claim(ws.id)).toEqual([]);
    await attempted(ws.id, again[0], null);
    expect(await status(ws.id)).toEqual({ delivered: 1 });
  }, 60_000);

  it('a failed delivery retried from the API, and an endpoint’s failures recovered, are due at once', async () => {
    const ws = await workspace();
    const [one, other] = await endpoints(ws.id, 2);
    const [a] = await fanOut(ws.id, [one], 1);
    const [b] = await fanOut(ws.id, [other], 1);
    const since = new Date(Date.now() - 1_000);
    for (const row of await claim(ws.id)) await attempted(ws.id, row, 60_000); // failed, retried in a minute
    // Spent: failed for good (as the recorder writes it when the schedule is over).
    await t.db.query(
      `UPDATE webhook_deliveries SET status = 'failed', reason = 'retries_exhausted', next_attempt_at = NULL WHERE workspace_id = $1`,
      [ws.id],
    );
    expect(await claim(ws.id)).toEqual([]);

    await t.app.get(OutboxDeliveries).retry(ws.id, a);
    expect((await claim(ws.id)).map((row) => row.id)).toEqual([a]);
    expect(await t.app.get(OutboxDeliveries).recover(ws.id, other, since)).toBe(1);
    expect((await claim(ws.id)).map((row) => row.id)).toEqual([b]);
  }, 60_000);

  it('an endpoint deleted with deliveries pending: its queue is dropped, the others are claimed whole', async () => {
    const ws = await workspace();
    const [gone, kept] = await endpoints(ws.id, 2);
    await fanOut(ws.id, [gone, kept], 3);
    await t.db.query(`DELETE FROM webhook_endpoints WHERE workspace_id = $1 AND id = $2`, [ws.id, gone]);
    const claimed = await claim(ws.id, 2);
    expect(claimed.map((row) => row.endpoint_id)).toEqual([kept, kept]);
    expect((await queues(ws.id)).map((q) => q.queue)).toEqual([kept]); // one left to claim
    const last = await claim(ws.id);
    expect(last.map((row) => row.endpoint_id)).toEqual([kept]);
    expect(await queues(ws.id)).toEqual([]);
  }, 60_000);

  it('over many queues, with failures retried and a processor that dies holding leases: every delivery is delivered once, none is claimed while under lease', async () => {
    const ws = await workspace();
    const all = await fanOut(ws.id, await endpoints(ws.id, 300), 3);
    const leasedUntil = new Map<string, number>(); // delivery → when the lease of its last claim ends
    const deliveredOnce = new Map<string, number>();
    let crashed = 0;
    const started = Date.now();
    let n = 0;
    while (deliveredOnce.size < all.length && Date.now() - started < 90_000) {
      // A lease starts when the claim's transaction does: after `asked`, before `answered` (a
      // claim on a loaded Citus took over a second between the two).
      const asked = Date.now();
      const claimed = await claim(ws.id, 48);
      const answered = Date.now();
      for (const row of claimed) {
        // Not claimed again while a lease given to it lasts (the margin: the clocks of this process and the database's).
        expect(leasedUntil.get(row.id) ?? 0).toBeLessThan(answered + 200);
        expect(deliveredOnce.has(row.id)).toBe(false);
        leasedUntil.set(row.id, asked + LEASE_MS);
      }
      for (const [i, row] of claimed.entries()) {
        const pick = (n + i) % 10;
        if (pick === 0 && crashed < 40) {
          crashed++; // the processor that held it died: it is claimed again once its lease ends
        } else if (pick < 3) {
          await attempted(ws.id, row, 100 + ((n * 37 + i) % 400)); // failed, retried soon
          leasedUntil.set(row.id, 0);
        } else {
          await attempted(ws.id, row, null);
          leasedUntil.set(row.id, 0);
          deliveredOnce.set(row.id, (deliveredOnce.get(row.id) ?? 0) + 1);
        }
      }
      n++;
      if (claimed.length === 0) await sleep(100);
    }
    expect(deliveredOnce.size).toBe(all.length);
    expect([...deliveredOnce.values()].every((times) => times === 1)).toBe(true);
    expect(crashed).toBe(40);
    expect(await status(ws.id)).toEqual({ delivered: all.length });
    expect(await claim(ws.id)).toEqual([]);
    expect(await queues(ws.id)).toEqual([]);
  }, 150_000);

  it('a sign-in email goes before the workspace’s mailing: queued behind 100 voter emails, it is in the next claim', async () => {
    await cancelPending(t.db, made);
    const ws = await workspace();
    const outbox = t.app.get(OutboxDeliveries);
    const email = (to: string, eventType: string) => ({ workspaceId: ws.id, recipient: to, eventId: randomUUID(), eventType, body: '{}' });
    await db.transaction(async (tx) => outbox.queueEmails(tx, Array.from({ length: 100 }, (_, i) => email(`voter${i}@example.com`, 'post.status_changed'))));
    await sleep(20); // the voters' emails are the older ones
    const signIn = await db.transaction(async (tx) => outbox.queueEmail(tx, email('waiting@example.com', SIGN_IN_EMAIL)));
    // A claim takes a workspace's mail up to its share (EMAIL_CONCURRENCY), fewer than 100. Slots
    // to spare: on Citus a claim's slots are shared round-robin among the workspaces with due
    // work, and other files' workspaces in this database may have some (64 gave this one 22).
    const first = await claim(ws.id, 256);
    expect(first.length).toBe(EMAIL_CONCURRENCY);
    expect(first.filter((row) => row.event_type === SIGN_IN_EMAIL).map((row) => row.id)).toEqual([signIn]);
    await cancelPending(t.db, [ws.id]);
  });
});
