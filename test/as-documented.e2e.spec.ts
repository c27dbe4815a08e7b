import { createHmac } from 'node:crypto';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, expectError } from './support/http';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Issue 13: requests answered exactly as docs/api.md and the decisions document them.

describe('requests, exactly as documented', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;

  beforeAll(async () => {
    t = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
  });
  afterAll(() => t.close());

  const postCount = async () =>
    (await t.db.query(`SELECT count(*)::int AS n FROM posts WHERE workspace_id = $1`, [ws.id]))[0].n as number;

  async function endpoint(kind: 'webhook' | 'slack' = 'webhook') {
    const url = kind === 'webhook' ? 'http://127.0.0.1:9/hook' : 'https://hooks.slack.com/services/T0/B0/abcdef';
    const created = await api.post('/api/v1/webhook_endpoints', { kind, url, events: ['post.created'] });
    expect(created.status).toBe(201);
    return created.body.data as { id: string; secret: string | null };
  }

  describe('every problem of a body in one answer (point 4)', () => {
    it('answers title and author.name together, in the documented order', async () => {
      const answer = await api.post('/api/v1/posts', { board: 'ideas', title: 'ab', author: {} });
      expectError(answer, 400, 'invalid_request', 'title: must be 4 to 120 characters; author.name: is required');
    });

    it('refuses a body invalid on its face (400) before looking up its board (404)', async () => {
      const before = await postCount();
      const answer = await api.post('/api/v1/posts', { board: 'no-such-board', title: 'A fine title', author: {} });
      expectError(answer, 400, 'invalid_request', 'author.name: is required');
      // With a valid body, the unknown board is what is wrong.
      expectError(await api.post('/api/v1/posts', { board: 'no-such-board', title: 'A fine title' }), 404, 'not_found');
      // An email that may be known still needs the lookup: a name is then required only for a stranger.
      expectError(
        await api.post('/api/v1/posts', { board: 'ideas', title: 'A fine title', author: { email: 'stranger@x.example' } }),
        400,
        'invalid_request',
        'author.name: is required',
      );
      const known = await api.post('/api/v1/posts', { board: 'ideas', title: 'A fine title', author: { email: ws.member.email } });
      expect(known.status).toBe(201);
      expect(known.body.data.author).toEqual({ name: ws.member.name });
      expect(await postCount()).toBe(before + 1);
    });
  });

  describe('null is not "omitted" (point 5)', () => {
    it.each([
      ['category', 'a string'],
      ['body', 'a string'],
      ['author', 'an object'],
    ])('refuses %s: null on POST /posts, naming the field and its type', async (field, type) => {
      const before = await postCount();
      const answer = await api.post('/api/v1/posts', { board: 'ideas', title: 'Null is not omitted', [field]: null });
      expectError(answer, 400, 'invalid_request', `${field}: must be ${type}, not null`);
      expect(await postCount()).toBe(before);
    });

    it('refuses null kind, url and events on create, and url, events and enabled on PATCH', async () => {
      const body = { kind: 'webhook', url: 'http://127.0.0.1:9/hook', events: ['post.created'] };
      expectError(await api.post('/api/v1/webhook_endpoints', { ...body, kind: null }), 400, 'invalid_request', 'kind: must be a string, not null');
      expectError(await api.post('/api/v1/webhook_endpoints', { ...body, url: null }), 400, 'invalid_request', /^url: /);
      expectError(await api.post('/api/v1/webhook_endpoints', { ...body, events: null }), 400, 'invalid_request', /^events: /);
      const { id } = await endpoint();
      const path = `/api/v1/webhook_endpoints/${id}`;
      expectError(await api.patch(path, { url: null }), 400, 'invalid_request', 'url: must be a string, not null');
      expectError(await api.patch(path, { events: null }), 400, 'invalid_request', 'events: must be a list of event types, not null');
      expectError(await api.patch(path, { enabled: null }), 400, 'invalid_request', 'enabled: must be true or false, not null');
      const unchanged = await api.get(path);
      expect(unchanged.body.data).toMatchObject({ url: 'http://127.0.0.1:9/hook', events: ['post.created'], enabled: true });
    });
  });

  describe('query parameters (point 6)', () => {
    it.each(['constructor=1', '__proto__=1', 'prototype=x', 'foo=%00', 'bar=%ED%A0%80', 'limit=2&hasOwnProperty=3'])(
      'ignores the unknown parameter in ?%s',
      async (query) => {
        const answer = await api.get(`/api/v1/posts?${query}`);
        expect(answer.status).toBe(200);
        expect(Array.isArray(answer.body.data)).toBe(true);
      },
    );

    it('still refuses NUL in the parameters it reads, and checks them as before', async () => {
      expectError(await api.get('/api/v1/posts?q=%00&constructor=1'), 400, 'invalid_request', 'q: must not contain NUL characters');
      expectError(await api.get('/api/v1/posts?limit=0&foo=%00'), 400, 'invalid_request', 'limit: must be an integer from 1 to 100');
      const { id } = await endpoint();
      expect((await api.get(`/api/v1/webhook_endpoints/${id}/deliveries?constructor=1&x=%00`)).status).toBe(200);
    });
  });

  describe('unknown body fields on rotate_secret and retry (point 7)', () => {
    it('refuses {"foo":1} on rotate_secret and keeps the secret; no body or {} still rotates', async () => {
      const created = await endpoint();
      const path = `/api/v1/webhook_endpoints/${created.id}/rotate_secret`;
      expectError(await api.post(path, { foo: 1 }), 400, 'invalid_request', 'foo: is not allowed');
      expectError(await api.post(path, { foo: 1, bar: 2 }), 400, 'invalid_request', 'foo: is not allowed; bar: is not allowed');
      const [row] = await t.db.query(`SELECT secret_sealed FROM webhook_endpoints WHERE id = $1`, [created.id]);
      const bare = await api.post(path);
      expect(bare.status).toBe(200);
      const empty = await api.post(path, {});
      expect(empty.status).toBe(200);
      expect(empty.body.data.secret).not.toBe(bare.body.data.secret);
      const [after] = await t.db.query(`SELECT secret_sealed FROM webhook_endpoints WHERE id = $1`, [created.id]);
      expect(after.secret_sealed).not.toBe(row.secret_sealed);
    });

    it('refuses {"foo":1} on a delivery retry, and answers a bodiless retry', async () => {
      // No processor runs in this file; holding the lock keeps other files' processors (which
      // claim any workspace's events) from fanning this post out while the test writes its delivery.
      const release = await holdProcessorLock();
      try {
        await retryWithAndWithoutBody();
      } finally {
        await release();
      }
    });

    async function retryWithAndWithoutBody() {
      const created = await endpoint();
      const post = await api.post('/api/v1/posts', { board: 'ideas', title: 'A post to deliver' });
      expect(post.status).toBe(201);
      // A delivery of this endpoint, written as the outbox writes them.
      const [event] = await t.db.query(
        `SELECT id, created_at FROM outbox_events WHERE workspace_id = $1 ORDER BY created_at DESC LIMIT 1`,
        [ws.id],
      );
      const [delivery] = await t.db.query(
        `INSERT INTO webhook_deliveries (workspace_id, id, endpoint_id, event_id, event_type, event_created_at, body, status, reason)
         VALUES ($1, gen_random_uuid(), $2, $3, 'post.created', $4, '{}', 'failed', 'retries_exhausted') RETURNING id`,
        [ws.id, created.id, event.id, event.created_at],
      );
      const path = `/api/v1/deliveries/${delivery.id}/retry`;
      expectError(await api.post(path, { foo: 1 }), 400, 'invalid_request', 'foo: is not allowed');
      const [still] = await t.db.query(`SELECT status FROM webhook_deliveries WHERE id = $1`, [delivery.id]);
      expect(still.status).toBe('failed');
      const retried = await api.post(path);
      expect(retried.status).toBe(200);
      expect(retried.body.data).toMatchObject({ id: delivery.id, status: 'pending' });
      await t.db.query(`UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE id = $1`, [delivery.id]);
    }
  });

  describe('error messages name something the caller can act on (point 9)', () => {
    it('names the path post of a merge that was merged already, and the post to merge instead', async () => {
      const ids: number[] = [];
      for (const title of ['Merge source', 'Merge target', 'Another target']) {
        ids.push((await api.post('/api/v1/posts', { board: 'ideas', title })).body.data.id);
      }
      expect((await api.post(`/api/v1/posts/${ids[0]}/merge`, { into: ids[1] })).status).toBe(200);
      expectError(
        await api.post(`/api/v1/posts/${ids[0]}/merge`, { into: ids[2] }),
        400,
        'invalid_request',
        `path: post ${ids[0]} is already merged into post ${ids[1]}; merge post ${ids[1]} instead`,
      );
    });

    it('names the path endpoint when it has no signing secret to rotate', async () => {
      const slack = await endpoint('slack');
      expectError(
        await api.post(`/api/v1/webhook_endpoints/${slack.id}/rotate_secret`),
        400,
        'invalid_request',
        `path: endpoint ${slack.id} is a slack endpoint; only webhook endpoints have a signing secret`,
      );
    });
  });
});

