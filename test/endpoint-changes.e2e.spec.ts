import { Logger } from '@nestjs/common';
import { createWorkspace, TestWorkspace } from './support/factories';
import { Client } from './support/http';
import { cancelPending, holdProcessorLock } from './support/processor-lock';
import { closeReceivers, Receiver } from './support/receiver';
import { startTestApp, TestApp } from './support/test-app';
import { sleep, until } from './support/wait';

// Endpoints change while events wait and while deliveries are under way: a delivery goes to the
// endpoints as they were when the event happened, and what an attempt came to is recorded
// truthfully whatever happened to its endpoint meanwhile.

describe('deliveries while their endpoints change', () => {
  let releaseLock: () => Promise<void>;
  let api: TestApp; // no processor: events wait
  let worker: TestApp | null = null;
  const workspaces: string[] = [];

  beforeAll(async () => {
    releaseLock = await holdProcessorLock();
    api = await startTestApp({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  }, 180_000);
  afterEach(async () => {
    await cancelPending(api.db, workspaces);
    await worker?.close();
    worker = null;
    await closeReceivers();
  });
  afterAll(async () => {
    await api?.close();
    await releaseLock?.();
  });

  const startWorker = async () => {
    worker = await startTestApp({ RUN_WORKER: 'true', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms,200ms' });
  };

  async function workspace(): Promise<{ ws: TestWorkspace; client: Client }> {
    const ws = await createWorkspace(api.app);
    workspaces.push(ws.id);
    return { ws, client: new Client(api.baseUrl, ws.key) };
  }

  async function endpoint(client: Client, url: string, events = ['post.created']): Promise<string> {
    const answer = await client.post('/api/v1/webhook_endpoints', { url, events });
    expect(answer.status).toBe(201);
    return answer.body.data.id;
  }

  async function post(client: Client, title: string): Promise<number> {
    const answer = await client.post('/api/v1/posts', { board: 'ideas', title });
    expect(answer.status).toBe(201);
    return answer.body.data.id;
  }

  // Asks the API every 250 ms: at the test's 20 ms a slow retry (Citus in CI) spent the pro
  // plan's 60 requests a minute, and the next create answered 429.
  async function settledDelivery(client: Client, endpointId: string) {
    return until(
      `the delivery of ${endpointId} to settle`,
      async () => {
        const answer = await client.get(`/api/v1/webhook_endpoints/${endpointId}/deliveries`);
        expect(answer.status).toBe(200);
        const [d] = answer.body.data;
        return d && d.status !== 'pending' && d;
      },
      15_000,
      250,
    );
  }

  it('delivers to the endpoints subscribed when the event happened, however late fan-out comes', async () => {
    const { ws, client } = await workspace();
    const early = await Receiver.start();
    const late = await Receiver.start();
    const earlyId = await endpoint(client, `${early.url}/early`);
    const first = await post(client, 'Before the second endpoint');
    // After the event, before any processor saw it: a new endpoint, and the old one unsubscribed.
    const lateId = await endpoint(client, `${late.url}/late`);
    expect((await client.patch(`/api/v1/webhook_endpoints/${earlyId}`, { events: ['comment.created'] })).status).toBe(200);
    const second = await post(client, 'After both changes');

    await startWorker();
    const [toEarly] = await early.waitFor(1);
    const [toLate] = await late.waitFor(1);
    await sleep(500);
    expect(early.requests.map((r) => r.body.data.post.id)).toEqual([first]);
    expect(late.requests.map((r) => r.body.data.post.id)).toEqual([second]);
    expect(toEarly.body.data.post.id).toBe(first);
    expect(toLate.body.data.post.id).toBe(second);
    void [ws, lateId];
  });

  it('keeps a success that arrived while its endpoint was turned off, and cancels a failure', async () => {
    const { client } = await workspace();
    await startWorker();
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const good = (await Receiver.start()).answerWith(() => ({ status: 200, hold: held }));
    const bad = (await Receiver.start()).answerWith(() => ({ status: 500, hold: held }));
    const goodId = await endpoint(client, `${good.url}/good`);
    const badId = await endpoint(client, `${bad.url}/bad`);
    await post(client, 'Under way while turned off');
    await good.waitFor(1);
    await bad.waitFor(1);

    for (const id of [goodId, badId]) {
      expect((await client.patch(`/api/v1/webhook_endpoints/${id}`, { enabled: false })).status).toBe(200);
    }
    release();

    const arrived = await settledDelivery(client, goodId);
    expect(arrived).toMatchObject({ status: 'delivered', reason: null, next_attempt_at: null });
    expect(arrived.attempts).toEqual([expect.objectContaining({ status_code: 200 })]);
    const refused = await settledDelivery(client, badId);
    expect(refused).toMatchObject({ status: 'cancelled', reason: 'endpoint_disabled', next_attempt_at: null });
    expect(refused.attempts).toEqual([expect.objectContaining({ status_code: 500 })]);
    await sleep(500);
    expect(bad.requests).toHaveLength(1);
  });

  it('ends cleanly when a retried delivery’s endpoint is deleted while it is being sent', async () => {
    const { ws, client } = await workspace();
    await startWorker();
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const receiver = (await Receiver.start()).answerWith((_, index) => (index < 3 ? { status: 500 } : { status: 200, hold: held }));
      const id = await endpoint(client, `${receiver.url}/doomed`);
      await post(client, 'Fails, is retried, loses its endpoint');
      const failed = await settledDelivery(client, id);
      expect(failed).toMatchObject({ status: 'failed', reason: 'retries_exhausted' });

      expect((await client.post(`/api/v1/deliveries/${failed.id}/retry`)).status).toBe(200);
      await receiver.waitFor(4);
      expect((await client.request('DELETE', `/api/v1/webhook_endpoints/${id}`)).status).toBe(204);
      release();
      await sleep(500);

      const rows = await api.db.query(`SELECT id FROM webhook_deliveries WHERE workspace_id = $1`, [ws.id]);
      expect(rows).toEqual([]);
      expect(errors.mock.calls.map((call) => String(call[0]))).not.toContainEqual(expect.stringContaining('could not be recorded'));

      // The processor goes on as before.
      const next = await Receiver.start();
      await endpoint(client, `${next.url}/next`);
      await post(client, 'After the deletion');
      await next.waitFor(1);
    } finally {
      errors.mockRestore();
    }
  });
});
