import { ClaimsStore } from '../src/outbox/claims.store';
import { OutboxProcessor } from '../src/outbox/outbox.processor';
import { createWorkspace } from './support/factories';
import { holdProcessorLock } from './support/processor-lock';
import { startTestApp, TestApp } from './support/test-app';
import { sleep } from './support/wait';

// Claims over many queues (issue 35): 2,000 endpoints with due work, in three workspaces of very
// different sizes, claimed by hand (the processor stopped, nothing sent) until nothing is left.
// Every delivery is claimed exactly once, no workspace waits behind the big one, and within a
// workspace the oldest delivery of every queue goes before any queue's second.

const BIG = 1_990; // endpoints of workspace A
const SMALL = 9; // of workspace B; C has one

describe('claims over 2,000 queues', () => {
  let releaseLock: () => Promise<void>;
  let t: TestApp;

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    t = await startTestApp({ RUN_WORKER: 'true' });
    t.app.get(OutboxProcessor).stopClaiming();
    await sleep(300); // what its start began ends
  }, 180_000);
  afterAll(async () => {
    await t?.close();
    await releaseLock?.();
  });

  /** `count` endpoints of the workspace, each with two due deliveries: its first `firstAgoMs` ago (plus its place), its second a minute later. */
  async function queues(workspaceId: string, count: number, firstAgoMs: number): Promise<void> {
    await t.db.query(
      `INSERT INTO webhook_endpoints (workspace_id, id, kind, url_sealed, url_shown, events)
       SELECT $1, gen_random_uuid(), 'webhook', 'sealed', 'https://example.test/' || i, ARRAY['post.created']
         FROM generate_series(1, $2::integer) i`,
      [workspaceId, count],
    );
    await t.db.query(
      `INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, event_created_at, body, next_attempt_at)
       SELECT e.workspace_id, gen_random_uuid(), e.id, gen_random_uuid(), 'post.created', now(), '{"n":' || n || '}',
              now() - make_interval(secs => ($2::integer - 60000 * (n - 1) - e.k) / 1000.0)
         FROM (SELECT workspace_id, id, row_number() OVER (ORDER BY id) AS k FROM webhook_endpoints WHERE workspace_id = $1) e,
              generate_series(1, 2) n`,
      [workspaceId, firstAgoMs],
    );
    // Their queues in the claim's ready-queue, as the outbox's writers keep it (each at its first delivery).
    await t.db.query(
      `INSERT INTO outbox_queues (workspace_id, queue, endpoint_id, due_at)
       SELECT workspace_id, endpoint_id, endpoint_id, min(next_attempt_at) FROM webhook_deliveries WHERE workspace_id = $1 GROUP BY 1, 2, 3`,
      [workspaceId],
    );
  }

  it('claims every delivery exactly once, each workspace in the first claim, every queue’s oldest before any queue’s second', async () => {
    const a = await createWorkspace(t.app, { plan: 'business', boards: false });
    const b = await createWorkspace(t.app, { plan: 'business', boards: false });
    const c = await createWorkspace(t.app, { plan: 'business', boards: false });
    // A's deliveries are the oldest: an oldest-first claim over every queue would take A's alone for a long time.
    await queues(a.id, BIG, 10 * 60_000);
    await queues(b.id, SMALL, 2 * 60_000);
    await queues(c.id, 1, 90_000);
    const all: { id: string; workspace_id: string; body: string }[] = await t.db.query(
      `SELECT id, workspace_id, body FROM webhook_deliveries WHERE workspace_id = ANY ($1::uuid[])`,
      [[a.id, b.id, c.id]],
    );
    expect(all).toHaveLength(2 * (BIG + SMALL + 1));

    const claims = t.app.get(ClaimsStore);
    const ours = new Set([a.id, b.id, c.id]);
    const claimedIn = new Map<string, number[]>(); // delivery id → the claims that took it
    const byClaim: string[][] = [];
    for (let n = 0; n < 1_000; n++) {
      const claimed = await claims.claim(64, [], 'all');
      if (claimed.length === 0) break;
      // Other test files, running beside this one without a processor, may have deliveries due:
      // those are left leased and untouched (no processor runs while this file holds the lock).
      const rows = claimed.filter((row) => ours.has(row.workspace_id));
      byClaim.push(rows.map((row) => row.workspace_id));
      for (const row of rows) claimedIn.set(row.id, [...(claimedIn.get(row.id) ?? []), n]);
      // Sent and arrived at once: nothing stays in flight.
      await t.db.query(
        `UPDATE webhook_deliveries SET status = 'delivered', attempt_count = 1, delivered_at = now(), locked_by = NULL, locked_until = NULL
          WHERE id = ANY ($1::uuid[])`,
        [rows.map((row) => row.id)],
      );
    }

    // Complete, each once.
    expect(claimedIn.size).toBe(all.length);
    expect([...claimedIn.values()].every((taken) => taken.length === 1)).toBe(true);
    const [{ pending }] = await t.db.query(`SELECT count(*)::int AS pending FROM webhook_deliveries WHERE status = 'pending' AND workspace_id = ANY ($1::uuid[])`, [
      [a.id, b.id, c.id],
    ]);
    expect(pending).toBe(0);

    // No workspace starved: the first claim has some of each, and B's and C's are all claimed
    // within B's 18 deliveries' worth of claims, though A's are older and far more.
    expect(new Set(byClaim[0])).toEqual(new Set([a.id, b.id, c.id]));
    const lastOf = (workspaceId: string) => Math.max(...all.filter((d) => d.workspace_id === workspaceId).map((d) => claimedIn.get(d.id)![0]));
    expect(lastOf(c.id)).toBeLessThanOrEqual(1);
    expect(lastOf(b.id)).toBeLessThan(2 * SMALL);

    // Within A, every endpoint's first delivery before any endpoint's second.
    const claimOf = (n: number) =>
      all.filter((d) => d.workspace_id === a.id && d.body === `{"n":${n}}`).map((d) => claimedIn.get(d.id)![0]);
    expect(Math.max(...claimOf(1))).toBeLessThanOrEqual(Math.min(...claimOf(2)));
  }, 300_000);
});
