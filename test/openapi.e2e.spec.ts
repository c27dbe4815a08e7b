import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv, { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { CommentsService } from '../src/comments/comments.service';
import { PostsService } from '../src/posts/posts.service';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client } from './support/http';
import { holdProcessorLock } from './support/processor-lock';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Real answers of every route, errors included, checked against the document the server
 * serves, so that the document cannot drift from the code: objects allow no undocumented
 * properties, and every documented operation must be exercised here. Error examples must be
 * errors the API really answers, and real deliveries must match the `webhooks` section.
 */
describe('the OpenAPI document', () => {
  let t: TestApp;
  let release: () => Promise<void>;
  let ws: TestWorkspace;
  let api: Client;
  let document: any;
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validators = new Map<string, ValidateFunction>();
  const exercised = new Set<string>();
  /** `<status> <message>` of every error answered, ids as ID and numbers as N (429's counts and seconds). */
  const answeredErrors = new Set<string>();
  const errorKey = (status: number | string, message: string) =>
    `${status} ${message.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, 'ID').replace(/\d+/g, 'N')}`;
  let receiver: Server;
  let receiverUrl: string;
  /** What an own server that answers 204 received. */
  const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
  let okReceiver: Server;
  let okReceiverUrl: string;

  beforeAll(async () => {
    release = await holdProcessorLock();
    t = await startTestApp({
      RUN_WORKER: 'true',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '100ms',
      WEBHOOK_TIMEOUT_MS: '1000',
    });
    ws = await createWorkspace(t.app);
    // Business allows 300 requests a minute: the polls below stay clear of the limit on a slow machine.
    await t.app.get(WorkspacesService).setPlan(ws.slug, 'business');
    api = new Client(t.baseUrl, ws.key);
    const served = await api.get('/api/v1/openapi.json', { key: null });
    expect(served.status).toBe(200);
    document = served.body;
    ajv.addSchema({ components: document.components }, 'openapi');
    receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(500).end('down'));
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    okReceiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => okReceiver.listen(0, '127.0.0.1', resolve));
    okReceiverUrl = `http://127.0.0.1:${(okReceiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await new Promise((resolve) => okReceiver.close(resolve));
    await new Promise((resolve) => receiver.close(resolve));
    await t.close();
    await release();
  });

  /** The operation of the document that serves `method path`, as `METHOD /template`. */
  function operationOf(method: string, path: string): string {
    const bare = path.split('?')[0];
    for (const template of Object.keys(document.paths)) {
      const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      if (pattern.test(bare) && document.paths[template][method.toLowerCase()]) return `${method} ${template}`;
    }
    throw new Error(`${method} ${bare} is not in the document`);
  }

  /** Checks an answer against the document: its status is documented, and its body matches. */
  function conforms(method: string, path: string, answer: Answer): Answer {
    const key = operationOf(method, path);
    exercised.add(key);
    const [, template] = key.split(' ');
    const response = document.paths[template][method.toLowerCase()].responses[String(answer.status)];
    if (!response) throw new Error(`${key} answered ${answer.status}, which the document does not list`);
    const schema = response.content?.['application/json']?.schema;
    if (answer.status >= 400) {
      const examples = Object.values(response.content['application/json'].examples ?? {}) as any[];
      const codes = examples.map((example) => example.value.error.code);
      if (!codes.includes(answer.body?.error?.code)) {
        throw new Error(`${key} answered ${answer.status} ${answer.body?.error?.code}, but its examples are ${codes.join(', ')}`);
      }
      answeredErrors.add(errorKey(answer.status, answer.body.error.message));
    }
    if (!schema) {
      // A body of another type (the export's gzipped tar) is of a type the document names.
      const types = Object.keys(response.content ?? {});
      if (types.length > 0) expect(types).toContain(answer.headers.get('content-type'));
      else expect(answer.text).toBe('');
      return answer;
    }
    const id = `${key} ${answer.status}`;
    if (!validators.has(id)) {
      const rooted = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
      validators.set(id, ajv.compile(rooted));
    }
    const validate = validators.get(id)!;
    if (!validate(answer.body)) {
      throw new Error(`${id}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(answer.body).slice(0, 600)}`);
    }
    return answer;
  }

  const call = async (method: string, path: string, body?: unknown, key: string | null | undefined = undefined) =>
    conforms(method, path, await api.request(method, path, { body, key }));

  it('describes every route of the API, and nothing answers outside it', async () => {
    // Boards
    expect((await call('GET', '/api/v1/boards')).status).toBe(200);

    // Posts
    const created = await call('POST', '/api/v1/posts', { board: 'ideas', title: 'Documented post', author: { name: 'Dee' } });
    expect(created.status).toBe(201);
    const post = created.body.data;
    const other = (await call('POST', '/api/v1/posts', { board: 'secret', title: 'Another documented post' })).body.data;
    expect((await call('GET', '/api/v1/posts?limit=1&sort=top')).body.has_more).toBe(true);
    expect((await call('GET', '/api/v1/posts?q=documented&include_merged=true')).status).toBe(200);
    expect((await call('GET', `/api/v1/posts/${post.id}`)).status).toBe(200);
    expect((await call('GET', '/api/v1/posts/similar?board=ideas&title=Documented%20posts')).body.data[0].similarity).toBeGreaterThanOrEqual(0.3);
    expect((await call('GET', '/api/v1/posts/similar?title=Documented')).status).toBe(400);
    expect((await call('GET', '/api/v1/posts/similar?board=ideas')).status).toBe(400);
    expect((await call('GET', '/api/v1/posts/similar?board=nope&title=Documented')).status).toBe(404);
    expect((await call('PATCH', `/api/v1/posts/${post.id}`, { status: 'planned' })).status).toBe(200);
    expect((await call('POST', `/api/v1/posts/${other.id}/merge`, { into: post.id })).body.data.merged_into.id).toBe(post.id);

    // Comments
    expect((await call('POST', `/api/v1/posts/${post.id}/comments`, { body: 'Thanks!' })).status).toBe(201);
    expect((await call('GET', `/api/v1/posts/${post.id}/comments`)).body.data).toHaveLength(1);

    // Moderation: any state to any, the same again unchanged; the queue.
    const comment = (await call('GET', `/api/v1/posts/${post.id}/comments`)).body.data[0];
    expect((await call('POST', `/api/v1/comments/${comment.id}/reject`)).body.data.moderation).toBe('rejected');
    expect((await call('POST', `/api/v1/comments/${comment.id}/approve`)).body.data.moderation).toBe('approved');
    expect((await call('POST', `/api/v1/posts/${other.id}/reject`)).body.data.moderation).toBe('rejected');
    expect((await call('GET', '/api/v1/posts?moderation=rejected&include_merged=true')).body.data.map((p: { id: number }) => p.id)).toEqual([other.id]);
    expect((await call('POST', `/api/v1/posts/${other.id}/approve`)).body.data.moderation).toBe('approved');
    expect((await call('GET', '/api/v1/moderation?limit=1')).body.data).toEqual([]);

    // Votes
    expect((await call('POST', `/api/v1/posts/${post.id}/votes`, { voter: { name: 'Vic', email: 'vic@doc.example' } })).status).toBe(201);
    expect((await call('POST', `/api/v1/posts/${post.id}/votes`, { voter: { email: 'vic@doc.example' } })).status).toBe(200);
    expect((await call('GET', `/api/v1/posts/${post.id}/votes?limit=1`)).body.has_more).toBe(true);
    expect((await call('DELETE', `/api/v1/posts/${post.id}/votes`, { voter: { email: 'vic@doc.example' } })).status).toBe(204);

    // Changelog
    const entry = (await call('POST', '/api/v1/changelog', { title: 'Documented entry', body: '**Bold**', type: 'new', post_ids: [post.id] })).body.data;
    expect(entry.state).toBe('draft');
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect((await call('PATCH', `/api/v1/changelog/${entry.id}`, { publish_at: later })).body.data.state).toBe('scheduled');
    expect((await call('GET', `/api/v1/changelog/${entry.id}`)).body.data.posts).toHaveLength(1);
    expect((await call('POST', `/api/v1/changelog/${entry.id}/publish`)).body.data.state).toBe('published');
    expect((await call('GET', '/api/v1/changelog?state=published&limit=1')).body.data).toHaveLength(1);
    expect((await call('DELETE', `/api/v1/changelog/${entry.id}`)).status).toBe(204);

    // Endpoints and deliveries
    const endpoint = (await call('POST', '/api/v1/webhook_endpoints', { url: receiverUrl, events: ['post.created'] })).body.data;
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await call('GET', '/api/v1/webhook_endpoints')).status).toBe(200);
    expect((await call('GET', `/api/v1/webhook_endpoints/${endpoint.id}`)).status).toBe(200);
    expect((await call('POST', `/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret`)).body.data.secret).toMatch(/^whsec_/);
    await call('POST', '/api/v1/posts', { board: 'ideas', title: 'Makes a delivery' });
    let deliveries: Answer;
    for (const deadline = Date.now() + 30_000; ; ) {
      deliveries = await call('GET', `/api/v1/webhook_endpoints/${endpoint.id}/deliveries`);
      if (deliveries.body.data[0]?.status === 'failed') break;
      if (Date.now() > deadline) throw new Error('the delivery did not fail in time');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(deliveries.body.data[0].attempts.length).toBe(2);
    expect((await call('GET', `/api/v1/deliveries?channel=webhook&endpoint_id=${endpoint.id}`)).body.data).toHaveLength(1);
    const retried = await call('POST', `/api/v1/deliveries/${deliveries.body.data[0].id}/retry`);
    expect(retried.body.data.status).toBe('pending');
    const tested = await call('POST', `/api/v1/webhook_endpoints/${endpoint.id}/test`);
    expect(tested.body.data).toMatchObject({ event_type: 'ping', status: 'failed' });
    const since = new Date(Date.now() - 60_000).toISOString();
    expect((await call('POST', `/api/v1/webhook_endpoints/${endpoint.id}/recover`, { since })).body.data.scheduled).toBeGreaterThanOrEqual(0);
    expect((await call('PATCH', `/api/v1/webhook_endpoints/${endpoint.id}`, { enabled: false })).body.data.enabled).toBe(false);
    expect((await call('POST', `/api/v1/deliveries/${deliveries.body.data[0].id}/retry`)).status).toBe(409);
    expect((await call('POST', `/api/v1/webhook_endpoints/${endpoint.id}/recover`, { since })).status).toBe(409);
    expect((await call('POST', `/api/v1/webhook_endpoints/${endpoint.id}/recover`, { since: 'then' })).status).toBe(400);
    expect((await call('DELETE', `/api/v1/webhook_endpoints/${endpoint.id}`)).status).toBe(204);

    // Export: the business workspace's archive; a Pro workspace is refused.
    expect((await call('GET', '/api/v1/export')).status).toBe(200);
    const pro = await createWorkspace(t.app);
    expect((await call('GET', '/api/v1/export', undefined, pro.key)).status).toBe(403);

    const documented = Object.entries(document.paths).flatMap(([template, item]: [string, any]) =>
      Object.keys(item).map((method) => `${method.toUpperCase()} ${template}`),
    );
    expect([...exercised].sort()).toEqual(documented.sort());
  });

  it('describes the errors as they are answered', async () => {
    const post = (await call('POST', '/api/v1/posts', { board: 'ideas', title: 'Errors post' })).body.data;
    expect((await call('GET', '/api/v1/boards', undefined, null)).status).toBe(401);
    expect((await call('GET', '/api/v1/boards', undefined, 'chorus_key_wrong')).status).toBe(401);
    expect((await call('POST', '/api/v1/posts', { board: 'ideas', title: 'x' })).status).toBe(400);
    expect((await call('GET', '/api/v1/posts?limit=0')).status).toBe(400);
    expect((await call('GET', '/api/v1/posts?board=nope')).status).toBe(404);
    expect((await call('GET', '/api/v1/posts/999999999')).status).toBe(404);
    expect((await call('PATCH', `/api/v1/posts/${post.id}`, { status: 'nope' })).status).toBe(400);
    expect((await call('POST', `/api/v1/posts/${post.id}/merge`, { into: post.id })).status).toBe(400);
    expect((await call('POST', `/api/v1/posts/${post.id}/comments`, { body: '' })).status).toBe(400);
    expect((await call('GET', '/api/v1/posts/999999999/comments')).status).toBe(404);
    expect((await call('GET', '/api/v1/posts/999999999/votes')).status).toBe(404);
    expect((await call('GET', '/api/v1/moderation?limit=0')).status).toBe(400);
    for (const action of ['approve', 'reject']) {
      expect((await call('POST', `/api/v1/posts/999999999/${action}`)).status).toBe(404);
      expect((await call('POST', `/api/v1/comments/999999999/${action}`)).status).toBe(404);
    }
    expect((await call('POST', `/api/v1/posts/${post.id}/votes`, { voter: {} })).status).toBe(400);
    expect((await call('DELETE', `/api/v1/posts/${post.id}/votes`, { voter: { name: 'No email' } })).status).toBe(400);
    expect((await call('POST', '/api/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000/test')).status).toBe(404);
    expect((await call('GET', '/api/v1/changelog?state=gone')).status).toBe(400);
    expect((await call('POST', '/api/v1/changelog', { title: 'Bad links', type: 'new', post_ids: [999999999] })).status).toBe(400);
    expect((await call('GET', '/api/v1/changelog/999999999')).status).toBe(404);
    expect((await call('PATCH', '/api/v1/changelog/999999999', { title: 'Nothing here' })).status).toBe(404);
    expect((await call('DELETE', '/api/v1/changelog/999999999')).status).toBe(404);
    expect((await call('POST', '/api/v1/changelog/999999999/publish')).status).toBe(404);
    const draft = (await call('POST', '/api/v1/changelog', { title: 'Errors entry', type: 'fixed' })).body.data;
    expect((await call('PATCH', `/api/v1/changelog/${draft.id}`, { type: 'shiny' })).status).toBe(400);
    // Idempotency-Key: the key with another body; the key while its first request still runs
    // (marked as running again, as another instance's request would be).
    const key = `openapi-${Date.now()}`;
    const keyed = async (body: unknown) =>
      conforms('POST', `/api/v1/posts/${post.id}/comments`, await api.request('POST', `/api/v1/posts/${post.id}/comments`, { body, headers: { 'idempotency-key': key } }));
    expect((await keyed({ body: 'Once only' })).status).toBe(201);
    expect((await keyed({ body: 'Another body' })).status).toBe(400);
    await t.db.query(
      `UPDATE idempotency_keys SET state = 'in_flight', status_code = NULL, response_body = NULL, locked_until = now() + interval '1 minute' WHERE workspace_id = $1 AND key = $2`,
      [ws.id, key],
    );
    expect((await keyed({ body: 'Once only' })).status).toBe(409);
    expect((await call('POST', '/api/v1/webhook_endpoints', { url: 'ftp://x', events: [] })).status).toBe(400);
    expect((await call('POST', '/api/v1/webhook_endpoints', { url: receiverUrl, events: [] })).status).toBe(400);
    const chat = await call('POST', '/api/v1/webhook_endpoints', { kind: 'slack', url: receiverUrl, events: ['post.created'] });
    expect(chat.body.data).not.toHaveProperty('secret');
    expect((await call('PATCH', `/api/v1/webhook_endpoints/${chat.body.data.id}`, { enabled: 'yes' })).status).toBe(400);
    expect((await call('POST', `/api/v1/webhook_endpoints/${chat.body.data.id}/rotate_secret`)).status).toBe(400);
    expect((await call('DELETE', `/api/v1/webhook_endpoints/${chat.body.data.id}`)).status).toBe(204);
    expect((await call('GET', '/api/v1/webhook_endpoints/not-a-uuid')).status).toBe(404);
    expect((await call('GET', '/api/v1/webhook_endpoints/00000000-0000-4000-8000-000000000000/deliveries')).status).toBe(404);
    expect((await call('POST', '/api/v1/deliveries/00000000-0000-4000-8000-000000000000/retry')).status).toBe(404);
    expect((await call('GET', '/api/v1/deliveries?channel=nope')).status).toBe(400);
    expect((await call('GET', '/api/v1/deliveries?endpoint_id=00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const invalidJson = await api.request('POST', '/api/v1/posts', { raw: '{', headers: { 'content-type': 'application/json' } });
    expect(conforms('POST', '/api/v1/posts', invalidJson).body.error.code).toBe('invalid_json');
    const tooLarge = await api.post('/api/v1/posts', { board: 'ideas', title: 'Big', body: 'x'.repeat(300_000) });
    expect(conforms('POST', '/api/v1/posts', tooLarge).status).toBe(413);

    const free = await createWorkspace(t.app, { plan: 'free' });
    expect((await call('GET', '/api/v1/boards', undefined, free.key)).status).toBe(403);
    const full = await createWorkspace(t.app);
    for (let i = 0; i < 5; i++) {
      const made = await call('POST', '/api/v1/webhook_endpoints', { url: receiverUrl, events: ['comment.created'] }, full.key);
      expect(made.status).toBe(201);
    }
    const sixth = await call('POST', '/api/v1/webhook_endpoints', { url: receiverUrl, events: ['comment.created'] }, full.key);
    expect(sixth.status).toBe(403);

    const busy = await createWorkspace(t.app);
    await t.app.get(WorkspacesService).setPlan(busy.slug, 'pro');
    let limited: Answer | undefined;
    for (let i = 0; i < 61; i++) limited = await call('GET', '/api/v1/boards', undefined, busy.key);
    expect(limited!.status).toBe(429);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('gives as examples only errors the API really answers', () => {
    const examples = Object.values(document.paths).flatMap((item: any) =>
      Object.values(item).flatMap((operation: any) =>
        Object.entries(operation.responses)
          // A 500 or a 503 (statement timeout) cannot be caused from outside; their messages are the error filter's.
          .filter(([status]) => Number(status) >= 400 && status !== '500' && status !== '503')
          .flatMap(([status, response]: [string, any]) =>
            Object.values(response.content['application/json'].examples).map((example: any) =>
              errorKey(status, example.value.error.message),
            ),
          ),
      ),
    );
    expect(examples.length).toBeGreaterThan(20);
    expect([...new Set(examples)].filter((example) => !answeredErrors.has(example))).toEqual([]);
  });

  it('describes the webhooks as they are delivered', async () => {
    const types = Object.keys(document.webhooks).filter((type) => type !== 'ping'); // a ping is sent on request, not subscribed to
    expect(types).toEqual(expect.arrayContaining(['post.created', 'post.status_changed', 'comment.created', 'post.voted', 'changelog.published']));
    const hooked = await createWorkspace(t.app);
    await t.app.get(WorkspacesService).setModeration(hooked.slug, 'all');
    const endpoint = await api.post('/api/v1/webhook_endpoints', { url: okReceiverUrl, events: types }, { key: hooked.key });
    expect(endpoint.status).toBe(201);
    const as = { key: hooked.key };
    const board = (await api.get('/api/v1/boards', as)).body.data[0].slug;
    const post = (await api.post('/api/v1/posts', { board, title: 'Delivered post' }, as)).body.data;
    const other = (await api.post('/api/v1/posts', { board, title: 'Delivered duplicate' }, as)).body.data;
    expect((await api.patch(`/api/v1/posts/${post.id}`, { status: 'planned' }, as)).status).toBe(200);
    expect((await api.post(`/api/v1/posts/${other.id}/merge`, { into: post.id }, as)).status).toBe(200);
    expect((await api.post(`/api/v1/posts/${post.id}/comments`, { body: 'Delivered reply' }, as)).status).toBe(201);
    const entry = { title: 'Delivered entry', type: 'improved', post_ids: [post.id], publish_at: new Date().toISOString() };
    expect((await api.post('/api/v1/changelog', entry, as)).status).toBe(201);
    // A visitor's post and comment, held (the site's and the widget's way in).
    const visitor = await t.app.get(WorkspacesService).addPerson(hooked.id, { kind: 'user', name: 'Held Visitor', email: `held@${hooked.slug}.example` });
    const visitorActor = { workspaceId: hooked.id, workspaceSlug: hooked.slug, personId: visitor.id };
    const held = await t.app.get(PostsService).create(visitorActor, { board, title: 'Held for review' }, { visitor: true });
    expect(held.moderation).toBe('pending');
    await t.app.get(CommentsService).create(visitorActor, post.id, { body: 'Held reply', authorId: visitor.id, visitor: true });
    for (const deadline = Date.now() + 30_000; received.length < 8; ) {
      if (Date.now() > deadline) throw new Error(`only ${received.length} of 8 deliveries arrived`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = new Set<string>();
    for (const delivery of received) {
      const body = JSON.parse(delivery.body);
      const operation = document.webhooks[body.type]?.post;
      if (!operation) throw new Error(`${body.type} arrived, but the document has no webhook for it`);
      const id = `webhook ${body.type}`;
      if (!validators.has(id)) {
        const schema = operation.requestBody.content['application/json'].schema;
        validators.set(id, ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'))));
      }
      const validate = validators.get(id)!;
      // A fresh parse: the validator is a type guard, and would narrow `body` to unknown.
      if (!validate(JSON.parse(delivery.body))) {
        throw new Error(`${id}: ${ajv.errorsText(validate.errors)}\n${delivery.body.slice(0, 600)}`);
      }
      for (const header of operation.parameters) {
        const value = delivery.headers[header.name.toLowerCase()];
        expect(typeof value).toBe('string');
        if (!ajv.validate(header.schema, value)) throw new Error(`${id} ${header.name}: ${ajv.errorsText(ajv.errors)}: ${value}`);
      }
      seen.add(body.type);
      if (body.data.merged_into) expect(body.data.merged_into.id).toBe(post.id);
    }
    expect([...seen].sort()).toEqual(['changelog.published', 'comment.created', 'comment.pending', 'post.created', 'post.pending', 'post.status_changed']);
  });
});
