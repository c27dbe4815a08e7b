import { SkipThrottle } from '@nestjs/throttler';
import Redis from 'ioredis';
import { SKIP_DEFAULT } from '../src/rate-limit/workspace-throttler.guard';
import { WorkspacesService } from '../src/workspaces/workspaces.service';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Answer, Client, getFrom } from './support/http';
import { OwnRedis, redisServerInstalled, sharedRedisUrl } from './support/redis';
import { startTestApp, TestApp } from './support/test-app';

/**
 * Counting tests use a window long enough that a slow, loaded machine still sends every
 * request inside it; the tests that wait for the window to pass use a short one.
 */
const WINDOW_MS = 30_000;
const SHORT_WINDOW_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `n` requests one after another; returns their statuses. */
async function burst(api: Client, n: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < n; i++) answers.push(await api.get('/api/v1/boards'));
  return answers;
}

const statuses = (answers: Answer[]) => answers.map((a) => a.status);
const count = (answers: Answer[], status: number) => answers.filter((a) => a.status === status).length;

function expectRateLimited(answer: Answer, limit: number, windowMs = WINDOW_MS) {
  expect(answer.status).toBe(429);
  expect(answer.body.error.code).toBe('rate_limited');
  const retryAfter = Number(answer.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
  expect(answer.headers.get('x-ratelimit-limit')).toBe(String(limit));
  expect(answer.headers.get('x-ratelimit-remaining')).toBe('0');
  return retryAfter;
}

/** The per-workspace limits, with the counters in `redisUrl` (or in process when null). */
function workspaceLimits(redisUrl: string | null) {
  let t: TestApp;
  let short: TestApp;
  const redis: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl } : {};

  beforeAll(async () => {
    t = await startTestApp({ RATE_LIMIT_WINDOW_MS: String(WINDOW_MS), ...redis });
    short = await startTestApp({ RATE_LIMIT_WINDOW_MS: String(SHORT_WINDOW_MS), ...redis });
  });
  afterAll(() => Promise.all([t.close(), short.close()]));

  it('gives a pro workspace exactly 60 answers, then 429 with Retry-After', async () => {
    const ws = await createWorkspace(t.app);
    const api = new Client(t.baseUrl, ws.key);
    const answers = await burst(api, 63);
    expect(statuses(answers.slice(0, 60))).toEqual(Array(60).fill(200));
    expect(answers[0].headers.get('x-ratelimit-limit')).toBe('60');
    expect(answers[0].headers.get('x-ratelimit-remaining')).toBe('59');
    expect(answers[59].headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(answers[0].headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000));
    expect(reset).toBeLessThanOrEqual(Math.ceil((Date.now() + WINDOW_MS) / 1000) + 1);
    answers.slice(60).forEach((a) => expectRateLimited(a, 60));
  });

  it('accepts requests again once Retry-After has passed', async () => {
    const ws = await createWorkspace(short.app);
    const api = new Client(short.baseUrl, ws.key);
    expect(count(await burst(api, 60), 200)).toBe(60);
    const retryAfter = expectRateLimited(await api.get('/api/v1/boards'), 60, SHORT_WINDOW_MS);
    await sleep(retryAfter * 1000 + 100);
    expect((await api.get('/api/v1/boards')).status).toBe(200);
  });

  it('gives a business workspace exactly 300 answers', async () => {
    const ws = await createWorkspace(t.app, { plan: 'business' });
    const answers = await burst(new Client(t.baseUrl, ws.key), 302);
    expect(count(answers.slice(0, 300), 200)).toBe(300);
    answers.slice(300).forEach((a) => expectRateLimited(a, 300));
  });

  it('keeps one budget per workspace', async () => {
    const [a, b] = [await createWorkspace(t.app), await createWorkspace(t.app)];
    expect(count(await burst(new Client(t.baseUrl, a.key), 61), 200)).toBe(60);
    const bAnswers = await burst(new Client(t.baseUrl, b.key), 60);
    expect(count(bAnswers, 200)).toBe(60);
  });

  it('answers 401 and 403 before 429, and does not count refused requests', async () => {
    const ws = await createWorkspace(short.app);
    const api = new Client(short.baseUrl, ws.key);
    expect(count(await burst(api, 60), 200)).toBe(60);
    expectRateLimited(await api.get('/api/v1/boards'), 60, SHORT_WINDOW_MS);
    expect((await api.get('/api/v1/boards', { key: 'chorus_key_wrong' })).status).toBe(401);
    await short.app.get(WorkspacesService).setPlan(ws.slug, 'free');
    expect((await api.get('/api/v1/boards')).status).toBe(403);
    await short.app.get(WorkspacesService).setPlan(ws.slug, 'pro');
    // The 429s above were not counted: once the 60 counted requests leave the window, all 60 are free.
    await sleep(SHORT_WINDOW_MS + 100);
    expect(count(await burst(api, 61), 200)).toBe(60);
  });

  it('applies a plan change at the next request, without a restart', async () => {
    const ws = await createWorkspace(t.app);
    const api = new Client(t.baseUrl, ws.key);
    expect(count(await burst(api, 61), 200)).toBe(60);
    await t.app.get(WorkspacesService).setPlan(ws.slug, 'business');
    const answer = await api.get('/api/v1/boards');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('300');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('239');
  });

  it('puts the headers on error answers after authentication too', async () => {
    const ws = await createWorkspace(t.app);
    const answer = await new Client(t.baseUrl, ws.key).get('/api/v1/posts/999999999');
    expect(answer.status).toBe(404);
    expect(answer.headers.get('x-ratelimit-limit')).toBe('60');
    expect(answer.headers.get('x-ratelimit-remaining')).toBe('59');
  });
}

