import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { PostsService } from '../src/posts/posts.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Received, Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Webhooks end to end: the real app over HTTP, its outbox processor in-process, and real HTTP
// receivers on 127.0.0.1. Only one processor of this file runs at a time (each block below
// starts its own app and closes it), and the file holds the processor lock, so no other test
// file's processor, with another configuration, handles these deliveries.

const ALL_EVENTS = ['post.created', 'post.status_changed', 'comment.created'];
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const SECRET = /^whsec_[0-9A-Za-z]{32,}$/;
const ENDPOINT_KEYS = ['consecutive_failures', 'created_at', 'disabled_reason', 'enabled', 'events', 'id', 'kind', 'url'];
const stripe = new Stripe('sk_test_x');



// ---------------------------------------------------------------------------------------------
// Helpers on the API and the database

interface DeliveryRow {
  id: string;
  status: string;
  reason: string | null;
  attempt_count: number;
  event_type: string;
}


async function createEndpoint(api: Client, url: string, events: string[] = ALL_EVENTS) {
  const answer = await api.post('/api/v1/webhook_endpoints', { url, events });
  expect(answer.status).toBe(201);
  return answer.body.data as { id: string; secret: string; url: string; events: string[] };
}

async function createPost(api: Client, title = 'A webhook-worthy idea') {
  const answer = await api.post('/api/v1/posts', { board: 'ideas', title });
  expect(answer.status).toBe(201);
  return answer.body.data;
}

async function deliveryRows(t: TestApp, endpointId: string): Promise<DeliveryRow[]> {
  return t.db.query(
    `SELECT id, status, reason, attempt_count, event_type FROM webhook_deliveries
      WHERE endpoint_id = $1 ORDER BY created_at, id`,
    [endpointId],
  );
}

/** Waits until the endpoint has `count` deliveries and none is pending any more. */
function settled(t: TestApp, endpointId: string, count: number, timeoutMs = 15_000): Promise<DeliveryRow[]> {
  return until(
    `${count} settled deliveries of endpoint ${endpointId}`,
    async () => {
      const rows = await deliveryRows(t, endpointId);
      return rows.length >= count && rows.every((r) => r.status !== 'pending') && rows;
    },
    timeoutMs,
  );
}

/** Waits until the processor has fanned out every event of the workspace. */
function dispatched(t: TestApp, workspaceId: string): Promise<boolean> {
  return until(`events of workspace ${workspaceId} to be fanned out`, async () => {
    const [row] = await t.db.query(
      `SELECT count(*)::int AS waiting FROM outbox_events WHERE workspace_id = $1 AND dispatched_at IS NULL`,
      [workspaceId],
    );
    return row.waiting === 0;
  });
}

async function listDeliveries(api: Client, endpointId: string) {
  const answer = await api.get(`/api/v1/webhook_endpoints/${endpointId}/deliveries`);
  expect(answer.status).toBe(200);
  return answer.body.data as any[];
}

/** `t=<unix>,v1=<hex>[,v1=<hex>]` split up. */
function parseSignature(header: string): { t: number; v1: string[] } {
  const parts = header.split(',').map((p) => p.split('='));
  expect(parts[0][0]).toBe('t');
  expect(parts.slice(1).every(([k, v]) => k === 'v1' && /^[0-9a-f]{64}$/.test(v))).toBe(true);
  return { t: Number(parts[0][1]), v1: parts.slice(1).map(([, v]) => v) };
}

const hmac = (secret: string, t: number, raw: Buffer) =>
  createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex');

const verify = (request: Received, secret: string) =>
  stripe.webhooks.constructEvent(request.raw, String(request.headers['chorus-signature']), secret);

// ---------------------------------------------------------------------------------------------

