import { createCitusDatabase, startCluster } from './citus';

/** `npm run test:citus`: a fresh database on the local Citus cluster (a coordinator, two workers). */
export default async function citusGlobalSetup(): Promise<void> {
  process.stdout.write(`\n${startCluster(2)}\n`);
  const name = `chorus_citus_${Date.now()}_${process.pid}`;
  const url = createCitusDatabase(name);
  process.env.CHORUS_TEST_DATABASE_URL = url;
  process.env.CHORUS_TEST_CITUS = 'true';
  (globalThis as { __chorusCitusDatabase?: string }).__chorusCitusDatabase = name;
  process.stdout.write(`Tests run on: Citus, coordinator ${new URL(url).host} with 2 workers, database ${name}.\n`);
}