describe('rate limits counted in process (no REDIS_URL)', () => workspaceLimits(null));

const withRedis = sharedRedisUrl() ? describe : describe.skip;

withRedis('rate limits in the shared Redis', () => {
  workspaceLimits(sharedRedisUrl());

  it('holds across two application instances: together they accept exactly the plan limit', async () => {
    const env = { REDIS_URL: sharedRedisUrl()!, RATE_LIMIT_WINDOW_MS: String(WINDOW_MS) };
    const [one, two] = [await startTestApp(env), await startTestApp(env)];
    try {
      const ws = await createWorkspace(one.app);
      const clients = [new Client(one.baseUrl, ws.key), new Client(two.baseUrl, ws.key)];
      const answers: Answer[] = [];
      for (let i = 0; i < 70; i++) answers.push(await clients[i % 2].get('/api/v1/boards'));
      expect(count(answers, 200)).toBe(60);
      expect(count(answers, 429)).toBe(10);
      expect(statuses(answers.slice(0, 60))).toEqual(Array(60).fill(200));
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

const withOwnRedis = redisServerInstalled() ? describe : describe.skip;

withOwnRedis('when Redis goes away (a redis-server of this test, stopped mid-test)', () => {
  let redis: OwnRedis;
  let one: TestApp;
  let two: TestApp;
  let probe: Redis;

  beforeAll(async () => {
    redis = await OwnRedis.start();
    const env = { REDIS_URL: redis.url, RATE_LIMIT_WINDOW_MS: '60000' };
    [one, two] = [await startTestApp(env), await startTestApp(env)];
    probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    probe.disconnect();
    await Promise.all([one.close(), two.close()]);
    await redis.stop();
  });

  /** Makes requests on both instances until both count in Redis again (reconnection is retried every ≤2 s). */
  async function untilCountingInRedis(ws: TestWorkspace) {
    await probe.connect().catch(() => {});
    for (let tries = 0; tries < 50; tries++) {
      await probe.del(`chorus:rl:{ws:${ws.id}}`);
      await new Client(one.baseUrl, ws.key).get('/api/v1/boards');
      await new Client(two.baseUrl, ws.key).get('/api/v1/boards');
      if ((await probe.zcard(`chorus:rl:{ws:${ws.id}}`)) === 2) return;
      await sleep(200);
    }
    throw new Error('the instances did not go back to Redis');
  }

  async function sharedExactly(ws: TestWorkspace) {
    const clients = [new Client(one.baseUrl, ws.key), new Client(two.baseUrl, ws.key)];
    const answers: Answer[] = [];
    for (let i = 0; i < 64; i++) answers.push(await clients[i % 2].get('/api/v1/boards'));
    return count(answers, 200);
  }

  it('keeps serving, counting per instance, and shares the limit again once Redis is back', async () => {
    expect(await sharedExactly(await createWorkspace(one.app))).toBe(60);

    await redis.stop();
    const ws = await createWorkspace(one.app);
    const down = await burst(new Client(one.baseUrl, ws.key), 62);
    expect(count(down, 500)).toBe(0);
    // Each instance now counts on its own: the limit still holds per instance.
    expect(count(down, 200)).toBe(60);
    expect(count(down, 429)).toBe(2);
    expect((await new Client(two.baseUrl, ws.key).get('/api/v1/boards')).status).toBe(200);

    await redis.resume();
    const back = await createWorkspace(one.app);
    await untilCountingInRedis(back);
    expect(await sharedExactly(await createWorkspace(one.app))).toBe(60);
  });
});

describe('failed authentication, per client address', () => {
  let t: TestApp;
  let ws: TestWorkspace;

  beforeAll(async () => {
    t = await startTestApp({ AUTH_FAILURE_LIMIT: '5', RATE_LIMIT_WINDOW_MS: String(SHORT_WINDOW_MS) });
    ws = await createWorkspace(t.app);
  });
  afterAll(() => t.close());

  it('answers 429 to an address after 5 wrong keys, while a good key from another address works', async () => {
    const url = `${t.baseUrl}/api/v1/boards`;
    const guesses = [];
    for (let i = 0; i < 8; i++) {
      guesses.push(await getFrom('127.0.0.7', url, { authorization: `Bearer chorus_key_guess${i}` }));
    }
    expect(guesses.map((g) => g.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(Number(guesses[5].headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(guesses[5].body.error.code).toBe('rate_limited');
    expect((await getFrom('127.0.0.7', url, {})).status).toBe(429); // no key at all is a failure too

    // Another address is unaffected.
    expect((await getFrom('127.0.0.8', url, { authorization: `Bearer ${ws.key}` })).status).toBe(200);
    expect((await getFrom('127.0.0.8', url, { authorization: 'Bearer chorus_key_once' })).status).toBe(401);

    await sleep(SHORT_WINDOW_MS + 100);
    expect((await getFrom('127.0.0.7', url, { authorization: 'Bearer chorus_key_again' })).status).toBe(401);
  });

  it('serves a valid key while its address is over the failure limit (one address behind a load balancer)', async () => {
    const url = `${t.baseUrl}/api/v1/boards`;
    for (let i = 0; i < 5; i++) await getFrom('127.0.0.9', url, { authorization: `Bearer chorus_key_wrong${i}` });
    const refused = await getFrom('127.0.0.9', url, { authorization: 'Bearer chorus_key_wrong5' });
    expect(refused.status).toBe(429);

    const good = await getFrom('127.0.0.9', url, { authorization: `Bearer ${ws.key}` });
    expect(good.status).toBe(200);
    expect(good.body.data).toEqual(expect.any(Array));
    // The good request neither counts as a failure nor lifts the limit for the wrong keys.
    expect((await getFrom('127.0.0.9', url, { authorization: 'Bearer chorus_key_wrong6' })).status).toBe(429);
  });
});

describe('@SkipThrottle()', () => {
  it("is the metadata the throttler guard looks up once per route (the key is the library's, not exported)", () => {
    class Routes {
      @SkipThrottle()
      skipped(): void {}

      counted(): void {}
    }
    expect(Reflect.getMetadata(SKIP_DEFAULT, Routes.prototype.skipped)).toBe(true);
    expect(Reflect.getMetadata(SKIP_DEFAULT, Routes.prototype.counted)).toBeUndefined();
  });
});