/** Webhooks as a receiver sees them. */
describe('deliveries, exactly as documented', () => {
  let release: () => Promise<void>;
  let receiver: Receiver;
  const apps: TestApp[] = [];
  const workspaces: string[] = [];

  beforeAll(async () => {
    release = await holdProcessorLock();
    receiver = await Receiver.start();
  }, 180_000);

  // Each test starts its own processors; none outlives it (a failed test's would skew the next).
  afterEach(async () => {
    if (apps[0]) await cancelPending(apps[0].db, workspaces);
    for (const app of apps.splice(0)) await app.close();
  });

  afterAll(async () => {
    await receiver.close();
    await release?.();
  });

  async function app(runWorker: boolean): Promise<TestApp> {
    const started = await startTestApp({ RUN_WORKER: String(runWorker), WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    apps.push(started);
    return started;
  }

  async function workspace(t: TestApp) {
    const ws = await createWorkspace(t.app);
    workspaces.push(ws.id);
    const api = new Client(t.baseUrl, ws.key);
    const created = await api.post('/api/v1/webhook_endpoints', { url: `${receiver.url}/hook`, events: ['post.created'] });
    expect(created.status).toBe(201);
    return { ws, api, endpoint: created.body.data as { id: string; secret: string } };
  }

  /** The request that delivered the post with this title. */
  const deliveryOf = (title: string) =>
    until(`the delivery of "${title}"`, () => receiver.requests.find((r) => r.body?.data?.post?.title === title));

  const v1s = (header: string) => {
    const [t, ...signatures] = header.split(',');
    return { t: t.replace(/^t=/, ''), v1: signatures.map((s) => s.replace(/^v1=/, '')) };
  };
  const hmac = (secret: string, t: string, raw: Buffer) => createHmac('sha256', secret).update(`${t}.`).update(raw).digest('hex');

  it('keeps every rotated secret signing for 24 hours: one v1= per valid secret (point 3)', async () => {
    const t = await app(true);
    const { api, endpoint } = await workspace(t);
    const rotate = async () => {
      const answer = await api.post(`/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret`);
      expect(answer.status).toBe(200);
      return answer.body.data.secret as string;
    };
    const second = await rotate();
    const third = await rotate();

    expect((await api.post('/api/v1/posts', { board: 'ideas', title: 'After two rotations' })).status).toBe(201);
    const request = await deliveryOf('After two rotations');
    const signature = v1s(String(request.headers['chorus-signature']));
    expect(signature.v1).toEqual([third, second, endpoint.secret].map((secret) => hmac(secret, signature.t, request.raw)));

    // Once the first secret's 24 hours are over, it no longer signs; the second still does.
    await t.db.query(
      `UPDATE webhook_endpoints
          SET rotated_secrets = jsonb_set(rotated_secrets, '{1,expires_at}', to_jsonb(now() - interval '1 second'))
        WHERE id = $1`,
      [endpoint.id],
    );
    expect((await api.post('/api/v1/posts', { board: 'ideas', title: 'After the first expired' })).status).toBe(201);
    const later = await deliveryOf('After the first expired');
    const laterSignature = v1s(String(later.headers['chorus-signature']));
    expect(laterSignature.v1).toEqual([third, second].map((secret) => hmac(secret, laterSignature.t, later.raw)));
  });

  it('lists deliveries newest first by the event\'s time, also when fanned out together (point 12)', async () => {
    const quiet = await app(false);
    const { ws, api, endpoint } = await workspace(quiet);
    const titles = ['First of six', 'Second of six', 'Third of six', 'Fourth of six', 'Fifth of six', 'Sixth of six'];
    for (const title of titles) {
      expect((await api.post('/api/v1/posts', { board: 'ideas', title })).status).toBe(201);
      await sleep(3); // distinct event times
    }
    // No processor ran while the posts were made: the one started now fans them out in one batch.
    await app(true);
    await until('six deliveries, sent', async () => {
      const [row] = await quiet.db.query(
        `SELECT count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM webhook_deliveries WHERE workspace_id = $1`,
        [ws.id],
      );
      return row.delivered === 6;
    });
    const listed = await api.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries`);
    expect(listed.status).toBe(200);
    const bodies: { id: string; body: string }[] = await quiet.db.query(
      `SELECT id, body FROM webhook_deliveries WHERE workspace_id = $1`,
      [ws.id],
    );
    const titleOf = new Map(bodies.map((row) => [row.id, JSON.parse(row.body).data.post.title as string]));
    expect(listed.body.data.map((d: { id: string }) => titleOf.get(d.id))).toEqual([...titles].reverse());
    // Page by page, the same order.
    const pages: string[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const page: Answer = await api.get(`/api/v1/webhook_endpoints/${endpoint.id}/deliveries?limit=4&offset=${offset}`);
      pages.push(...page.body.data.map((d: { id: string }) => titleOf.get(d.id)!));
      offset = page.body.next_offset;
    }
    expect(pages).toEqual([...titles].reverse());
  });
});
