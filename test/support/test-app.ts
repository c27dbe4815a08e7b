import type { AddressInfo } from 'node:net';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Pool } from 'pg';
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config/app-config';
import { Database } from '../../src/database/sql';
import { onCitus } from './citus';

/** A test's way to the database beside the application: plain statements, and the pool they go through. */
export interface TestDb {
  query<T = any>(text: string, params?: unknown[]): Promise<T[]>;
  readonly pool: Pool;
}

export const testDb = (db: Database): TestDb => ({ query: (text, params) => db.rows(text, params), pool: db.pool });

export interface TestApp {
  app: NestExpressApplication;
  baseUrl: string;
  db: TestDb;
  close(): Promise<void>;
}

export const testDatabaseUrl = (): string => {
  const url = process.env.CHORUS_TEST_DATABASE_URL;
  if (!url) throw new Error('CHORUS_TEST_DATABASE_URL is not set: run the tests with `npm test`.');
  return url;
};

/** The key for secrets at rest in every test process (apps, CLI and workers share the database). */
export const TEST_ENCRYPTION_KEY = '5e'.repeat(32);

export const onEmbeddedDatabase = (): boolean =>
  JSON.parse(process.env.CHORUS_TEST_DATABASE ?? '{}').kind === 'embedded';

/**
 * The real application on a free port, on this run's test database. Failed-authentication and
 * sign-in email limits per client address are lifted unless a test sets AUTH_FAILURE_LIMIT or
 * SIGN_IN_CLIENT_LIMIT: every test calls from 127.0.0.1.
 * The outbox processor runs only when a test passes RUN_WORKER: 'true': any processor may claim
 * any workspace's deliveries with its own configuration (retry schedule, private targets), so
 * only the tests about deliveries run one (see processor-lock.ts). `PORT` chooses the port (a
 * test whose PUBLIC_BASE_URL must name it), else any free one.
 * On Citus a statement may take 30 s, not the 5 s of DATABASE_STATEMENT_TIMEOUT_MS's default:
 * there three PostgreSQL servers, two test files and their processes share two cores, at loads
 * of 10 to 16, and a statement of outbox-many-queues (its setup's or a claim's over 2,000
 * queues: pg's error does not say) was cancelled at 5 s in two runs of test:citus, though none
 * of its statements takes 300 ms alone. A test about the timeout sets its own.
 */
export async function startTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const config = loadConfig({
    AUTH_FAILURE_LIMIT: '100000',
    SIGN_IN_CLIENT_LIMIT: '100000',
    BASE_URL: 'https://chorus.test',
    PUBLIC_BASE_URL: 'https://boards.chorus.test',
    RUN_WORKER: 'false',
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    LOG_LEVEL: 'error',
    ...(onCitus() ? { DATABASE_STATEMENT_TIMEOUT_MS: '30000' } : {}),
    ...env,
  });
  const database = { url: testDatabaseUrl(), embedded: onEmbeddedDatabase(), close: async () => {} };
  const app = await createApp(config, database);
  await app.listen(Number(env.PORT ?? 0), '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  return {
    app,
    baseUrl: `http://127.0.0.1:${port}`,
    db: testDb(app.get(Database)),
    close: () => app.close(),
  };
}
