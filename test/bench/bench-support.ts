/** What the benchmarks share: logging, percentiles, a database of their own, and how they end. */
import { Client } from 'pg';

export const log = (...args: unknown[]) => console.log(...args);
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const withDb = (url: string, db: string) => Object.assign(new URL(url), { pathname: `/${db}` }).toString();
/** The p-th percentile of ascending values (nearest rank). */
export const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** Drops and creates database `name` on the server; returns the admin connection and its URL. */
export async function freshDatabase(serverUrl: string, name: string): Promise<{ admin: Client; url: string }> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  return { admin, url: withDb(serverUrl, name) };
}

/** Runs a benchmark's main and exits: with process.exitCode (0 when unset) once it is done, 1 with the error printed. */
export function runBench(main: () => Promise<void>): void {
  main().then(
    () => process.exit(process.exitCode ?? 0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
