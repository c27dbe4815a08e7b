import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BoardsService } from '../src/boards/boards.service';
import { SecretBox } from '../src/common/secret-box';
import { DeliveriesStore } from '../src/outbox/deliveries.store';
import { FanOut } from '../src/outbox/fan-out';
import { OutboxProcessor } from '../src/outbox/outbox.processor';
import { PostsService } from '../src/posts/posts.service';
import { unsubscribeToken } from '../src/notifications/unsubscribe-token';
import { secretContext } from '../src/webhooks/endpoints.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { addressOf, MailServer, parseMail } from './support/mail';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Voter email end to end: the real app over HTTP with its outbox processor in-process, sending
// through a real SMTP server (smtp-server) on 127.0.0.1, or writing .eml files without SMTP_URL.
// Each block starts its own app and closes it, so only one processor of this file runs at a
// time, and the file holds the processor lock against other files' processors.


// ---------------------------------------------------------------------------------------------

interface EmailDelivery {
  id: string;
  recipient: string;
  status: string;
  reason: string | null;
  attempt_count: number;
  post_id: number;
}

describe('voter email', () => {
  let releaseLock: () => Promise<void>;
  const workspaces: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
  }, 180_000);
  afterAll(async () => {
    await releaseLock?.();
  });

  async function workspace(t: TestApp): Promise<{ ws: TestWorkspace; api: Client; domain: string }> {
    const ws = await createWorkspace(t.app);
    workspaces.push(ws.id);
    return { ws, api: new Client(t.baseUrl, ws.key), domain: `${ws.slug}.example` };
  }

  /** A guest of the workspace with this email (or none). */
  async function person(t: TestApp, ws: TestWorkspace, name: string, email: string | null) {
    return t.app.get(WorkspacesService).addPerson(ws.id, { kind: 'guest', name, email });
  }

  const vote = (t: TestApp, ws: TestWorkspace, postId: number, personId: string) =>
    t.app.get(PostsService).vote(ws.actor, postId, personId);

  /** A post by a guest without an email address (who votes for it by writing it). */
  async function post(api: Client, title: string, board = 'ideas') {
    const answer = await api.post('/api/v1/posts', { board, title, author: { name: 'Nomail Author' } });
    expect(answer.status).toBe(201);
    return answer.body.data;
  }

  async function setStatus(api: Client, id: number, status: string) {
    const answer = await api.patch(`/api/v1/posts/${id}`, { status });
    expect(answer.status).toBe(200);
    return answer.body.data;
  }

  function dispatched(t: TestApp, workspaceId: string): Promise<boolean> {
    return until(`events of workspace ${workspaceId} to be fanned out`, async () => {
      const [row] = await t.db.query(
        `SELECT count(*)::int AS waiting FROM outbox_events WHERE workspace_id = $1 AND dispatched_at IS NULL`,
        [workspaceId],
      );
      return row.waiting === 0;
    });
  }

  async function emailDeliveries(t: TestApp, workspaceId: string): Promise<EmailDelivery[]> {
    return t.db.query(
      `SELECT d.id, d.recipient, d.status, d.reason, d.attempt_count, (e.data->'post'->>'id')::int AS post_id
         FROM webhook_deliveries d
         JOIN outbox_events e ON e.workspace_id = d.workspace_id AND e.id = d.event_id
        WHERE d.workspace_id = $1 AND d.recipient IS NOT NULL
        ORDER BY d.created_at, d.recipient`,
      [workspaceId],
    );
  }

  /** Every event of the workspace fanned out, and every email delivery of it settled. */
  async function settled(t: TestApp, workspaceId: string, timeoutMs = 15_000): Promise<EmailDelivery[]> {
    await dispatched(t, workspaceId);
    return until(
      `email deliveries of ${workspaceId} to settle`,
      async () => {
        const rows = await emailDeliveries(t, workspaceId);
        return rows.every((r) => r.status !== 'pending') && rows;
      },
      timeoutMs,
    );
  }

  describe('through SMTP', () => {
    let t: TestApp;
    let smtp: MailServer;

    beforeAll(async () => {
      smtp = await new MailServer().start();
      t = await startTestApp({
        RUN_WORKER: 'true',
        SMTP_URL: smtp.url,
        WEBHOOK_RETRY_SCHEDULE: '300ms,300ms,300ms,300ms,300ms',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', // for the endpoint of the last test, which never sends
      });
    });
    afterAll(async () => {
      if (t) {
        await cancelPending(t.db, workspaces);
        await t.close();
      }
      await smtp?.close();
    });

    it('emails the one voter with an address who did not make the change: subject, text and link', async () => {
      const { ws, api, domain } = await workspace(t);
      const voter = await person(t, ws, 'Vera Voter', `vera@${domain}`);
      const created = await post(api, 'Dark mode für alle – “please”');
      // Three voters: the author (no email), the key's member (who makes the change), Vera.
      await vote(t, ws, created.id, ws.member.id);
      await vote(t, ws, created.id, voter.id);
      const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM votes WHERE workspace_id = $1 AND post_id = $2`, [
        ws.id,
        created.id,
      ]);
      expect(count).toBe(3);

      const planned = await setStatus(api, created.id, 'planned');
      expect(planned.status).toBe('planned');

      await until('the email to Vera', () => smtp.to(domain).length >= 1);
      const rows = await settled(t, ws.id);
      expect(rows.map((r) => [r.recipient, r.status, r.attempt_count, r.post_id])).toEqual([
        [`vera@${domain}`, 'delivered', 1, created.id],
      ]);
      await sleep(300); // nothing else trickles in
      const mails = smtp.to(domain);
      expect(mails).toHaveLength(1);
      const [message] = mails;
      expect(message.envelopeTo).toEqual([`vera@${domain}`]);
      expect(addressOf(message.mail.to)).toBe(`vera@${domain}`);
      expect(message.mail.headers.get('from')).toMatch(/notifications@chorus\.invalid/);
      expect(message.mail.subject).toContain('Dark mode für alle – “please”');
      expect(message.mail.subject.toLowerCase()).toContain('planned');
      expect(message.mail.text).toContain('Dark mode für alle – “please”');
      expect(message.mail.text).toMatch(/Open\b[\s\S]*Planned/);
      expect(message.mail.text).toContain(planned.url);
      expect(planned.url).toMatch(/^https:\/\/boards\.chorus\.test\//);
      // Not the member who changed it, not the author without an address.
      expect(smtp.accepted.some((m) => m.envelopeTo.includes(ws.member.email.toLowerCase()))).toBe(false);
    });

    it('sends nothing for a PATCH to the same status, nor on a board with notify_voters off', async () => {
      const { ws, api, domain } = await workspace(t);
      await t.app.get(BoardsService).create(ws.slug, { slug: 'quiet', name: 'Quiet', notifyVoters: false });
      const same = await post(api, 'Stays open');
      const quiet = await post(api, 'On a quiet board', 'quiet');
      const sentinel = await post(api, 'Sentinel post');
      const sameVoter = await person(t, ws, 'Sam Same', `same@${domain}`);
      const quietVoter = await person(t, ws, 'Quinn Quiet', `quiet@${domain}`);
      const sentinelVoter = await person(t, ws, 'Sid Sentinel', `sentinel@${domain}`);
      await vote(t, ws, same.id, sameVoter.id);
      await vote(t, ws, quiet.id, quietVoter.id);
      await vote(t, ws, sentinel.id, sentinelVoter.id);

      expect((await setStatus(api, same.id, 'open')).status).toBe('open');
      expect((await setStatus(api, quiet.id, 'done')).status).toBe('done');
      // The quiet board's change is a real one: it is an event (for webhooks), just not an email.
      await dispatched(t, ws.id);
      const [{ events }] = await t.db.query(
        `SELECT count(*)::int AS events FROM outbox_events
          WHERE workspace_id = $1 AND type = 'post.status_changed' AND (data->'post'->>'id')::int = $2`,
        [ws.id, quiet.id],
      );
      expect(events).toBe(1);
      // A later real change on a notifying board: once its email is in, nothing else came.
      await setStatus(api, sentinel.id, 'in_progress');
      await until('the sentinel email', () => smtp.to(domain).length >= 1);
      const rows = await settled(t, ws.id);
      expect(rows.map((r) => [r.recipient, r.status, r.post_id])).toEqual([[`sentinel@${domain}`, 'delivered', sentinel.id]]);
      await sleep(300);
      expect(smtp.to(domain).map((m) => m.envelopeTo)).toEqual([[`sentinel@${domain}`]]);
      expect(smtp.to(domain)[0].mail.subject.toLowerCase()).toContain('in progress');
    });

    it('retries on the schedule when the SMTP server refuses, and delivers exactly once', async () => {
      const { ws, api, domain } = await workspace(t);
      const address = `retry@${domain}`;
      smtp.refuse(address, ['rcpt', 'data']); // 450 at RCPT TO, then 451 after DATA, then accepted
      const voter = await person(t, ws, 'Rita Retry', address);
      const created = await post(api, 'Needs a second try');
      await vote(t, ws, created.id, voter.id);
      await setStatus(api, created.id, 'done');

      await until('the email after the refusals', () => smtp.to(domain).length >= 1, 20_000);
      const rows = await settled(t, ws.id, 20_000);
      expect(rows.map((r) => [r.recipient, r.status, r.reason, r.attempt_count])).toEqual([[address, 'delivered', null, 3]]);
      const attempts: { at: Date; status_code: number | null; error: string | null; duration_ms: number }[] = await t.db.query(
        `SELECT at, status_code, error, duration_ms FROM delivery_attempts WHERE workspace_id = $1 AND delivery_id = $2 ORDER BY at`,
        [ws.id, rows[0].id],
      );
      expect(attempts.map((a) => a.status_code)).toEqual([450, 451, 250]);
      expect(attempts.every((a) => a.error === null && a.duration_ms >= 0)).toBe(true);
      // Retried on the schedule: 300 ms after the end of each failed attempt, not at once.
      for (let i = 1; i < attempts.length; i++) {
        expect(attempts[i].at.getTime() - attempts[i - 1].at.getTime()).toBeGreaterThanOrEqual(290);
      }
      expect(smtp.attempts.get(address)).toBe(3);
      await sleep(300);
      const mails = smtp.to(domain);
      expect(mails).toHaveLength(1);
      expect(addressOf(mails[0].mail.to)).toBe(address);
      expect(mails[0].mail.subject).toContain('Needs a second try');

      // The API shows nothing of it under an endpoint (there is none); the rows are the record.
      const listed = await api.get('/api/v1/webhook_endpoints');
      expect(listed.body.data).toEqual([]);
    });

    it('writes an arrival again when its first write fails (a statement timeout), and does not email the voter twice', async () => {
      const { ws, api, domain } = await workspace(t);
      const address = `written-late@${domain}`;
      const voter = await person(t, ws, 'Wendy Written', address);
      const created = await post(api, 'Its arrival is written on the second try');
      await vote(t, ws, created.id, voter.id);
      const store = t.app.get(DeliveriesStore);
      const write = jest.spyOn(store, 'recordSuccesses').mockRejectedValueOnce(new Error('canceling statement due to statement timeout'));
      try {
        await setStatus(api, created.id, 'done');
        const rows = await settled(t, ws.id, 20_000);
        expect(rows.map((r) => [r.recipient, r.status, r.attempt_count])).toEqual([[address, 'delivered', 1]]);
        expect(write.mock.calls.length).toBeGreaterThanOrEqual(2);
        // Released instead, it would be sent again 300 ms later (the schedule): wait past that.
        await sleep(1_000);
        expect(smtp.to(domain)).toHaveLength(1);
        expect(smtp.attempts.get(address)).toBe(1);
      } finally {
        write.mockRestore();
      }
    });

    it('keeps writing an arrival whose write fails again and again (a server that stays busy), and does not email the voter twice', async () => {
      const { ws, api, domain } = await workspace(t);
      const address = `written-much-later@${domain}`;
      const voter = await person(t, ws, 'Walter Written', address);
      const created = await post(api, 'Its arrival is written on the fifth try');
      await vote(t, ws, created.id, voter.id);
      const store = t.app.get(DeliveriesStore);
      const timeout = new Error('canceling statement due to statement timeout');
      const write = jest
        .spyOn(store, 'recordSuccesses')
        .mockRejectedValueOnce(timeout)
        .mockRejectedValueOnce(timeout)
        .mockRejectedValueOnce(timeout)
        .mockRejectedValueOnce(timeout);
      try {
        await setStatus(api, created.id, 'done');
        const rows = await settled(t, ws.id, 20_000);
        expect(rows.map((r) => [r.recipient, r.status, r.attempt_count])).toEqual([[address, 'delivered', 1]]);
        expect(write.mock.calls.length).toBeGreaterThanOrEqual(5);
        await sleep(1_000); // released instead, it would be sent again 300 ms later
        expect(smtp.to(domain)).toHaveLength(1);
        expect(smtp.attempts.get(address)).toBe(1);
      } finally {
        write.mockRestore();
      }
    });

    it('retries an email whose pooled connection the server dropped mid-message, and delivers it once', async () => {
      const { ws, api, domain } = await workspace(t);
      const address = `dropped@${domain}`;
      smtp.refuse(address, ['drop']); // the whole message sent, then the connection closed with no answer
      const voter = await person(t, ws, 'Dora Dropped', address);
      const created = await post(api, 'Dropped on the way');
      await vote(t, ws, created.id, voter.id);
      await setStatus(api, created.id, 'done');

      await until('the email after the drop', () => smtp.to(domain).length >= 1, 20_000);
      const rows = await settled(t, ws.id, 20_000);
      expect(rows.map((r) => [r.recipient, r.status, r.reason, r.attempt_count])).toEqual([[address, 'delivered', null, 2]]);
      const attempts: { status_code: number | null; error: string | null }[] = await t.db.query(
        `SELECT status_code, error FROM delivery_attempts WHERE workspace_id = $1 AND delivery_id = $2 ORDER BY at`,
        [ws.id, rows[0].id],
      );
      expect(attempts).toEqual([
        { status_code: null, error: 'smtp_error' },
        { status_code: 250, error: null },
      ]);
      await sleep(300);
      expect(smtp.to(domain)).toHaveLength(1);
      expect(smtp.attempts.get(address)).toBe(2);
    });

    it('gives up after the schedule when the SMTP server keeps refusing: failed, retries_exhausted', async () => {
      const { ws, api, domain } = await workspace(t);
      const address = `never@${domain}`;
      smtp.refuse(address, Array(6).fill('data'));
      const voter = await person(t, ws, 'Nev Never', address);
      const created = await post(api, 'Never arrives');
      await vote(t, ws, created.id, voter.id);
      await setStatus(api, created.id, 'planned');

      const rows = await until(
        'the email delivery to fail',
        async () => {
          const found = await settled(t, ws.id, 20_000);
          return found.length > 0 && found;
        },
        20_000,
      );
      expect(rows.map((r) => [r.recipient, r.status, r.reason, r.attempt_count])).toEqual([[address, 'failed', 'retries_exhausted', 6]]);
      const attempts: { status_code: number | null }[] = await t.db.query(
        `SELECT status_code FROM delivery_attempts WHERE workspace_id = $1 AND delivery_id = $2 ORDER BY at`,
        [ws.id, rows[0].id],
      );
      expect(attempts.map((a) => a.status_code)).toEqual(Array(6).fill(451));
      expect(smtp.to(domain)).toEqual([]);
    });

    it('treats a merge as a status change for the merged post’s voters, unless it was already closed', async () => {
      const { ws, api, domain } = await workspace(t);
      const source = await post(api, 'Merged away');
      const closedSource = await post(api, 'Closed before the merge');
      const target = await post(api, 'The one that stays');
      const sourceVoter = await person(t, ws, 'Mia Merged', `merged@${domain}`);
      const closedVoter = await person(t, ws, 'Cleo Closed', `closed@${domain}`);
      const targetVoter = await person(t, ws, 'Tom Target', `target@${domain}`);
      await vote(t, ws, source.id, sourceVoter.id);
      await vote(t, ws, closedSource.id, closedVoter.id);
      await vote(t, ws, target.id, targetVoter.id);

      // Closing first: one email for that (a real change), then the merge must not send another.
      await setStatus(api, closedSource.id, 'closed');
      await until('the close email', () => smtp.to(domain).length >= 1);
      await settled(t, ws.id);

      const merged = await api.post(`/api/v1/posts/${source.id}/merge`, { into: target.id });
      expect(merged.status).toBe(200);
      expect(merged.body.data).toMatchObject({ status: 'closed', merged_into: { id: target.id } });
      const mergedClosed = await api.post(`/api/v1/posts/${closedSource.id}/merge`, { into: target.id });
      expect(mergedClosed.status).toBe(200);

      await until('the merge email', () => smtp.to(domain).length >= 2);
      const rows = await settled(t, ws.id);
      expect(rows.map((r) => [r.recipient, r.post_id, r.status])).toEqual([
        [`closed@${domain}`, closedSource.id, 'delivered'],
        [`merged@${domain}`, source.id, 'delivered'],
      ]);
      await sleep(300);
      const mails = smtp.to(domain);
      expect(mails.map((m) => m.envelopeTo[0])).toEqual([`closed@${domain}`, `merged@${domain}`]);
      const mail = mails[1].mail;
      expect(addressOf(mail.to)).toBe(`merged@${domain}`);
      expect(mail.subject).toContain('Merged away');
      expect(mail.subject.toLowerCase()).toContain('closed');
      expect(mail.text).toMatch(/Open\b[\s\S]*Closed/);
      expect(mail.text).toContain('The one that stays');
      expect(mail.text).toContain(merged.body.data.url);
      // The target's own voter is told nothing: the target's status did not change.
      expect(smtp.accepted.some((m) => m.envelopeTo.includes(`target@${domain}`))).toBe(false);
    });

    it('is not held up by an endpoint whose sealed secret does not open (claimed in the same batch)', async () => {
      const { ws, api, domain } = await workspace(t);
      const endpoint = await api.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/never', events: ['post.status_changed'] });
      expect(endpoint.status).toBe(201);
      // A sealed value that does not open with this key (say, a row restored under another key).
      const other = new SecretBox('a1'.repeat(32));
      await t.db.query(`UPDATE webhook_endpoints SET secret_sealed = $3 WHERE workspace_id = $1 AND id = $2`, [
        ws.id,
        endpoint.body.data.id,
        other.seal('whsec_other', secretContext(endpoint.body.data.id)),
      ]);
      const voter = await person(t, ws, 'Bea Batch', `batch@${domain}`);
      const created = await post(api, 'Same batch as a broken endpoint');
      await vote(t, ws, created.id, voter.id);
      // One fan-out makes both deliveries, due at the same moment: one claim takes both.
      await setStatus(api, created.id, 'planned');

      await until('the email', () => smtp.to(domain).length >= 1);
      expect(smtp.to(domain).map((m) => m.envelopeTo)).toEqual([[`batch@${domain}`]]);
      // The endpoint's delivery is not sent; it fails like any attempt and is retried on the schedule.
      const attempt = await until('an attempt of the broken endpoint', async () => {
        const rows: { status_code: number | null; error: string | null; attempt_count: number; status: string }[] = await t.db.query(
          `SELECT a.status_code, a.error, d.attempt_count, d.status FROM webhook_deliveries d
             JOIN delivery_attempts a ON a.workspace_id = d.workspace_id AND a.delivery_id = d.id
            WHERE d.workspace_id = $1 AND d.endpoint_id = $2 ORDER BY a.at LIMIT 1`,
          [ws.id, endpoint.body.data.id],
        );
        return rows[0];
      });
      expect(attempt).toMatchObject({ status_code: null, error: 'secret_unreadable' });
      await api.patch(`/api/v1/webhook_endpoints/${endpoint.body.data.id}`, { enabled: false });
      // The month counts the email only: the claim reserved an attempt for the endpoint's
      // delivery too, and gave it back when the secret did not open (no request was made).
      await until('only the email counted', async () => {
        const [usage] = await t.db.query(`SELECT attempts FROM delivery_usage WHERE workspace_id = $1`, [ws.id]);
        return usage?.attempts === 1;
      });
    });
  });

  describe('with the SMTP server unreachable', () => {
    let t: TestApp;

    beforeAll(async () => {
      const closed = new MailServer();
      await closed.start();
      const port = closed.port;
      await closed.close(); // nothing listens there any more
      t = await startTestApp({ RUN_WORKER: 'true', SMTP_URL: `smtp://127.0.0.1:${port}`, WEBHOOK_RETRY_SCHEDULE: '300ms' });
    });
    afterAll(async () => {
      if (t) {
        await cancelPending(t.db, workspaces);
        await t.close();
      }
    });

    it('records each failed connection as an attempt without a status code, and retries it', async () => {
      const { ws, api, domain } = await workspace(t);
      const voter = await person(t, ws, 'Una Unreached', `unreached@${domain}`);
      const created = await post(api, 'Nobody home');
      await vote(t, ws, created.id, voter.id);
      await setStatus(api, created.id, 'done');
      const rows = await until('the email delivery to fail', async () => {
        const found = await settled(t, ws.id);
        return found.length > 0 && found;
      });
      expect(rows.map((r) => [r.status, r.reason, r.attempt_count])).toEqual([['failed', 'retries_exhausted', 2]]);
      const attempts: { status_code: number | null; error: string | null }[] = await t.db.query(
        `SELECT status_code, error FROM delivery_attempts WHERE workspace_id = $1 AND delivery_id = $2 ORDER BY at`,
        [ws.id, rows[0].id],
      );
      expect(attempts).toEqual([
        { status_code: null, error: 'smtp_error' },
        { status_code: null, error: 'smtp_error' },
      ]);
    });
  });

  describe('limits and unsubscribing', () => {
    let t: TestApp;
    let smtp: MailServer;

    beforeAll(async () => {
      smtp = await new MailServer().start();
      t = await startTestApp({ RUN_WORKER: 'true', SMTP_URL: smtp.url, EMAIL_HOURLY_LIMIT: '2' });
    });
    afterAll(async () => {
      if (t) {
        await cancelPending(t.db, workspaces);
        await t.close();
      }
      await smtp?.close();
    });

    /** A post with these voters (by address), moved to `planned`. */
    async function changeWithVoters(ws: TestWorkspace, api: Client, title: string, addresses: string[]) {
      const created = await post(api, title);
      for (const [i, address] of addresses.entries()) {
        const voter = await person(t, ws, `Voter ${i}`, address);
        await vote(t, ws, created.id, voter.id);
      }
      await setStatus(api, created.id, 'planned');
      return created;
    }

    const usage = async (workspaceId: string) =>
      (
        await t.db.query(
          `SELECT attempts FROM delivery_usage WHERE workspace_id = $1 AND month = date_trunc('month', now() AT TIME ZONE 'UTC')::date`,
          [workspaceId],
        )
      )[0]?.attempts;

    it('counts every email towards the monthly deliveries quota: past it, an email fails with quota_exceeded', async () => {
      const { ws, api, domain } = await workspace(t);
      await t.db.query(
        `INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 19999)`,
        [ws.id],
      );
      await changeWithVoters(ws, api, 'One email left this month', [`first@${domain}`, `second@${domain}`]);
      const rows = await settled(t, ws.id);
      expect(rows.map((r) => [r.status, r.reason]).sort()).toEqual([
        ['delivered', null],
        ['failed', 'quota_exceeded'],
      ]);
      expect(smtp.to(domain)).toHaveLength(1);
      expect(await usage(ws.id)).toBe(20_000);
    });

    it('defers emails past EMAIL_HOURLY_LIMIT to the next hour, untried, and sends them then', async () => {
      const { ws, api, domain } = await workspace(t);
      await changeWithVoters(ws, api, 'Three voters, two an hour', [`a@${domain}`, `b@${domain}`, `c@${domain}`]);
      await dispatched(t, ws.id);
      const held = await until('two sent and one held back', async () => {
        const rows = await emailDeliveries(t, ws.id);
        const delivered = rows.filter((r) => r.status === 'delivered');
        const waiting = rows.filter((r) => r.status === 'pending' && r.attempt_count === 0);
        return delivered.length === 2 && waiting.length === 1 && waiting[0];
      });
      const [deferred] = await t.db.query(
        `SELECT next_attempt_at, locked_by, (SELECT count(*)::int FROM delivery_attempts a WHERE a.workspace_id = d.workspace_id AND a.delivery_id = d.id) AS attempts
           FROM webhook_deliveries d WHERE workspace_id = $1 AND id = $2`,
        [ws.id, held.id],
      );
      const nextHour = new Date();
      nextHour.setUTCMinutes(60, 0, 0);
      expect(deferred).toMatchObject({ next_attempt_at: nextHour, locked_by: null, attempts: 0 });
      expect(smtp.to(domain)).toHaveLength(2);
      expect(await usage(ws.id)).toBe(2); // a deferred email is not an attempt

      // An hour later (moved back rather than waited for): it goes out, once.
      // (The hour computed here: Citus takes no stable function of a column, timestamptz - interval, in an UPDATE.)
      const [{ hour }]: { hour: Date }[] = await t.db.query(`SELECT hour FROM email_usage WHERE workspace_id = $1`, [ws.id]);
      await t.db.query(`UPDATE email_usage SET hour = $2 WHERE workspace_id = $1`, [ws.id, new Date(hour.getTime() - 3_600_000)]);
      await t.db.query(`UPDATE webhook_deliveries SET next_attempt_at = now() WHERE workspace_id = $1 AND id = $2`, [ws.id, held.id]);
      // Its queue too (the workspace's mail in the claim's ready-queue waits for the next hour with it).
      await t.db.query(`UPDATE outbox_queues SET due_at = now() WHERE workspace_id = $1`, [ws.id]);
      const rows = await settled(t, ws.id);
      expect(rows.map((r) => [r.status, r.attempt_count])).toEqual(Array(3).fill(['delivered', 1]));
      expect(smtp.to(domain).map((m) => m.envelopeTo[0]).sort()).toEqual([`a@${domain}`, `b@${domain}`, `c@${domain}`]);
      expect(await usage(ws.id)).toBe(3);

      // The delivery log lists emails like any other delivery, with their attempts, never the address.
      const log = await api.get('/api/v1/deliveries?channel=email');
      expect(log.status).toBe(200);
      expect(log.body.data).toHaveLength(3);
      for (const d of log.body.data) {
        expect(d).toMatchObject({ channel: 'email', endpoint_id: null, event_type: 'post.status_changed', status: 'delivered' });
        expect(d.attempts).toEqual([expect.objectContaining({ status_code: 250, error: null })]);
      }
      expect(JSON.stringify(log.body)).not.toContain(domain);
      expect((await api.get('/api/v1/deliveries?channel=webhook')).body.data).toEqual([]);
      expect((await api.get('/api/v1/deliveries?channel=fax')).status).toBe(400);
    });

    it('sends no email for a free workspace', async () => {
      const { ws, api, domain } = await workspace(t);
      const created = await post(api, 'Made while on pro');
      const voter = await person(t, ws, 'Fay Free', `fay@${domain}`);
      await vote(t, ws, created.id, voter.id);
      await t.app.get(WorkspacesService).setPlan(ws.slug, 'free');
      await t.app.get(PostsService).setStatus(ws.actor, created.id, 'done');
      await dispatched(t, ws.id);
      await sleep(300);
      expect(await emailDeliveries(t, ws.id)).toEqual([]);
      expect(smtp.to(domain)).toEqual([]);
    });

    it('carries a one-click unsubscribe (RFC 8058); after the POST no further email goes to that address', async () => {
      const { ws, api, domain } = await workspace(t);
      const leaving = `Leaving@${domain}`;
      const stored = leaving.toLowerCase(); // its normal form: what the person is found by and mailed at
      // (Two emails in all: this block's hourly limit.)
      await changeWithVoters(ws, api, 'First news', [leaving]);
      await settled(t, ws.id);
      const mail = smtp.to(domain).find((m) => m.envelopeTo[0] === leaving.toLowerCase())!.mail;
      expect(mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
      const link = /^<(https:\/\/chorus\.test\/email\/unsubscribe\/[^>]+)>$/.exec(mail.headers.get('list-unsubscribe') ?? '')?.[1];
      expect(link).toBeDefined();
      expect(mail.text.replace(/\s+/g, '')).toContain(link);
      const local = `${t.baseUrl}${new URL(link!).pathname}`;

      // Opening the link only asks; a link that was altered is not ours.
      const page = await fetch(local);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<form method="post">');
      const forged = await fetch(`${local.slice(0, -3)}AAA`, { method: 'POST' });
      expect(forged.status).toBe(404);
      const [before] = await t.db.query(`SELECT email_unsubscribed_at FROM people WHERE workspace_id = $1 AND email = $2`, [ws.id, stored]);
      expect(before.email_unsubscribed_at).toBeNull();

      // The mail client's one-click POST.
      const done = await fetch(local, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(done.status).toBe(200);
      const [after] = await t.db.query(`SELECT email_unsubscribed_at FROM people WHERE workspace_id = $1 AND email = $2`, [ws.id, stored]);
      expect(after.email_unsubscribed_at).toBeInstanceOf(Date);

      // Later changes: a new voter hears of them, the one who left does not (on any post).
      await changeWithVoters(ws, api, 'Second news', [`staying2@${domain}`]);
      const second = await post(api, 'Third news');
      const [existing] = await t.db.query(`SELECT id FROM people WHERE workspace_id = $1 AND email = $2`, [ws.id, stored]);
      await vote(t, ws, second.id, existing.id);
      await setStatus(api, second.id, 'done');
      await until('the email to the new voter', () => smtp.to(domain).some((m) => m.envelopeTo[0] === `staying2@${domain}`));
      await settled(t, ws.id);
      await sleep(300);
      expect(smtp.to(domain).filter((m) => m.envelopeTo[0] === leaving.toLowerCase())).toHaveLength(1);
    });
  });

  describe('in batches', () => {
    // The processors here are stopped (stopClaiming) and driven by hand, with small batches,
    // so that each batch and the crash between two are seen; nothing is sent.
    const dirs: string[] = [];
    afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
    const stopped = async (batchSize: number) => {
      dirs.push(mkdtempSync(join(tmpdir(), 'chorus-mail-')));
      const app = await startTestApp({ RUN_WORKER: 'true', DATA_DIR: dirs[dirs.length - 1] });
      app.app.get(OutboxProcessor).stopClaiming();
      await sleep(300); // what its start began ends
      app.app.get(FanOut).batchSize = batchSize;
      return app;
    };
    const mailings = async (t: TestApp, workspaceId: string): Promise<{ mail_after: string }[]> =>
      t.db.query(`SELECT mail_after FROM voter_mailings WHERE workspace_id = $1`, [workspaceId]);

    it('emails every voter exactly once over several batches, across a crash between batches, the PATCH not waiting', async () => {
      const one = await stopped(4);
      let others: TestApp[] = [];
      try {
        const { ws, api, domain } = await workspace(one);
        const created = await post(api, 'Wanted by a crowd');
        const expected: string[] = [];
        for (let i = 0; i < 23; i++) {
          const voter = await person(one, ws, `Voter ${i}`, `v${String(i).padStart(2, '0')}@${domain}`);
          await vote(one, ws, created.id, voter.id);
          expected.push(voter.email!);
        }
        const unsubscribed = await person(one, ws, 'Una Unsub', `una@${domain}`);
        await vote(one, ws, created.id, unsubscribed.id);
        await one.db.query(`UPDATE people SET email_unsubscribed_at = now() WHERE workspace_id = $1 AND id = $2`, [ws.id, unsubscribed.id]);
        await vote(one, ws, created.id, (await person(one, ws, 'No Mail', null)).id);
        await vote(one, ws, created.id, ws.member.id); // who makes the change

        // The PATCH answers with no email made yet (no processor is running).
        await setStatus(api, created.id, 'planned');
        expect(await emailDeliveries(one, ws.id)).toEqual([]);

        // Fan-out: the first batch with the event, and the job for the rest.
        const fan = one.app.get(FanOut);
        await fan.run();
        expect((await emailDeliveries(one, ws.id)).map((r) => r.recipient)).toEqual(expected.slice(0, 4));
        expect(await mailings(one, ws.id)).toEqual([{ mail_after: expected[3] }]);
        // One more batch, then the processor is gone.
        expect((await fan.runMailings(1)).more).toBe(true);
        expect((await emailDeliveries(one, ws.id)).map((r) => r.recipient).sort()).toEqual(expected.slice(0, 8));
        expect(await mailings(one, ws.id)).toEqual([{ mail_after: expected[7] }]);
        await one.close();

        // Two other processors take over, batch by batch, at the same time.
        others = [await stopped(5), await stopped(5)];
        for (let pass = 0; pass < 20 && (await mailings(others[0], ws.id)).length > 0; pass++) {
          await Promise.all(others.map((t) => t.app.get(FanOut).runMailings(1)));
        }
        expect(await mailings(others[0], ws.id)).toEqual([]);
        const rows = await emailDeliveries(others[0], ws.id);
        expect(rows.map((r) => r.recipient).sort()).toEqual(expected);
        expect(new Set(rows.map((r) => r.id)).size).toBe(expected.length);
        expect(rows.every((r) => r.post_id === created.id && r.status === 'pending')).toBe(true);
        await cancelPending(others[0].db, workspaces);
      } finally {
        await one.close().catch(() => {});
        for (const t of others) await t.close();
      }
    }, 90_000);
  });

  describe('rendered when sent', () => {
    // The email's row keeps no body: the message is rendered when the email is sent, from the
    // event's data as recorded. A processor makes the row and stops; the post is renamed; then
    // another processor sends it.
    let smtp: MailServer;
    const apps: TestApp[] = [];
    beforeAll(async () => {
      smtp = await new MailServer().start();
    });
    afterAll(async () => {
      for (const t of apps) {
        await cancelPending(t.db, workspaces).catch(() => {});
        await t.close().catch(() => {});
      }
      await smtp?.close();
    });

    it('says what the status change said, though the post was renamed and moved on between fan-out and send', async () => {
      const one = await startTestApp({ RUN_WORKER: 'true', SMTP_URL: smtp.url });
      apps.push(one);
      one.app.get(OutboxProcessor).stopClaiming();
      await sleep(300); // what its start began ends
      const { ws, api, domain } = await workspace(one);
      const voter = await person(one, ws, 'Rene Renamed', `rene@${domain}`);
      const created = await post(api, 'Offline mode – as it was');
      await vote(one, ws, created.id, voter.id);
      const planned = await setStatus(api, created.id, 'planned');

      await one.app.get(FanOut).run();
      const made: { body: string; status: string }[] = await one.db.query(
        `SELECT body, status FROM webhook_deliveries WHERE workspace_id = $1 AND recipient IS NOT NULL`,
        [ws.id],
      );
      expect(made).toEqual([{ body: '', status: 'pending' }]);
      // No route renames a post: the row is changed by hand, as a later edit would change it.
      const renamed = await one.db.query(
        `UPDATE posts SET title = 'Renamed after the change', status = 'done' WHERE workspace_id = $1 AND id = $2 RETURNING id`,
        [ws.id, created.id],
      );
      expect(renamed).toHaveLength(1);
      expect(smtp.to(domain)).toEqual([]);
      await one.close();

      const two = await startTestApp({ RUN_WORKER: 'true', SMTP_URL: smtp.url });
      apps.push(two);
      await until('the email to Rene', () => smtp.to(domain).length >= 1);
      const rows = await settled(two, ws.id);
      expect(rows.map((r) => [r.recipient, r.status, r.attempt_count])).toEqual([[`rene@${domain}`, 'delivered', 1]]);
      const [mail] = smtp.to(domain);
      expect(mail.mail.subject).toBe('“Offline mode – as it was” is now planned');
      expect(mail.mail.text).toContain('Offline mode – as it was');
      expect(mail.mail.text).not.toContain('Renamed after');
      expect(mail.mail.text).not.toContain('→ Done');
      expect(mail.mail.text).toMatch(/Open → Planned/);
      expect(mail.mail.text).toContain(planned.url);
      const link = /^<(https:\/\/chorus\.test\/email\/unsubscribe\/[^>]+)>$/.exec(mail.mail.headers.get('list-unsubscribe') ?? '')?.[1];
      // The link of today's emails: the address's token under BASE_URL, in the header and the text.
      const token = unsubscribeToken(two.app.get(SecretBox), { workspaceId: ws.id, email: `rene@${domain}` });
      expect(link).toBe(`https://chorus.test/email/unsubscribe/${token}`);
      expect(mail.mail.text.replace(/\s+/g, '')).toContain(`Togetnomoreoftheseemails:${link}`);
      expect(mail.mail.headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    }, 60_000);
  });

  describe('without SMTP_URL', () => {
    let t: TestApp;
    let dataDir: string;

    beforeAll(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'chorus-mail-'));
      t = await startTestApp({ RUN_WORKER: 'true', DATA_DIR: dataDir, WEBHOOK_RETRY_SCHEDULE: '300ms,300ms' });
    });
    afterAll(async () => {
      if (t) {
        await cancelPending(t.db, workspaces);
        await t.close();
      }
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('writes the email as an .eml file under DATA_DIR/mail', async () => {
      const { ws, api, domain } = await workspace(t);
      const voter = await person(t, ws, 'Eli Eml', `eml@${domain}`);
      const created = await post(api, 'Written to a file – “ok”');
      await vote(t, ws, created.id, voter.id);
      await vote(t, ws, created.id, ws.member.id);
      const planned = await setStatus(api, created.id, 'planned');

      const rows = await until('the .eml delivery', async () => {
        const found = await settled(t, ws.id);
        return found.length > 0 && found;
      });
      expect(rows.map((r) => [r.recipient, r.status, r.attempt_count])).toEqual([[`eml@${domain}`, 'delivered', 1]]);
      const folder = join(dataDir, 'mail');
      const files = readdirSync(folder).filter((name) =>
        addressOf(parseMail(readFileSync(join(folder, name), 'utf8')).to).endsWith(`@${domain}`),
      );
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/\.eml$/);
      const mail = parseMail(readFileSync(join(folder, files[0]), 'utf8'));
      expect(addressOf(mail.to)).toBe(`eml@${domain}`);
      expect(mail.subject).toContain('Written to a file – “ok”');
      expect(mail.subject.toLowerCase()).toContain('planned');
      expect(mail.text).toContain('Written to a file – “ok”');
      expect(mail.text).toMatch(/Open\b[\s\S]*Planned/);
      expect(mail.text).toContain(planned.url);
    });
  });
});
