import type { IncomingMessage, ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client, expectError } from './support/http';
import { startTestApp, TestApp } from './support/test-app';

// V8's own answer to "do these two objects have the same hidden class?" (%HaveSameMap).
setFlagsFromString('--allow-natives-syntax');
const haveSameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;

describe('requests and responses born with Express prototypes (ChorusExpressAdapter)', () => {
  let t: TestApp;
  let ws: TestWorkspace;
  let api: Client;
  let express: { request: object; response: object };
  const seen: { req: IncomingMessage; res: ServerResponse; protoAtArrival: [boolean, boolean] }[] = [];

  beforeAll(async () => {
    t = await startTestApp();
    ws = await createWorkspace(t.app);
    api = new Client(t.baseUrl, ws.key);
    express = t.app.getHttpAdapter().getInstance();
    // Before Express sees them: the prototypes they were constructed with.
    t.app.getHttpServer().prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      seen.push({ req, res, protoAtArrival: [Object.getPrototypeOf(req) === express.request, Object.getPrototypeOf(res) === express.response] });
    });
  });
  afterAll(() => t.close());

  it('arrive with the prototypes Express gives them, which still carry Express and Node', async () => {
    const answer = await api.get('/api/v1/posts?limit=1');
    expect(answer.status).toBe(200);
    const { req, res, protoAtArrival } = seen.at(-1)!;
    expect(protoAtArrival).toEqual([true, true]);
    expect((req as unknown as { app: unknown }).app).toBe(express);
    expect((res as unknown as { app: unknown }).app).toBe(express);
    expect(typeof (req as unknown as { get: unknown }).get).toBe('function'); // Express's request
    expect(typeof (res as unknown as { status: unknown }).status).toBe('function'); // Express's response
    expect(req.headers.authorization).toBe(`Bearer ${ws.key}`); // Node's request
    expect(res.getHeader('request-id')).toMatch(/^req_/);
  });

  it('answers through Express as before: errors, bad JSON and unknown routes', async () => {
    expectError(await api.post('/api/v1/posts', { board: 'ideas' }), 400, 'invalid_request', 'title: is required');
    const bad = await fetch(`${t.baseUrl}/api/v1/posts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ws.key}`, 'Content-Type': 'application/json' },
      body: '{"title": ',
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
    expectError(await api.get('/api/v1/nothing-here'), 404, 'not_found');
  });

  it('keeps one hidden class for the same request, so property accesses stay cached', async () => {
    for (let i = 0; i < 3; i++) expect((await api.get('/api/v1/posts?limit=2')).status).toBe(200);
    const [a, b] = seen.slice(-2);
    // Express's Object.setPrototypeOf on an object that already has fields used to give each
    // request and response a map of its own, and every field added later a new one.
    expect(haveSameMap(a.req, b.req)).toBe(true);
    expect(haveSameMap(a.res, b.res)).toBe(true);
  });
});
