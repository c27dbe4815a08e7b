"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
const api_keys_service_1 = require("../../src/auth/api-keys.service");
const support_1 = require("./support");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
async function main() {
    const database = await (0, support_1.freshDatabase)(`chorus_bench_idem_${process.pid}`);
    const app = await (0, support_1.startApi)({ ...(0, support_1.benchEnv)(database.url), RATE_LIMIT_WINDOW_MS: '100' }, false);
    try {
        await app.listen(0, '127.0.0.1');
        const base = `http://127.0.0.1:${app.getHttpServer().address().port}`;
        await (0, support_1.seedWorkspace)(app, 'bench', 'business');
        const { key } = await app.get(api_keys_service_1.ApiKeysService).create('bench', 'owner@bench.example');
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
        const post = async (title, idempotencyKey) => {
            const started = performance.now();
            const res = await fetch(`${base}/api/v1/posts`, {
                method: 'POST',
                headers: idempotencyKey ? { ...headers, 'idempotency-key': idempotencyKey } : headers,
                body: JSON.stringify({ board: 'ideas', title }),
            });
            await res.text();
            if (res.status !== 201)
                throw new Error(`answered ${res.status}`);
            return performance.now() - started;
        };
        const stored = 'replayed-key';
        await post('Stored answer', stored);
        for (let i = 0; i < 20; i++)
            await post(`Warm-up ${i}`);
        const times = { 'no key': [], 'fresh key': [], replay: [] };
        for (let round = 0; round < ROUNDS; round++) {
            for (let i = 0; i < REQUESTS; i++) {
                times['no key'].push(await post(`Plain ${round}-${i}`));
                times['fresh key'].push(await post(`Keyed ${round}-${i}`, `key-${round}-${i}`));
                times.replay.push(await post('Stored answer', stored));
            }
        }
        const median = (kind) => (0, support_1.pct)([...times[kind]].sort((a, b) => a - b), 50);
        const p95 = (kind) => (0, support_1.pct)([...times[kind]].sort((a, b) => a - b), 95);
        (0, support_1.log)(`POST /api/v1/posts, ${ROUNDS * REQUESTS} requests of each kind, one at a time`);
        for (const kind of Object.keys(times)) {
            (0, support_1.log)(`${kind.padEnd(10)} median ${median(kind).toFixed(2)} ms  p95 ${p95(kind).toFixed(2)} ms  ` +
                `ratio to no key ${(median(kind) / median('no key')).toFixed(2)}`);
        }
    }
    finally {
        await (0, support_1.closeApi)(app);
        await database.drop();
    }
}
main().then(() => process.exit(0), (error) => {
    console.error(error);
    process.exit(1);
});
//# sourceMappingURL=idempotency.bench.js.map