describe('webhooks', () => {
  let releaseLock: () => Promise<void>;
  const workspaces: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
  }, 180_000);

  afterAll(async () => {
    await closeReceivers();
    await releaseLock?.();
  });

  async function workspace(t: TestApp, plan: 'pro' | 'free' = 'pro'): Promise<{ ws: TestWorkspace; api: Client }> {
    const ws = await createWorkspace(t.app, { plan });
    workspaces.push(ws.id);
    return { ws, api: new Client(t.baseUrl, ws.key) };
  }

  // The retry schedule is compressed: 300 ms, 600 ms, … instead of 1 min, 5 min, …
  const SCHEDULE = [300, 600, 900, 1200, 1500];

  describe('with private targets allowed and a compressed schedule', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({
        RUN_WORKER: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: SCHEDULE.map((ms) => `${ms}ms`).join(','),
        WEBHOOK_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      await cancelPending(t.db, workspaces);
      await t.close();
    });

    describe('management API', () => {
      it('creates an endpoint (201, secret shown once), lists it, gets it, and never shows the secret again', async () => {
        const { api } = await workspace(t);
        const created = await api.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hook', events: ['post.created'] });
        expect(created.status).toBe(201);
        const endpoint = created.body.data;
        expect(Object.keys(endpoint).sort()).toEqual([...ENDPOINT_KEYS, 'secret'].sort());
        expect(endpoint).toEqual({
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          kind: 'webhook',
          url: 'http://127.0.0.1:9/hook',
          events: ['post.created'],
          enabled: true,
          disabled_reason: null,
          consecutive_failures: 0,
          created_at: expect.stringMatching(ISO),
          secret: expect.stringMatching(SECRET),
        });
        const { secret, ...shown } = endpoint;

        const got = await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`);
        expect(got.status).toBe(200);
        expect(got.body.data).toEqual(shown);
        expect(got.text).not.toContain(secret);

        const second = await createEndpoint(api, 'http://127.0.0.1:9/other', ['comment.created', 'post.created']);
        expect(second.secret).toMatch(SECRET);
        expect(second.secret).not.toBe(secret);

        const list = await api.get('/api/v1/webhook_endpoints');
        expect(list.status).toBe(200);
        expect(list.body.data.map((e: any) => e.id)).toEqual([endpoint.id, second.id]);
        for (const e of list.body.data) expect(Object.keys(e).sort()).toEqual(ENDPOINT_KEYS);
        expect(list.body.data[0]).toEqual(shown);
        expect(list.text).not.toContain('whsec_');
        expect(got.text).not.toContain('whsec_');
      });

      it('changes url, events and enabled with PATCH, without showing the secret', async () => {
        const { api } = await workspace(t);
        const endpoint = await createEndpoint(api, 'http://127.0.0.1:9/a', ['post.created']);
        const path = `/api/v1/webhook_endpoints/${endpoint.id}`;

        const changed = await api.patch(path, { url: 'http://127.0.0.1:9/b', events: ['comment.created', 'post.status_changed'] });
        expect(changed.status).toBe(200);
        expect(changed.body.data).toMatchObject({ id: endpoint.id, url: 'http://127.0.0.1:9/b', events: ['comment.created', 'post.status_changed'], enabled: true });
        expect(Object.keys(changed.body.data).sort()).toEqual(ENDPOINT_KEYS);

        const off = await api.patch(path, { enabled: false });
        expect(off.status).toBe(200);
        expect(off.body.data).toMatchObject({ enabled: false, disabled_reason: 'user', url: 'http://127.0.0.1:9/b' });
        expect((await api.get(path)).body.data).toMatchObject({ enabled: false, disabled_reason: 'user' });

        const on = await api.patch(path, { enabled: true });
        expect(on.status).toBe(200);
        expect(on.body.data).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
        expect(on.text).not.toContain('whsec_');
      });

      it('deletes with 204, then answers 404; rotate_secret answers 200 with a new secret', async () => {
        const { api } = await workspace(t);
        const endpoint = await createEndpoint(api, 'http://127.0.0.1:9/a');
        const path = `/api/v1/webhook_endpoints/${endpoint.id}`;

        const rotated = await api.post(`${path}/rotate_secret`);
        expect(rotated.status).toBe(200);
        expect(rotated.body.data).toMatchObject({ id: endpoint.id, secret: expect.stringMatching(SECRET) });
        expect(rotated.body.data.secret).not.toBe(endpoint.secret);
        expect((await api.get(path)).body.data.secret).toBeUndefined();

        const deleted = await api.request('DELETE', path);
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');
        expectError(await api.get(path), 404, 'not_found');
        expectError(await api.request('DELETE', path), 404, 'not_found');
        expectError(await api.patch(path, { enabled: false }), 404, 'not_found');
        expectError(await api.post(`${path}/rotate_secret`), 404, 'not_found');
        expect((await api.get('/api/v1/webhook_endpoints')).body.data).toEqual([]);
      });

      it('refuses invalid bodies with 400 invalid_request naming the field', async () => {
        const { api } = await workspace(t);
        const post = (body: unknown) => api.post('/api/v1/webhook_endpoints', body);
        expectError(await post({ events: ['post.created'] }), 400, 'invalid_request', 'url: is required');
        expectError(await post({ url: 42, events: ['post.created'] }), 400, 'invalid_request', 'url: must be a string');
        expectError(await post({ url: 'not a url', events: ['post.created'] }), 400, 'invalid_request', /^url: /);
        expectError(await post({ url: 'ftp://127.0.0.1/x', events: ['post.created'] }), 400, 'invalid_request', /^url: /);
        expectError(await post({ url: 'http://user:pw@127.0.0.1/x', events: ['post.created'] }), 400, 'invalid_request', /^url: /);
        expectError(await post({ url: 'http://127.0.0.1/x' }), 400, 'invalid_request', 'events: is required');
        expectError(await post({ url: 'http://127.0.0.1/x', events: [] }), 400, 'invalid_request', /^events: /);
        expectError(await post({ url: 'http://127.0.0.1/x', events: ['post.deleted'] }), 400, 'invalid_request', /^events: /);
        expectError(await post({ url: 'http://127.0.0.1/x', events: 'post.created' }), 400, 'invalid_request', /^events: /);
        expectError(
          await post({ url: 'http://127.0.0.1/x', events: ['post.created', 'post.created'] }),
          400,
          'invalid_request',
          /^events: /,
        );
        expectError(
          await post({ url: 'http://127.0.0.1/x', events: ['post.created'], secret: 'whsec_mine' }),
          400,
          'invalid_request',
          'secret: is not allowed',
        );
        expectError(await post({ kind: 'teams', url: 'http://127.0.0.1/x', events: ['post.created'] }), 400, 'invalid_request', /^kind: /);

        const endpoint = await createEndpoint(api, 'http://127.0.0.1:9/a');
        const path = `/api/v1/webhook_endpoints/${endpoint.id}`;
        expectError(await api.patch(path, { url: 'nope' }), 400, 'invalid_request', /^url: /);
        expectError(await api.patch(path, { events: [] }), 400, 'invalid_request', /^events: /);
        expectError(await api.patch(path, { events: ['nope'] }), 400, 'invalid_request', /^events: /);
        expectError(await api.patch(path, { enabled: 'yes' }), 400, 'invalid_request', /^enabled: /);
        expectError(await api.patch(path, { kind: 'slack' }), 400, 'invalid_request', 'kind: is not allowed');
        // Nothing of that was saved, and the list holds the one valid endpoint only.
        const list = (await api.get('/api/v1/webhook_endpoints')).body.data;
        expect(list).toEqual([expect.objectContaining({ id: endpoint.id, url: 'http://127.0.0.1:9/a', events: ALL_EVENTS, enabled: true })]);
      });

      it('allows a pro workspace 5 endpoints: the 6th is 403 plan_required naming the limit', async () => {
        const { api } = await workspace(t);
        for (let i = 0; i < 5; i++) await createEndpoint(api, `http://127.0.0.1:9/${i}`);
        const sixth = await api.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/6', events: ['post.created'] });
        expectError(sixth, 403, 'plan_required', /\b5\b/);
        expect((await api.get('/api/v1/webhook_endpoints')).body.data).toHaveLength(5);
        // A disabled endpoint still counts; a deleted one frees its place.
        const [first] = (await api.get('/api/v1/webhook_endpoints')).body.data;
        await api.patch(`/api/v1/webhook_endpoints/${first.id}`, { enabled: false });
        expectError(await api.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/6', events: ['post.created'] }), 403, 'plan_required');
        expect((await api.request('DELETE', `/api/v1/webhook_endpoints/${first.id}`)).status).toBe(204);
        await createEndpoint(api, 'http://127.0.0.1:9/6');
      });

      it("answers 404 for another workspace's endpoint and for ids that are not UUIDs", async () => {
        const { api } = await workspace(t);
        const { api: other } = await workspace(t);
        const theirs = await createEndpoint(other, 'http://127.0.0.1:9/theirs');
        const path = `/api/v1/webhook_endpoints/${theirs.id}`;
        expectError(await api.get(path), 404, 'not_found');
        expectError(await api.patch(path, { enabled: false }), 404, 'not_found');
        expectError(await api.request('DELETE', path), 404, 'not_found');
        expectError(await api.post(`${path}/rotate_secret`), 404, 'not_found');
        expectError(await api.get(`${path}/deliveries`), 404, 'not_found');
        expect((await api.get('/api/v1/webhook_endpoints')).body.data).toEqual([]);
        // Still there and unchanged for its owner.
        expect((await other.get(path)).body.data).toMatchObject({ id: theirs.id, enabled: true });
        for (const id of ['not-a-uuid', '123', `${theirs.id}x`]) {
          expectError(await api.get(`/api/v1/webhook_endpoints/${id}`), 404, 'not_found');
          expectError(await api.patch(`/api/v1/webhook_endpoints/${id}`, { enabled: false }), 404, 'not_found');
          expectError(await api.get(`/api/v1/webhook_endpoints/${id}/deliveries`), 404, 'not_found');
        }
      });
    });

    describe('events', () => {
      it('delivers every event type to subscribed receivers only, with the documented headers and body', async () => {
        const { ws, api } = await workspace(t);
        const all = await Receiver.start();
        const createdOnly = await Receiver.start();
        const disabled = await Receiver.start();
        const allEndpoint = await createEndpoint(api, `${all.url}/hooks/all?x=1`);
        const createdEndpoint = await createEndpoint(api, `${createdOnly.url}/created`, ['post.created']);
        const offEndpoint = await createEndpoint(api, `${disabled.url}/off`);
        expect((await api.patch(`/api/v1/webhook_endpoints/${offEndpoint.id}`, { enabled: false })).status).toBe(200);

        const first = await createPost(api, 'First post for hooks');
        const planned = await api.patch(`/api/v1/posts/${first.id}`, { status: 'planned' });
        expect(planned.status).toBe(200);
        const second = await createPost(api, 'Second post, merged');
        const merged = await api.post(`/api/v1/posts/${second.id}/merge`, { into: first.id });
        expect(merged.status).toBe(200);
        const comment = await api.post(`/api/v1/posts/${first.id}/comments`, { body: 'Thanks, on our list.' });
        expect(comment.status).toBe(201);
        const firstAfter = (await api.get(`/api/v1/posts/${first.id}`)).body.data;

        await settled(t, allEndpoint.id, 5);
        await settled(t, createdEndpoint.id, 2);
        await dispatched(t, ws.id);
        await sleep(200);
        expect(all.requests).toHaveLength(5);
        expect(createdOnly.requests).toHaveLength(2);
        expect(disabled.requests).toHaveLength(0);
        expect(await deliveryRows(t, offEndpoint.id)).toEqual([]);

        const started = Date.now();
        for (const request of [...all.requests, ...createdOnly.requests]) {
          expect(request.method).toBe('POST');
          expect(request.headers['content-type']).toBe('application/json');
          expect(request.headers['user-agent']).toMatch(/^Chorus-Webhooks\/\S+/);
          expect(request.headers['chorus-delivery']).toMatch(UUID_V4);
          expect(request.headers['chorus-event']).toBe(request.body.type);
          expect(request.headers['chorus-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
          expect(Object.keys(request.body)).toEqual(['id', 'type', 'created_at', 'data']);
          expect(request.body.id).toBe(request.headers['chorus-delivery']);
          expect(request.body.created_at).toMatch(ISO);
          expect(Date.parse(request.body.created_at)).toBeLessThanOrEqual(started);
          expect(Date.parse(request.body.created_at)).toBeGreaterThan(started - 60_000);
        }
        expect(all.requests.every((r) => r.path === '/hooks/all?x=1')).toBe(true);
        expect(createdOnly.requests.every((r) => r.path === '/created')).toBe(true);
        expect(new Set(all.requests.map((r) => r.body.id)).size).toBe(5);

        const find = (receiver: Receiver, type: string, postId: number) => {
          const found = receiver.requests.filter((r) => r.body.type === type && r.body.data.post.id === postId);
          expect(found).toHaveLength(1);
          return found[0].body;
        };
        // post.created: { post } as the API answered it.
        for (const receiver of [all, createdOnly]) {
          expect(find(receiver, 'post.created', first.id).data).toEqual({ post: first });
          expect(find(receiver, 'post.created', second.id).data).toEqual({ post: second });
        }
        expect(createdOnly.requests.every((r) => r.body.type === 'post.created')).toBe(true);
        // post.status_changed by PATCH: { post, previous_status }.
        expect(find(all, 'post.status_changed', first.id).data).toEqual({ post: planned.body.data, previous_status: 'open' });
        // … and by merge, with merged_into.
        expect(find(all, 'post.status_changed', second.id).data).toEqual({
          post: merged.body.data,
          previous_status: 'open',
          merged_into: merged.body.data.merged_into,
        });
        expect(merged.body.data.merged_into).toMatchObject({ id: first.id });
        expect(merged.body.data.status).toBe('closed');
        // comment.created: { post, comment }.
        expect(find(all, 'comment.created', first.id).data).toEqual({ post: firstAfter, comment: comment.body.data });

        // The API lists them as delivered, one attempt each, newest first.
        const listed = await listDeliveries(api, allEndpoint.id);
        expect(listed).toHaveLength(5);
        // Newest first by the event's time (the body's created_at), whatever batch fanned them out.
        const eventTime = new Map(all.requests.map((r) => [r.body.id as string, Date.parse(r.body.created_at)]));
        const times = listed.map((d) => eventTime.get(d.id)!);
        expect(times).toEqual([...times].sort((x, y) => y - x));
        expect(listed.map((d) => d.event_type).sort()).toEqual([
          'comment.created',
          'post.created',
          'post.created',
          'post.status_changed',
          'post.status_changed',
        ]);
        for (const delivery of listed) {
          expect(delivery).toEqual({
            id: expect.stringMatching(UUID_V4),
            channel: 'webhook',
            endpoint_id: expect.any(String),
            event_type: expect.any(String),
            status: 'delivered',
            reason: null,
            created_at: expect.stringMatching(ISO),
            next_attempt_at: null,
            attempts: [{ at: expect.stringMatching(ISO), duration_ms: expect.any(Number), status_code: 200, error: null }],
          });
        }
        expect(new Set(listed.map((d) => d.id))).toEqual(new Set(all.requests.map((r) => r.body.id)));
      });

      it('signs so that Stripe verification accepts the right secret and refuses a wrong one; during a rotation both secrets verify', async () => {
        const { api } = await workspace(t);
        const receiver = await Receiver.start();
        const endpoint = await createEndpoint(api, `${receiver.url}/stripe`, ['post.created']);

        const post = await createPost(api, 'Signed delivery');
        const [request] = await receiver.waitFor(1);
        const event = verify(request, endpoint.secret);
        expect(event).toMatchObject({ id: request.headers['chorus-delivery'], type: 'post.created', data: { post } });
        const { t: timestamp, v1 } = parseSignature(String(request.headers['chorus-signature']));
        expect(v1).toEqual([hmac(endpoint.secret, timestamp, request.raw)]);
        expect(Math.abs(timestamp - request.at / 1000)).toBeLessThan(2);
        expect(() => verify(request, 'whsec_' + 'x'.repeat(40))).toThrow(Stripe.errors.StripeSignatureVerificationError);
        expect(() => verify(request, endpoint.secret.slice(0, -1))).toThrow(Stripe.errors.StripeSignatureVerificationError);
        // The body is what was signed: one changed byte fails.
        const tampered = { ...request, raw: Buffer.from(request.raw.toString('utf8').replace('Signed', 'signed')) };
        expect(() => verify(tampered, endpoint.secret)).toThrow(Stripe.errors.StripeSignatureVerificationError);

        const rotated = (await api.post(`/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret`)).body.data;
        await createPost(api, 'Signed during the rotation');
        const [, during] = await receiver.waitFor(2);
        const signature = parseSignature(String(during.headers['chorus-signature']));
        expect(signature.v1).toEqual([hmac(rotated.secret, signature.t, during.raw), hmac(endpoint.secret, signature.t, during.raw)]);
        expect(verify(during, rotated.secret)).toMatchObject({ type: 'post.created' });
        expect(verify(during, endpoint.secret)).toMatchObject({ type: 'post.created' });
        expect(() => verify(during, 'whsec_' + 'y'.repeat(40))).toThrow(Stripe.errors.StripeSignatureVerificationError);
      });
    });

    describe('failures and retries', () => {
      it('makes 6 attempts on the schedule, then fails the delivery (retries_exhausted); POST /deliveries/{id}/retry sends it again', async () => {
        const { ws, api } = await workspace(t);
        const receiver = (await Receiver.start()).answer(500);
        const endpoint = await createEndpoint(api, `${receiver.url}/500`, ['post.created']);
        await createPost(api, 'Always failing');

        // While it is pending, next_attempt_at says when the next attempt is due.
        await until('the first attempt to be recorded', async () => (await deliveryRows(t, endpoint.id))[0]?.attempt_count === 1);
        const [pending] = await listDeliveries(api, endpoint.id);
        expect(pending).toMatchObject({ status: 'pending', reason: null, attempts: [{ status_code: 500, error: null }] });
        expect(pending.next_attempt_at).toMatch(ISO);
        const [a0] = pending.attempts;
        expect(Date.parse(pending.next_attempt_at)).toBe(Date.parse(a0.at) + a0.duration_ms + SCHEDULE[0]);

        const [row] = await settled(t, endpoint.id, 1);
        expect(row).toMatchObject({ status: 'failed', reason: 'retries_exhausted', attempt_count: 6 });
        await sleep(SCHEDULE[SCHEDULE.length - 1] + 300);
        const requests = receiver.requests;
        expect(requests).toHaveLength(6);

        // Same delivery id and the same bytes every time; re-signed at every attempt.
        const id = requests[0].headers['chorus-delivery'];
        for (const request of requests) {
          expect(request.headers['chorus-delivery']).toBe(id);
          expect(request.raw.equals(requests[0].raw)).toBe(true);
          const { t: timestamp, v1 } = parseSignature(String(request.headers['chorus-signature']));
          expect(v1).toEqual([hmac(endpoint.secret, timestamp, request.raw)]);
          expect(timestamp).toBeGreaterThanOrEqual(Math.floor(request.at / 1000) - 1);
          expect(timestamp).toBeLessThanOrEqual(Math.floor(request.at / 1000));
          expect(verify(request, endpoint.secret)).toMatchObject({ id });
        }
        const timestamps = requests.map((r) => parseSignature(String(r.headers['chorus-signature'])).t);
        expect(timestamps[5]).toBeGreaterThan(timestamps[0]);

        // Each retry comes no earlier than planned after the previous attempt ended, and not much later.
        for (let i = 1; i < requests.length; i++) {
          const gap = requests[i].at - requests[i - 1].respondedAt!;
          expect(gap).toBeGreaterThanOrEqual(SCHEDULE[i - 1]);
          expect(gap).toBeLessThan(SCHEDULE[i - 1] + 2_500); // "not much later": one poll, with room for a loaded machine
        }

        const [failed] = await listDeliveries(api, endpoint.id);
        expect(failed).toMatchObject({ id, event_type: 'post.created', status: 'failed', reason: 'retries_exhausted', next_attempt_at: null });
        expect(failed.attempts).toHaveLength(6);
        for (const attempt of failed.attempts) {
          expect(attempt).toEqual({ at: expect.stringMatching(ISO), duration_ms: expect.any(Number), status_code: 500, error: null });
          expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
          expect(attempt.duration_ms).toBeLessThan(1_000);
        }
        for (let i = 1; i < failed.attempts.length; i++) {
          const previous = failed.attempts[i - 1];
          const planned = Date.parse(previous.at) + previous.duration_ms + SCHEDULE[i - 1];
          expect(Date.parse(failed.attempts[i].at)).toBeGreaterThanOrEqual(planned);
          expect(Date.parse(failed.attempts[i].at)).toBeLessThan(planned + 2_500);
        }
        const endpointNow = (await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).body.data;
        expect(endpointNow).toMatchObject({ enabled: true, consecutive_failures: 6 });

        // A manual retry, with the receiver now well: one more attempt, delivered.
        receiver.answer(200);
        const retried = await api.post(`/api/v1/deliveries/${id}/retry`);
        expect(retried.status).toBe(200);
        expect(retried.body.data).toMatchObject({ id, event_type: 'post.created', reason: null });
        expect(['pending', 'delivered']).toContain(retried.body.data.status);
        await settled(t, endpoint.id, 1);
        const [delivered] = await listDeliveries(api, endpoint.id);
        expect(delivered).toMatchObject({ id, status: 'delivered', reason: null, next_attempt_at: null });
        expect(delivered.attempts.map((a: any) => a.status_code)).toEqual([500, 500, 500, 500, 500, 500, 200]);
        expect(receiver.requests).toHaveLength(7);
        expect(receiver.requests[6].raw.equals(requests[0].raw)).toBe(true);
        expect(receiver.requests[6].headers['chorus-delivery']).toBe(id);
        expect((await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).body.data.consecutive_failures).toBe(0);

        // Unknown, malformed and other workspaces' ids: 404. A turned-off endpoint: 409.
        expectError(await api.post('/api/v1/deliveries/00000000-0000-4000-8000-000000000000/retry'), 404, 'not_found');
        expectError(await api.post('/api/v1/deliveries/nope/retry'), 404, 'not_found');
        const { api: other } = await workspace(t);
        expectError(await other.post(`/api/v1/deliveries/${id}/retry`), 404, 'not_found');
        await api.patch(`/api/v1/webhook_endpoints/${endpoint.id}`, { enabled: false });
        expectError(await api.post(`/api/v1/deliveries/${id}/retry`), 409, 'conflict');
        await sleep(300);
        expect(receiver.requests).toHaveLength(7);
        expect((await deliveryRows(t, endpoint.id))[0]).toMatchObject({ status: 'delivered', attempt_count: 7 });
        void ws;
      });

      it('never follows a redirect (3xx is a failure), and delivers once the receiver answers 200', async () => {
        const { api } = await workspace(t);
        const target = await Receiver.start();
        const redirecting = (await Receiver.start()).answerWith((_, index) =>
          index === 0 ? { status: 302, location: `${target.url}/elsewhere` } : { status: 204 },
        );
        const endpoint = await createEndpoint(api, `${redirecting.url}/moved`, ['post.created']);
        await createPost(api, 'Redirected once');
        const [row] = await settled(t, endpoint.id, 1);
        expect(row).toMatchObject({ status: 'delivered', attempt_count: 2 });
        const [delivery] = await listDeliveries(api, endpoint.id);
        expect(delivery.attempts).toEqual([
          expect.objectContaining({ status_code: 302, error: null }),
          expect.objectContaining({ status_code: 204, error: null }),
        ]);
        expect(delivery).toMatchObject({ status: 'delivered', reason: null, next_attempt_at: null });
        expect(redirecting.requests).toHaveLength(2);
        expect(redirecting.requests.map((r) => r.path)).toEqual(['/moved', '/moved']);
        expect(redirecting.requests[1].at - redirecting.requests[0].respondedAt!).toBeGreaterThanOrEqual(SCHEDULE[0]);
        expect(target.requests).toHaveLength(0);
        expect((await api.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).body.data.consecutive_failures).toBe(0);
      });

      it("fails an attempt that outlasts WEBHOOK_TIMEOUT_MS with error 'timeout', then delivers on the retry", async () => {
        const { api } = await workspace(t);
        const slow = (await Receiver.start()).answerWith((_, index) => (index === 0 ? { status: 200, sleepMs: 2_500 } : { status: 200 }));
        const endpoint = await createEndpoint(api, `${slow.url}/slow`, ['post.created']);
        await createPost(api, 'Slow receiver');
        const [row] = await settled(t, endpoint.id, 1);
        expect(row).toMatchObject({ status: 'delivered', attempt_count: 2 });
        const [delivery] = await listDeliveries(api, endpoint.id);
        const [timedOut, ok] = delivery.attempts;
        expect(timedOut).toMatchObject({ status_code: null, error: 'timeout' });
        expect(timedOut.duration_ms).toBeGreaterThanOrEqual(990);
        expect(timedOut.duration_ms).toBeLessThan(2_000);
        expect(ok).toMatchObject({ status_code: 200, error: null });
        expect(Date.parse(ok.at)).toBeGreaterThanOrEqual(Date.parse(timedOut.at) + timedOut.duration_ms + SCHEDULE[0]);
        expect(slow.requests).toHaveLength(2);
        expect(slow.requests[1].raw.equals(slow.requests[0].raw)).toBe(true);
      });

      it('records connection failures as errors and retries them', async () => {
        const { api } = await workspace(t);
        const gone = await Receiver.start();
        const url = `${gone.url}/gone`;
        await gone.close();
        const endpoint = await createEndpoint(api, url, ['post.created']);
        await createPost(api, 'Nobody listening');
        await until('two attempts', async () => (await deliveryRows(t, endpoint.id))[0]?.attempt_count >= 2);
        const [delivery] = await listDeliveries(api, endpoint.id);
        expect(delivery.attempts.slice(0, 2)).toEqual([
          expect.objectContaining({ status_code: null, error: 'connection_refused' }),
          expect.objectContaining({ status_code: null, error: 'connection_refused' }),
        ]);
        await api.patch(`/api/v1/webhook_endpoints/${endpoint.id}`, { enabled: false });
        const [cancelled] = await listDeliveries(api, endpoint.id);
        expect(cancelled).toMatchObject({ status: 'cancelled', reason: 'endpoint_disabled', next_attempt_at: null });
      });
    });

    describe('quota and plans', () => {
      it('stops at the monthly quota: later attempts are not made and the delivery fails with quota_exceeded', async () => {
        const { ws, api } = await workspace(t);
        const receiver = await Receiver.start();
        const endpoint = await createEndpoint(api, `${receiver.url}/quota`, ['post.created']);
        await t.db.query(
          `INSERT INTO delivery_usage (workspace_id, month, attempts)
           VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 19998)`,
          [ws.id],
        );
        for (const title of ['Quota one', 'Quota two', 'Quota three']) await createPost(api, title);
        const rows = await settled(t, endpoint.id, 3);
        await sleep(200);
        const delivered = rows.filter((r) => r.status === 'delivered');
        const failed = rows.filter((r) => r.status === 'failed');
        expect(delivered).toHaveLength(2);
        expect(failed).toEqual([expect.objectContaining({ reason: 'quota_exceeded', attempt_count: 0 })]);
        expect(receiver.requests).toHaveLength(2);
        expect(receiver.requests.map((r) => r.headers['chorus-delivery']).sort()).toEqual(delivered.map((r) => r.id).sort());
        const listed = await listDeliveries(api, endpoint.id);
        expect(listed.find((d) => d.id === failed[0].id)).toMatchObject({
          status: 'failed',
          reason: 'quota_exceeded',
          next_attempt_at: null,
          attempts: [],
        });
        const [usage] = await t.db.query(`SELECT attempts FROM delivery_usage WHERE workspace_id = $1`, [ws.id]);
        expect(usage.attempts).toBe(20_000);
      });

      it('sends nothing for a free workspace', async () => {
        const { ws, api } = await workspace(t);
        const receiver = await Receiver.start();
        const endpoint = await createEndpoint(api, `${receiver.url}/free`);
        await t.app.get(WorkspacesService).setPlan(ws.slug, 'free');
        expectError(await api.post('/api/v1/posts', { board: 'ideas', title: 'Not on free' }), 403, 'plan_required');
        const post = await t.app.get(PostsService).create(ws.actor, { board: 'ideas', title: 'Made outside the API' });
        await t.app.get(PostsService).setStatus(ws.actor, post.id, 'planned');
        const [event] = await t.db.query(`SELECT count(*)::int AS n FROM outbox_events WHERE workspace_id = $1`, [ws.id]);
        expect(event.n).toBe(2);
        await dispatched(t, ws.id);
        await sleep(500);
        expect(await deliveryRows(t, endpoint.id)).toEqual([]);
        expect(receiver.requests).toHaveLength(0);
      });
    });
  });

  describe('turning an endpoint off after 20 failures in a row', () => {
    const FAST = [100, 100, 100, 100, 100];
    let t: TestApp;

    beforeAll(async () => {
      t = await startTestApp({
        RUN_WORKER: 'true',
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: FAST.map((ms) => `${ms}ms`).join(','),
        WEBHOOK_TIMEOUT_MS: '1000',
      });
    });
    afterAll(async () => {
      await cancelPending(t.db, workspaces);
      await t.close();
    });

    it('turns it off at 20, cancels what is pending, sends nothing more; turning it on resets the count', async () => {
      const { ws, api } = await workspace(t);
      // The 19th request is held until the 20th arrives (at most 800 ms: the timeout is 1 s), so
      // that both fail together and no retry of the 19th is made before the 20th failure.
      let twentieth: () => void = () => {};
      const receiver = (await Receiver.start()).answerWith((_, index) => {
        if (index === 19) twentieth();
        if (index !== 18) return { status: 503 };
        const bothIn = new Promise<void>((resolve) => {
          twentieth = resolve;
          setTimeout(resolve, 800).unref();
        });
        return { status: 503, hold: bothIn };
      });
      const endpoint = await createEndpoint(api, `${receiver.url}/flaky`, ['post.created']);
      const path = `/api/v1/webhook_endpoints/${endpoint.id}`;

      // Three deliveries, one after the other, each failing six times: 18 in a row.
      for (let i = 1; i <= 3; i++) {
        await createPost(api, `Failing post ${i}`);
        const rows = await settled(t, endpoint.id, i);
        expect(rows[i - 1]).toMatchObject({ status: 'failed', reason: 'retries_exhausted', attempt_count: 6 });
      }
      expect((await api.get(path)).body.data).toMatchObject({ enabled: true, consecutive_failures: 18, disabled_reason: null });

      // Two more at once: the 19th and the 20th failure turn the endpoint off.
      await createPost(api, 'Failing post 4');
      await createPost(api, 'Failing post 5');
      await until('the endpoint to be turned off', async () => !(await api.get(path)).body.data.enabled, 15_000, 250);
      const rows = await settled(t, endpoint.id, 5);
      const off = (await api.get(path)).body.data;
      expect(off).toMatchObject({ enabled: false, disabled_reason: 'consecutive_failures', consecutive_failures: 20 });
      expect(rows.slice(3)).toEqual([
        expect.objectContaining({ status: 'cancelled', reason: 'endpoint_disabled', attempt_count: 1 }),
        expect.objectContaining({ status: 'cancelled', reason: 'endpoint_disabled', attempt_count: 1 }),
      ]);
      const listed = await listDeliveries(api, endpoint.id);
      expect(listed.filter((d) => d.status === 'cancelled')).toHaveLength(2);
      for (const d of listed.filter((d) => d.status === 'cancelled')) {
        expect(d).toMatchObject({ reason: 'endpoint_disabled', next_attempt_at: null });
        expect(d.attempts).toHaveLength(1);
      }
      expect(receiver.requests).toHaveLength(20);

      // Nothing more: no retries, and no deliveries for new events.
      await createPost(api, 'While it is off');
      await dispatched(t, ws.id);
      await sleep(600);
      expect(receiver.requests).toHaveLength(20);
      expect(await deliveryRows(t, endpoint.id)).toHaveLength(5);

      // Turned back on: the count starts again and new events are delivered.
      receiver.answer(200);
      const on = await api.patch(path, { enabled: true });
      expect(on.status).toBe(200);
      expect(on.body.data).toMatchObject({ enabled: true, disabled_reason: null, consecutive_failures: 0 });
      const post = await createPost(api, 'After turning it on');
      const [, , , , , sixth] = await settled(t, endpoint.id, 6);
      expect(sixth).toMatchObject({ status: 'delivered', attempt_count: 1 });
      expect(receiver.requests).toHaveLength(21);
      expect(receiver.requests[20].body.data.post).toEqual(post);
      // Cancelled deliveries stay cancelled.
      expect((await deliveryRows(t, endpoint.id)).filter((r) => r.status === 'cancelled')).toHaveLength(2);
    });
  });

  describe('address safety without WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
    let open: TestApp; // switch on, API only: saves endpoints that point at local receivers
    let strict: TestApp; // switch off (the default), and runs the processor

    beforeAll(async () => {
      open = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', RUN_WORKER: 'false' });
      strict = await startTestApp({ RUN_WORKER: 'true' });
    });
    afterAll(async () => {
      await cancelPending(strict.db, workspaces);
      await strict.close();
      await open.close();
    });

    const UNSAFE = [
      'http://example.com/hook',
      'https://127.0.0.1/',
      'https://localhost/',
      'https://169.254.169.254/',
      'https://10.0.0.1/',
      'https://192.168.1.1/',
      'https://[::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://[fc00::1]/',
      'https://2130706433/',
      'https://0177.0.0.1/',
      'https://0x7f.1/',
      'https://0.0.0.0/',
    ];

    it('refuses http and non-public targets when an endpoint is saved (create and PATCH)', async () => {
      const ws = await createWorkspace(strict.app);
      workspaces.push(ws.id);
      const api = new Client(strict.baseUrl, ws.key);
      const openApi = new Client(open.baseUrl, ws.key);
      const saved = await createEndpoint(openApi, 'http://127.0.0.1:9/saved-while-allowed');
      for (const url of UNSAFE) {
        const created = await api.post('/api/v1/webhook_endpoints', { url, events: ['post.created'] });
        expectError(created, 400, 'invalid_request', /^url: /);
        const patched = await api.patch(`/api/v1/webhook_endpoints/${saved.id}`, { url });
        expectError(patched, 400, 'invalid_request', /^url: /);
      }
      expect((await api.get('/api/v1/webhook_endpoints')).body.data).toEqual([
        expect.objectContaining({ id: saved.id, url: 'http://127.0.0.1:9/saved-while-allowed' }),
      ]);
    });

    it("refuses them again when sending: the attempt is recorded as 'unsafe_target' and nothing arrives", async () => {
      const ws = await createWorkspace(open.app);
      workspaces.push(ws.id);
      const openApi = new Client(open.baseUrl, ws.key);
      const receiver = await Receiver.start();
      const byAddress = await createEndpoint(openApi, `${receiver.url}/literal`, ['post.created']);
      const byName = await createEndpoint(openApi, `http://localhost:${receiver.port}/by-name`, ['post.created']);

      await createPost(openApi, 'Sent by the strict processor');
      for (const endpoint of [byAddress, byName]) {
        await until('the first attempt', async () => (await deliveryRows(strict, endpoint.id))[0]?.attempt_count >= 1);
        const [delivery] = await listDeliveries(openApi, endpoint.id);
        expect(delivery.status).toBe('pending');
        expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'unsafe_target' });
      }
      await sleep(300);
      expect(receiver.requests).toHaveLength(0);
      for (const endpoint of [byAddress, byName]) {
        await openApi.patch(`/api/v1/webhook_endpoints/${endpoint.id}`, { enabled: false });
      }
    });
  });
});
