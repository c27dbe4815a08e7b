import { Client } from 'pg';
import { createCitusDatabase, startCluster } from './citus';

/**
 * How many connections a session of the coordinator opens to each worker, and keeps. By
 * default a query over many shards may open up to 16 to a worker and keep one when it ends
 * (citus.max_adaptive_executor_pool_size, citus.max_cached_conns_per_worker). On a slow 2-core
 * machine the suites ran at load 13 to 16 with a third of the CPU in the kernel, and tests ran
 * past their timeouts (7 failed in one run); with two opened and two kept, the same suites took
 * 319 s instead of 463 s and passed. The suites test what Chorus asks of Citus, not its executor's
 * parallelism, which the small shards here do not need.
 */
const WORKER_CONNECTIONS = 2;

/** `npm run test:citus`: a fresh database on the local Citus cluster (a coordinator, two workers). */
export default async function citusGlobalSetup(): Promise<void> {
  process.stdout.write(`\n${startCluster(2)}\n`);
  const name = `chorus_citus_${Date.now()}_${process.pid}`;
  const url = createCitusDatabase(name);
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const database = db.escapeIdentifier(name);
    await db.query(`ALTER DATABASE ${database} SET citus.max_adaptive_executor_pool_size = ${WORKER_CONNECTIONS}`);
    await db.query(`ALTER DATABASE ${database} SET citus.max_cached_conns_per_worker = ${WORKER_CONNECTIONS}`);
  } finally {
    await db.end();
  }
  process.env.CHORUS_TEST_DATABASE_URL = url;
  process.env.CHORUS_TEST_CITUS = 'true';
  (globalThis as { __chorusCitusDatabase?: string }).__chorusCitusDatabase = name;
  process.stdout.write(`Tests run on: Citus, coordinator ${new URL(url).host} with 2 workers, database ${name}.\n`);
}
