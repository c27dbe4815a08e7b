import type { DataSourceOptions } from 'typeorm';
import type { PoolConfig } from 'pg';
import { Initial1763740000000 } from '../../migrations/1763740000000-Initial';
import { WebhookDeliveries1763750000000 } from '../../migrations/1763750000000-WebhookDeliveries';
import { FairOutbox1763760000000 } from '../../migrations/1763760000000-FairOutbox';
import { DeliveriesByEventTime1763770000000 } from '../../migrations/1763770000000-DeliveriesByEventTime';
import { RotatedSecrets1763770001000 } from '../../migrations/1763770001000-RotatedSecrets';
import { IdempotencyKeys1763780000000 } from '../../migrations/1763780000000-IdempotencyKeys';
import { CallerChanges1763790000000 } from '../../migrations/1763790000000-CallerChanges';
import { WorkspaceSearch1763790000001 } from '../../migrations/1763790000001-WorkspaceSearch';
import { WorkspaceSearchKeys1763790000002 } from '../../migrations/1763790000002-WorkspaceSearchKeys';
import { DeliveryQueueOrder1763796100000 } from '../../migrations/1763796100000-DeliveryQueueOrder';
import { SiteSessions1763800000000 } from '../../migrations/1763800000000-SiteSessions';
import { DashboardSupport1763800001000 } from '../../migrations/1763800001000-DashboardSupport';
import { EventsByPost1763800002000 } from '../../migrations/1763800002000-EventsByPost';
import { DistributeByWorkspace1763810000000 } from '../../migrations/1763810000000-DistributeByWorkspace';
import { EmailNormalForm1763820000000 } from '../../migrations/1763820000000-EmailNormalForm';
import { SsoTokenUses1763820001000 } from '../../migrations/1763820001000-SsoTokenUses';
import { DashboardSignIns1763820002000 } from '../../migrations/1763820002000-DashboardSignIns';
import { Changelog1763840000000 } from '../../migrations/1763840000000-Changelog';
import { ImportedRecords1763850000000 } from '../../migrations/1763850000000-ImportedRecords';
import { ImportedChangelog1763860000000 } from '../../migrations/1763860000000-ImportedChangelog';
import { WidgetOrigins1763870000000 } from '../../migrations/1763870000000-WidgetOrigins';
import { VoterMailings1763880000000 } from '../../migrations/1763880000000-VoterMailings';
import { Moderation1763890000000 } from '../../migrations/1763890000000-Moderation';
import { Blocking1763891000000 } from '../../migrations/1763891000000-Blocking';
import { SimilarPosts1763892000000 } from '../../migrations/1763892000000-SimilarPosts';
import { OutboxQueues1763895000000 } from '../../migrations/1763895000000-OutboxQueues';
import { SimilarPostsByWords1763896000000 } from '../../migrations/1763896000000-SimilarPostsByWords';
import { SignInEmailsFirst1763897000000 } from '../../migrations/1763897000000-SignInEmailsFirst';
import { EmailsInFewerIndexes1763899000000 } from '../../migrations/1763899000000-EmailsInFewerIndexes';

export const MIGRATIONS = [
  Initial1763740000000,
  WebhookDeliveries1763750000000,
  FairOutbox1763760000000,
  DeliveriesByEventTime1763770000000,
  RotatedSecrets1763770001000,
  IdempotencyKeys1763780000000,
  CallerChanges1763790000000,
  WorkspaceSearch1763790000001,
  WorkspaceSearchKeys1763790000002,
  DeliveryQueueOrder1763796100000,
  SiteSessions1763800000000,
  DashboardSupport1763800001000,
  EventsByPost1763800002000,
  DistributeByWorkspace1763810000000,
  EmailNormalForm1763820000000,
  SsoTokenUses1763820001000,
  DashboardSignIns1763820002000,
  Changelog1763840000000,
  ImportedRecords1763850000000,
  ImportedChangelog1763860000000,
  WidgetOrigins1763870000000,
  VoterMailings1763880000000,
  Moderation1763890000000,
  Blocking1763891000000,
  SimilarPosts1763892000000,
  OutboxQueues1763895000000,
  SimilarPostsByWords1763896000000,
  SignInEmailsFirst1763897000000,
  EmailsInFewerIndexes1763899000000,
];

/** The name TypeORM records for a migration in the `migrations` table. */
export const migrationName = (migration: (typeof MIGRATIONS)[number]): string => (new migration() as { name?: string }).name || migration.name;

/**
 * The application's one pool of connections (src/database/sql.ts runs every statement on it).
 * `statementTimeoutMs` (0: none) bounds every statement on a PostgreSQL server; PGlite does not
 * enforce it.
 */
export function poolOptions(url: string, embedded: boolean, statementTimeoutMs = 0): PoolConfig & { pipeline: boolean } {
  // Pipeline mode: a statement is written without waiting for the answers before it, so that a
  // transaction's statements that do not wait on each other share a round trip (src/database/sql.ts).
  return embedded
    ? // PGlite is a single session: more than one connection would interleave transactions. The
      // one connection is kept for good, so that no other local process can take its place.
      { connectionString: url, max: 1, pipeline: true, connectionTimeoutMillis: 10_000, idleTimeoutMillis: 0 }
    : {
        connectionString: url,
        max: 10,
        pipeline: true,
        connectionTimeoutMillis: 10_000,
        ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
      };
}

/**
 * TypeORM's options, for running the migrations (src/database/database.ts, ormconfig.ts): it maps
 * no entity, and is loaded only when a migration is pending.
 */
export function dataSourceOptions(url: string, embedded: boolean): DataSourceOptions {
  const { connectionString: _, max, ...extra } = poolOptions(url, embedded);
  return {
    type: 'postgres',
    url,
    entities: [],
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // A transaction per migration, so that one may run outside any (`transaction = false`):
    // WorkspaceSearchKeys builds its index CONCURRENTLY, without holding back writes.
    migrationsTransactionMode: 'each',
    synchronize: false,
    poolSize: max,
    extra,
  };
}
