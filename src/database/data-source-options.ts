import { DataSourceOptions } from 'typeorm';
import { Initial1763740000000 } from '../../migrations/1763740000000-Initial';
import { ApiKeyEntity } from '../auth/api-key.entity';
import { BoardEntity } from '../boards/board.entity';
import { CommentEntity } from '../comments/comment.entity';
import { PostEntity } from '../posts/post.entity';
import { StatusChangeEntity } from '../posts/status-change.entity';
import { VoteEntity } from '../posts/vote.entity';
import { OutboxEventEntity } from '../webhooks/outbox-event.entity';
import { PersonEntity } from '../workspaces/person.entity';
import { WorkspaceEntity } from '../workspaces/workspace.entity';

export const ENTITIES = [
  WorkspaceEntity,
  PersonEntity,
  ApiKeyEntity,
  BoardEntity,
  PostEntity,
  VoteEntity,
  StatusChangeEntity,
  CommentEntity,
  OutboxEventEntity,
];

export const MIGRATIONS = [Initial1763740000000];

/** Options shared by the application, the CLI and ormconfig.ts. */
export function dataSourceOptions(url: string, embedded: boolean): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'all',
    synchronize: false,
    // PGlite is a single session: more than one connection would interleave transactions.
    poolSize: embedded ? 1 : 10,
    extra: { connectionTimeoutMillis: 10_000 },
  };
}
