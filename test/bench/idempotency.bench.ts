/**
 * What an `Idempotency-Key` costs a POST: creates without a key, with a fresh key (claim, run,
 * store) and replays of a stored key, in alternating rounds against the app on a fresh
 * PostgreSQL database, one request at a time. Prints medians and p95 per kind and the ratios to
 * the plain create. `BENCH_ROUNDS` (5) rounds of `BENCH_REQUESTS` (100) requests of each kind.
 */
import type { AddressInfo } from 'node:net';
import { ApiKeysService } from '../../src/auth/api-keys.service';
import { benchEnv, closeApi, freshDatabase, log, pct, seedWorkspace, startApi } from './support';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);

type Kind = 'no key' | 'fresh key' | 'replay';

async function main(): Promise<void> {
  const database = await freshDatabase(`chorus_bench_idem_${process.pid}`);
  // A window this short keeps the business plan's 300 requests from limiting the bench.
  const app = await startApi({ ...benchEnv(database.url), RATE_LIMIT_WINDOW_MS: '100' }, false);
  try {
    await app.listen(0, '127.0.0.1');
    const base = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    await seedWorkspace(app, 'bench', 'business');
    const { key } = await app.get(ApiKeysService).create('bench', 'owner@bench.example');
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const post = async (title: string, idempotencyKey?: string) => {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/posts`, {
        method: 'POST',
        headers: idempotencyKey ? { ...headers, 'idempotency-key': idempotencyKey } : headers,
        body: JSON.stringify({ board: 'ideas', title }),
      });
      await res.text();
      if (res.status !== 201) throw new Error(`answered ${res.status}`);
      return performance.now() - started;
    };
    const stored = 'replayed-key';
    await post('Stored answer', stored);
    for (let i = 0; i < 20; i++) await post(`Warm-up ${i}`); // connections, JIT

    const times: Record<Kind, number[]> = { 'no key': [], 'fresh key': [], replay: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < REQUESTS; i++) {
        // Alternating within the round, so that drift in the machine's load hits every kind alike.
        times['no key'].push(await post(`Plain ${round}-${i}`));
        times['fresh key'].push(await post(`Keyed ${round}-${i}`, `key-${round}-${i}`));
        times.replay.push(await post('Stored answer', stored));
      }
    }
    const median = (kind: Kind) => pct([...times[kind]].sort((a, b) => a - b), 50);
    const p95 = (kind: Kind) => pct([...times[kind]].sort((a, b) => a - b), 95);
    log(`POST /api/v1/posts, ${ROUNDS * REQUESTS} requests of each kind, one at a time`);
    for (const kind of Object.keys(times) as Kind[]) {
      log(
        `${kind.padEnd(10)} median ${median(kind).toFixed(2)} ms  p95 ${p95(kind).toFixed(2)} ms  ` +
          `ratio to no key ${(median(kind) / median('no key')).toFixed(2)}`,
      );
    }
  } finally {
    await closeApi(app);
    await database.drop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
