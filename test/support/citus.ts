import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * The local Citus cluster of `npm run test:citus` and `npm run bench:citus`: test tooling beside
 * the repository (../shared/citus/cluster), or CHORUS_CITUS_CLUSTER. It builds Citus once (a few
 * minutes), then runs a coordinator (CITUS_PORT, 9700) and workers on the ports after it.
 */
export const clusterScript = (): string =>
  process.env.CHORUS_CITUS_CLUSTER || resolve(__dirname.replace(/\/dist(\/test\/support)$/, '$1'), '../../../shared/citus/cluster');

export const coordinatorPort = (): number => Number(process.env.CITUS_PORT || 9700);

/** Whether this test run is on Citus (set by test/support/citus-global-setup.ts). */
export const onCitus = (): boolean => process.env.CHORUS_TEST_CITUS === 'true';

export function cluster(...args: string[]): string {
  return execFileSync(clusterScript(), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();
}

/** Starts the coordinator and `workers` workers (running nodes stay as they are). */
export function startCluster(workers = 2): string {
  if (!existsSync(clusterScript())) throw new Error(`No Citus cluster script at ${clusterScript()} (set CHORUS_CITUS_CLUSTER).`);
  return cluster('start', '--workers', String(workers));
}

/** A database on every node, with the citus extension and the workers registered: its URL. */
export const createCitusDatabase = (name: string): string => cluster('createdb', name).split('\n').pop()!;

export const dropCitusDatabase = (name: string): void => void cluster('dropdb', name);

/**
 * One more PostgreSQL server with Citus, on `port`, made by the cluster script as a cluster of
 * its own (CITUS_DIR beside the cluster's, no workers), with the cluster's settings: for a test
 * that adds a worker node to one database and rebalances. `cluster createdb` never sees it (it
 * registers the nodes of its own CITUS_DIR); `remove` stops it and deletes its data.
 */
export function startExtraNode(port: number): { url: (database: string) => string; remove(): void } {
  const env = { ...process.env, CITUS_DIR: `${process.env.CITUS_DIR || '/tmp/chorus-citus'}-extra-${port}`, CITUS_PORT: String(port) };
  const run = (...args: string[]) => execFileSync(clusterScript(), args, { encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'inherit'] });
  run('start', '--workers', '0');
  return {
    url: (database) => `postgresql://postgres@127.0.0.1:${port}/${database}`,
    remove: () => void run('destroy'),
  };
}
