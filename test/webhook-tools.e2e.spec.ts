import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Received, Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Standard Webhooks headers, endpoint tests and recovery, end to end: the real app with its
// outbox processor, and real HTTP receivers on 127.0.0.1 that verify what arrives with the
// `standardwebhooks` package and with Stripe's `constructEvent`.

const stripe = new Stripe('sk_test_x');

/** Verifies one request both ways; answers the event as each library read it. */
function verifyBoth(arrival: Received, secret: string) {
  const standard = new Webhook(secret).verify(arrival.raw, arrival.headers as Record<string, string>) as any;
  const stripeEvent = stripe.webhooks.constructEvent(arrival.raw, String(arrival.headers['chorus-signature']), secret) as any;
  return { standard, stripeEvent };
}

describe('webhook tools and Standard Webhooks', () => {
  let t: TestApp;
  let release: () => Promise<void>;
  const workspaces: string[] = [];

  beforeAll(async () => {
    release = await holdProcessorLock();
    t = await startTestApp({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
  }, 180_000);
  afterAll(async () => {
    await cancelPending(t.db, workspaces);
    await closeReceivers();
    await t.close();
    await release();
  });

  async function setUp(): Promise<{ ws: TestWorkspace; api: Client }> {
    const ws = await createWorkspace(t.app);
    workspaces.push(ws.id);
    return { ws, api: new Client(t.baseUrl, ws.key) };
  }

  const hook = (r: Receiver) => `${r.url}/hook`;

  async function endpoint(api: Client, url: string, events = ['post.created', 'post.voted'], kind = 'webhook') {
    const answer = await api.post('/api/v1/webhook_endpoints', { kind, url, events });
    expect(answer.status).toBe(201);
    return answer.body.data as { id: string; secret: string | null };
  }

  const usage = async (workspaceId: string): Promise<number> =>
    (await t.db.query(`SELECT COALESCE(sum(attempts), 0)::int AS n FROM delivery_usage WHERE workspace_id = $1`, [workspaceId]))[0].n;

  it('signs every delivery for both standardwebhooks and Stripe, on the same request, before and after a rotation', async () => {
    const { api } = await setUp();
    const r = await Receiver.start();
    const { id, secret } = await endpoint(api, hook(r));

    const post = (await api.post('/api/v1/posts', { board: 'ideas', title: 'Verified twice' })).body.data;
    const [first] = await r.waitFor(1);
    expect(first.headers['webhook-id']).toBe(first.headers['chorus-delivery']);
    expect(first.headers['webhook-timestamp']).toBe(/^t=(\d+),/.exec(String(first.headers['chorus-signature']))![1]);
    expect(first.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    const before = verifyBoth(first, secret!);
    expect(before.standard).toMatchObject({ id: first.headers['chorus-delivery'], type: 'post.created', data: { post: { id: post.id } } });
    expect(before.stripeEvent).toEqual(before.standard);

    const rotated = await api.post(`/api/v1/webhook_endpoints/${id}/rotate_secret`);
    const newSecret = rotated.body.data.secret as string;
    // A vote is an event like the others: it arrives and verifies too.
    expect((await api.post(`/api/v1/posts/${post.id}/votes`, { voter: { name: 'Vera', email: 'vera@mail.example' } })).status).toBe(201);
    const [, second] = await r.waitFor(2);
    expect(String(second.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const withNew = verifyBoth(second, newSecret);
    const withOld = verifyBoth(second, secret!);
    expect(withNew.standard).toMatchObject({ type: 'post.voted', data: { voter: { name: 'Vera' }, post: { id: post.id, votes: 2 } } });
    expect(second.raw.toString()).not.toContain('vera@');
    for (const event of [withNew.stripeEvent, withOld.standard, withOld.stripeEvent]) expect(event).toEqual(withNew.standard);

    // A signature made with any other secret is refused by both.
    const stranger = 'whsec_' + 'A'.repeat(40);
    expect(() => new Webhook(stranger).verify(second.raw, second.headers as Record<string, string>)).toThrow('No matching signature');
    expect(() => stripe.webhooks.constructEvent(second.raw, String(second.headers['chorus-signature']), stranger)).toThrow();

    // Once the old secret's 24 hours are over, only the new one signs.
    await t.db.query(
      `UPDATE webhook_endpoints
          SET rotated_secrets = (SELECT jsonb_agg(r || jsonb_build_object('expires_at', now())) FROM jsonb_array_elements(rotated_secrets) r)
        WHERE id = $1`,
      [id],
    );
    await api.post('/api/v1/posts', { board: 'ideas', title: 'After the overlap' });
    const [, , third] = await r.waitFor(3);
    expect(String(third.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verifyBoth(third, newSecret).standard.type).toBe('post.created');
    expect(() => new Webhook(secret!).verify(third.raw, third.headers as Record<string, string>)).toThrow();
  });

  it('tests an endpoint now: a signed ping, answered with its attempt, counted, in the delivery log, not retried', async () => {
    const { ws, api } = await setUp();
    const r = await Receiver.start();
    const { id, secret } = await endpoint(api, hook(r));
    const counted = await usage(ws.id);

    const answer = await api.post(`/api/v1/webhook_endpoints/${id}/test`);
    expect(answer.status).toBe(200);
    const delivery = answer.body.data;
    expect(delivery).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      channel: 'webhook',
      endpoint_id: id,
      event_type: 'ping',
      status: 'delivered',
      reason: null,
      created_at: expect.any(String),
      next_attempt_at: null,
      attempts: [{ at: expect.any(String), duration_ms: expect.any(Number), status_code: 200, error: null }],
    });
    // Synchronous: it has arrived by the time the answer is here.
    expect(r.requests).toHaveLength(1);
    const ping = r.requests[0];
    expect(ping.headers['chorus-event']).toBe('ping');
    expect(ping.headers['chorus-delivery']).toBe(delivery.id);
    const { standard, stripeEvent } = verifyBoth(ping, secret!);
    expect(standard).toEqual({ id: delivery.id, type: 'ping', created_at: delivery.created_at, data: { endpoint_id: id } });
    expect(stripeEvent).toEqual(standard);

    expect(await usage(ws.id)).toBe(counted + 1);
    const log = (await api.get(`/api/v1/webhook_endpoints/${id}/deliveries`)).body.data;
    expect(log).toEqual([delivery]);

    // A receiver that is down: the answer says so, and the ping is not tried again.
    await r.close();
    const failed = await api.post(`/api/v1/webhook_endpoints/${id}/test`);
    expect(failed.status).toBe(200);
    expect(failed.body.data).toMatchObject({ status: 'failed', reason: null, next_attempt_at: null });
    expect(failed.body.data.attempts).toEqual([expect.objectContaining({ status_code: null, error: 'connection_refused' })]);
    await sleep(400);
    expect((await api.get(`/api/v1/webhook_endpoints/${id}/deliveries`)).body.data[0]).toEqual(failed.body.data);
    expect(await usage(ws.id)).toBe(counted + 2);
    const [endpointRow] = await t.db.query(`SELECT consecutive_failures FROM webhook_endpoints WHERE id = $1`, [id]);
    expect(endpointRow.consecutive_failures).toBe(0);

    expectError(await api.post('/api/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000/test'), 404, 'not_found');
  });

  it('tests a Slack or Discord endpoint with a one-line test message', async () => {
    const { api } = await setUp();
    const slack = await Receiver.start();
    const discord = (await Receiver.start()).answer(204);
    const slackEndpoint = await endpoint(api, hook(slack), ['post.created'], 'slack');
    const discordEndpoint = await endpoint(api, hook(discord), ['post.created'], 'discord');

    const slackAnswer = await api.post(`/api/v1/webhook_endpoints/${slackEndpoint.id}/test`);
    expect(slackAnswer.body.data).toMatchObject({ event_type: 'ping', status: 'delivered' });
    const slackBody = JSON.parse(slack.requests[0].raw.toString());
    expect(slackBody.text).toBe('Chorus test message: notifications from Chorus arrive in this channel.');
    expect(slack.requests[0].headers['chorus-signature']).toBeUndefined();

    const discordAnswer = await api.post(`/api/v1/webhook_endpoints/${discordEndpoint.id}/test`);
    expect(discordAnswer.body.data).toMatchObject({ status: 'delivered', attempts: [expect.objectContaining({ status_code: 204 })] });
    expect(JSON.parse(discord.requests[0].raw.toString())).toEqual({
      content: 'Chorus test message: notifications from Chorus arrive in this channel.',
      allowed_mentions: { parse: [] },
    });
  });

  it('refuses a test when the month\'s deliveries are spent', async () => {
    const { ws, api } = await setUp();
    const r = await Receiver.start();
    const { id } = await endpoint(api, hook(r));
    await t.db.query(
      `INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 20000)
       ON CONFLICT (workspace_id, month) DO UPDATE SET attempts = 20000`,
      [ws.id],
    );
    expectError(await api.post(`/api/v1/webhook_endpoints/${id}/test`), 403, 'plan_required', /delivery attempts are spent/);
    expect(r.requests).toHaveLength(0);
  });

  it('shares the month\'s last attempts exactly between tests and the outbox: one left, one request goes out', async () => {
    const { ws, api } = await setUp();
    const r = await Receiver.start();
    const { id } = await endpoint(api, hook(r), ['post.created']);
    await t.db.query(
      `INSERT INTO delivery_usage (workspace_id, month, attempts) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 19999)`,
      [ws.id],
    );
    // Three deliveries claimed by the outbox while two tests ask for the same last attempt.
    const [tests, ...posts] = await Promise.all([
      Promise.all([api.post(`/api/v1/webhook_endpoints/${id}/test`), api.post(`/api/v1/webhook_endpoints/${id}/test`)]),
      ...['First of three', 'Second of three', 'Third of three'].map((title) => api.post('/api/v1/posts', { board: 'ideas', title })),
    ]);
    expect(posts.map((answer) => answer.status)).toEqual([201, 201, 201]);
    const rows = await until('three deliveries settled', async () => {
      const all = await t.db.query(`SELECT status, reason FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = 'post.created'`, [id]);
      return all.length === 3 && all.every((row: any) => row.status !== 'pending') && all;
    });
    const testsSent = tests.filter((answer) => answer.status === 200).length;
    for (const answer of tests.filter((a) => a.status !== 200)) expectError(answer, 403, 'plan_required', /delivery attempts are spent/);
    const delivered = rows.filter((row: any) => row.status === 'delivered').length;
    expect(rows.filter((row: any) => row.status === 'failed').map((row: any) => row.reason)).toEqual(Array(3 - delivered).fill('quota_exceeded'));
    expect(testsSent + delivered).toBe(1);
    await sleep(200);
    expect(r.requests).toHaveLength(1);
    expect(await usage(ws.id)).toBe(20_000);
  });

  it('recovers: deliveries that failed while the receiver was down all arrive once it is back', async () => {
    const { api } = await setUp();
    const down = await Receiver.start();
    const port = down.port;
    await down.close();
    const { id, secret } = await endpoint(api, hook(down), ['post.created']);
    const titles = ['Lost one', 'Lost two', 'Lost three'];
    for (const title of titles) await api.post('/api/v1/posts', { board: 'ideas', title });
    const failed = await until('three failed deliveries', async () => {
      const rows = await t.db.query(`SELECT status, reason FROM webhook_deliveries WHERE endpoint_id = $1`, [id]);
      return rows.length === 3 && rows.every((row: any) => row.status === 'failed') && rows;
    });
    expect(failed.map((row: any) => row.reason)).toEqual(['retries_exhausted', 'retries_exhausted', 'retries_exhausted']);
    // A failed test ping is not something to recover.
    expect((await api.post(`/api/v1/webhook_endpoints/${id}/test`)).body.data.status).toBe('failed');

    const r = await Receiver.start(port);
    const since = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    const recovered = await api.post(`/api/v1/webhook_endpoints/${id}/recover`, { since });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toEqual({ data: { scheduled: 3 } });

    const arrivals = await r.waitFor(3);
    await sleep(300);
    expect(arrivals).toHaveLength(3);
    const events = arrivals.map((a) => verifyBoth(a, secret!).standard);
    expect(events.map((e) => e.data.post.title).sort()).toEqual([...titles].sort());
    const log = (await api.get(`/api/v1/webhook_endpoints/${id}/deliveries`)).body.data;
    const recoveredLog = log.filter((d: any) => d.event_type === 'post.created');
    expect(recoveredLog.map((d: any) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
    for (const d of recoveredLog) {
      expect(d.attempts.map((a: any) => a.error ?? a.status_code)).toEqual(['connection_refused', 'connection_refused', 200]);
    }
    expect(log.find((d: any) => d.event_type === 'ping').status).toBe('failed');

    // Nothing left to recover.
    expect((await api.post(`/api/v1/webhook_endpoints/${id}/recover`, { since })).body).toEqual({ data: { scheduled: 0 } });
  });

  it('recovers only from the moment given, at most 7 days back, and only on an endpoint that is on', async () => {
    const { ws, api } = await setUp();
    const { id } = await endpoint(api, 'http://127.0.0.1:9/hook', ['post.created']);
    await api.post('/api/v1/posts', { board: 'ideas', title: 'Old failure' });
    await until('a failed delivery', async () => {
      const rows = await t.db.query(`SELECT status FROM webhook_deliveries WHERE endpoint_id = $1`, [id]);
      return rows[0]?.status === 'failed';
    });
    await t.db.query(`UPDATE webhook_deliveries SET created_at = now() - interval '2 hours' WHERE workspace_id = $1`, [ws.id]);
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    expect((await api.post(`/api/v1/webhook_endpoints/${id}/recover`, { since: hourAgo })).body).toEqual({ data: { scheduled: 0 } });

    const eightDays = new Date(Date.now() - 8 * 24 * 60 * 60 * 1000).toISOString();
    expectError(await api.post(`/api/v1/webhook_endpoints/${id}/recover`, { since: eightDays }), 400, 'invalid_request', 'since: must be within the last 7 days');
    expectError(await api.post(`/api/v1/webhook_endpoints/${id}/recover`, {}), 400, 'invalid_request', 'since: is required');
    for (const since of ['yesterday', '2026-02-31T00:00:00Z', '2026-11-21T14:00:00', 1795370000]) {
      expectError(
        await api.post(`/api/v1/webhook_endpoints/${id}/recover`, { since }),
        400,
        'invalid_request',
        'since: must be an ISO 8601 date and time with a time zone, such as 2026-11-21T14:00:00Z',
      );
    }
    expectError(await api.post('/api/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000/recover', { since: hourAgo }), 404, 'not_found');

    await api.patch(`/api/v1/webhook_endpoints/${id}`, { enabled: false });
    expectError(await api.post(`/api/v1/webhook_endpoints/${id}/recover`, { since: hourAgo }), 409, 'conflict');
  });
});
